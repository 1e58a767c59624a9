"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MMAU (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/mmau/make_sample.py

Laid out exactly as the benchmark publishes its data (docs/design-notes/issue18_mmau_mmar_mmaupro.md gives the
sources):

* ``mmau-test-mini.json`` (a JSON list; keys ``id, audio_id, question, choices, answer, dataset, task, split,
  category, sub-category, difficulty``; ``category`` once as a one-element list, as in the real file) with clips at
  ``./test-mini-audios/<id>.wav``; and ``mmau-test.json``, three items with ``"answer": ""`` (the test set's withheld
  answers) at ``./test-audios/<id>.wav``.

Answers known by construction; audio and README as ``lm_eval_audio.testing.synthetic_audio`` makes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lm_eval_audio.testing.synthetic_audio import (
    SYNTHETIC_SAMPLE_DATASET,
    beep,
    beeps,
    melody,
    noise,
    said,
    shuffled,
    silence,
    write_audio,
    write_sample,
)

SEED = 20261125  # the same seed for the three samples (each draws its own stream: [SEED, 1], [SEED, 2], [SEED, 3])


MMAU_ITEMS = [
    # (task, difficulty, category, sub-category, question, answer, distractors, clip)
    ("speech", "easy", "Information Extraction", "Content Extraction", "Which fruit does the speaker name?",
     "apple", ["river", "candle", "tiger"], lambda: said("I would like an apple.")),
    ("speech", "medium", "Reasoning", "Speaker Preference Inference", "Which colour does the speaker love?",
     "blue", ["green", "red", "yellow"], lambda: said("I like green, but I love blue.")),
    ("speech", "hard", ["Reasoning"], "Temporal Reasoning", "What does the speaker do last?",
     "close the door", ["open the window", "turn on the light", "sit down"],
     lambda: said("First I open the window, then I close the door.")),
    ("speech", "easy", "Information Extraction", "Counting", "Which number is spoken?",
     "seven", ["three", "nine", "twelve"], lambda: said("The number is seven.")),
    ("sound", "easy", "Information Extraction", "Event Counting", "How many beeps are heard?",
     "three", ["one", "two", "five"], lambda: beeps(3)),
    ("sound", "medium", "Reasoning", "Acoustic Source Inference", "What is heard in the recording?",
     "white noise", ["a dog barking", "a violin", "rain on a roof"], lambda: noise(np.random.default_rng(1), 2.0, 0.3)),
    ("sound", "hard", "Reasoning", "Temporal Reasoning", "Which comes first in the recording?",
     "a low beep", ["a high beep", "a burst of noise"],
     lambda: np.concatenate([beep(300, 0.5, 0.5), silence(0.3), beep(1500, 0.5, 0.5)])),
    ("sound", "easy", "Information Extraction", "Event Counting", "How many beeps are heard?",
     "two", ["one", "four", "six"], lambda: beeps(2, 600)),
    ("music", "easy", "Information Extraction", "Instrumentation", "How many notes are played?",
     "four", ["two", "six", "eight"], lambda: melody([60, 64, 67, 72])),
    ("music", "medium", "Reasoning", "Melodic Structure Interpretation", "Does the melody rise or fall?",
     "It rises", ["It falls", "It stays on one note"], lambda: melody([60, 62, 64, 65, 67])),
    ("music", "hard", "Reasoning", "Melodic Structure Interpretation", "Does the melody rise or fall?",
     "It falls", ["It rises", "It stays on one note"], lambda: melody([72, 69, 65, 62, 60])),
    ("music", "medium", "Information Extraction", "Tempo", "Is the music fast or slow?",
     "slow", ["fast"], lambda: melody([60, 64, 67], 1.0)),
]
MMAU_TEST_ITEMS = [
    ("speech", "easy", "Information Extraction", "Content Extraction", "Which animal does the speaker name?",
     "horse", ["cat", "bird", "fish"], lambda: said("The horse is running.")),
    ("sound", "easy", "Information Extraction", "Event Counting", "How many beeps are heard?",
     "four", ["one", "two", "three"], lambda: beeps(4)),
    ("music", "easy", "Information Extraction", "Instrumentation", "How many notes are played?",
     "three", ["one", "five", "seven"], lambda: melody([60, 64, 67])),
]


def make(out: Path) -> int:
    rng = np.random.default_rng([SEED, 1])
    for filename, folder, split, items in (("mmau-test-mini.json", "test-mini-audios", "test-mini", MMAU_ITEMS),
                                            ("mmau-test.json", "test-audios", "test", MMAU_TEST_ITEMS)):
        meta = []
        for index, (task, difficulty, category, sub, question, answer, others, clip) in enumerate(items):
            item_id = f"synthetic-{split}-{index:03d}"
            write_audio(clip(), out / folder / f"{item_id}.wav")
            meta.append({"id": item_id, "audio_id": f"./{folder}/{item_id}.wav", "question": question,
                         "choices": shuffled(rng, answer, others), "answer": answer if split == "test-mini" else "",
                         "dataset": SYNTHETIC_SAMPLE_DATASET, "task": task, "split": split, "category": category,
                         "sub-category": sub, "difficulty": difficulty})
        (out / filename).write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    return len(MMAU_ITEMS) + len(MMAU_TEST_ITEMS)


if __name__ == "__main__":
    write_sample("MMAU", Path(__file__).resolve().parent, make)
