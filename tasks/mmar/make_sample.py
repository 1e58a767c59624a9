"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MMAR (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/mmar/make_sample.py

Laid out exactly as the benchmark publishes its data (docs/design-notes/issue18_mmau_mmar_mmaupro.md gives the
sources):

* ``MMAR-meta.json`` (a JSON list, as on HF BoJack/MMAR; keys ``id, audio_path, question, choices, answer,
  modality, category, sub-category, language, source, url, timestamp``), clips at ``./audio/<id>.wav``, two items
  per modality mix.

Answers known by construction; audio and README as ``lm_eval_audio.testing.synthetic_audio`` makes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lm_eval_audio.testing.synthetic_audio import (
    SYNTHETIC_SAMPLE_DATASET,
    beeps,
    melody,
    mix,
    noise,
    said,
    shuffled,
    write_audio,
    write_sample,
)

SEED = 20261125  # the same seed for the three samples (each draws its own stream: [SEED, 1], [SEED, 2], [SEED, 3])


MMAR_ITEMS = [
    # (modality, category, sub-category, question, answer, distractors, clip)
    ("sound", "Signal Layer", "Acoustic Quality Analysis", "How many beeps are heard?", "two", ["one", "three", "four"],
     lambda: beeps(2)),
    ("sound", "Perception Layer", "Environmental Perception and Reasoning", "What is heard?", "white noise",
     ["birdsong", "a car horn", "applause"], lambda: noise(np.random.default_rng(2), 2.0, 0.3)),
    ("music", "Perception Layer", "Music Theory", "How many notes are played?", "three", ["two", "five", "seven"],
     lambda: melody([62, 66, 69])),
    ("music", "Semantic Layer", "Emotional Tone", "Does the melody rise or fall?", "It falls",
     ["It rises", "It repeats one note"], lambda: melody([71, 67, 64, 60])),
    ("speech", "Semantic Layer", "Content Analysis", "Which city does the speaker want to visit?", "Paris",
     ["Berlin", "Tokyo", "Lima"], lambda: said("Next summer I want to visit Paris.")),
    ("speech", "Cultural Layer", "Professional Knowledge and Reasoning", "Which season does the speaker mention?",
     "winter", ["spring", "summer", "autumn"], lambda: said("It always snows here in winter.")),
    ("mix-sound-music", "Perception Layer", "Counting and Statistics", "What plays under the noise?",
     "a melody", ["speech", "silence", "a siren"],
     lambda: mix(melody([60, 64, 67, 72]), noise(np.random.default_rng(3), 1.8, 0.05))),
    ("mix-sound-music", "Signal Layer", "Acoustic Quality Analysis", "How many beeps are heard over the music?",
     "three", ["one", "two", "five"], lambda: mix(beeps(3, 1200), melody([55, 59, 62], 0.55))),
    ("mix-sound-speech", "Semantic Layer", "Content Analysis", "Which drink does the speaker order?", "tea",
     ["coffee", "juice", "water"],
     lambda: mix(said("A cup of tea, please."), noise(np.random.default_rng(4), 2.0, 0.04))),
    ("mix-sound-speech", "Perception Layer", "Environmental Perception and Reasoning",
     "What number does the speaker say over the beeps?", "five", ["two", "eight", "ten"],
     lambda: mix(said("The code is five."), beeps(2, 2000) * 0.3)),
    ("mix-music-speech", "Semantic Layer", "Content Analysis", "Which animal does the speaker name over the music?",
     "a rabbit", ["a wolf", "an eagle", "a shark"],
     lambda: mix(said("Look, a rabbit!"), melody([60, 67, 64], 0.5) * 0.3)),
    ("mix-music-speech", "Cultural Layer", "Professional Knowledge and Reasoning", "Which day is announced?",
     "Friday", ["Monday", "Sunday", "Tuesday"],
     lambda: mix(said("The concert is on Friday."), melody([65, 69], 0.8) * 0.3)),
    ("mix-sound-music-speech", "Semantic Layer", "Content Analysis", "Which colour does the speaker name?", "orange",
     ["purple", "grey", "pink"],
     lambda: mix(said("My car is orange."), melody([60, 64], 0.6) * 0.3, noise(np.random.default_rng(5), 1.5, 0.03))),
    ("mix-sound-music-speech", "Perception Layer", "Counting and Statistics", "How many words does the speaker say?",
     "two", ["one", "four", "six"],
     lambda: mix(said("Good morning."), melody([62, 65], 0.5) * 0.3, beeps(1, 400) * 0.3)),
]


def make(out: Path) -> int:
    rng = np.random.default_rng([SEED, 2])
    meta = []
    for index, (modality, category, sub, question, answer, others, clip) in enumerate(MMAR_ITEMS):
        item_id = f"synthetic_{index:02d}_00-00-00_00-00-03"
        write_audio(clip(), out / "audio" / f"{item_id}.wav")
        meta.append({"id": item_id, "audio_path": f"./audio/{item_id}.wav", "question": question,
                     "choices": shuffled(rng, answer, others), "answer": answer, "modality": modality,
                     "category": category, "sub-category": sub, "language": "en" if "speech" in modality else None,
                     "source": SYNTHETIC_SAMPLE_DATASET, "url": None, "timestamp": "00:00:00,00:00:03"})
    (out / "MMAR-meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    return len(meta)


if __name__ == "__main__":
    write_sample("MMAR", Path(__file__).resolve().parent, make)
