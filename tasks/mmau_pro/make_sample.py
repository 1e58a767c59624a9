"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MMAU-Pro (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/mmau_pro/make_sample.py

Laid out exactly as the benchmark publishes its data (docs/design-notes/issue18_mmau_mmar_mmaupro.md gives the
sources):

* ``test.parquet`` (columns ``id, audio_path`` (a list), ``question, answer, choices, length_type,
  perceptual_skills, reasoning_skills, category, transcription, task_classification, task_identifier, kwargs``
  (a struct), ``sub-cat``) with clips at ``data/<name>.wav``: closed questions of four categories (the ``multi``
  ones with two clips), open questions with empty ``choices``, and instruction-following rows with ``answer``
  null, one of which counts sentences.

Answers known by construction; audio and README as ``lm_eval_audio.testing.synthetic_audio`` makes them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lm_eval_audio.testing.synthetic_audio import (
    beeps,
    melody,
    noise,
    said,
    shuffled,
    write_audio,
    write_sample,
)

SEED = 20261125  # the same seed for the three samples (each draws its own stream: [SEED, 1], [SEED, 2], [SEED, 3])


PRO_CLOSED = [
    # (category, sub-cat, question, answer, distractors, clips)
    ("sound", "event counting", "How many beeps are heard?", "four", ["one", "two", "six"], [lambda: beeps(4)]),
    ("sound", "source identification", "What is heard?", "white noise", ["a train", "thunder", "a whistle"],
     [lambda: noise(np.random.default_rng(6), 1.5, 0.3)]),
    ("music", "melody", "Does the melody rise or fall?", "It rises", ["It falls", "It stays on one note"],
     [lambda: melody([57, 60, 64, 69])]),
    ("music", "counting", "How many notes are played?", "two", ["four", "six", "eight"],
     [lambda: melody([60, 67], 0.6)]),
    ("speech", "content", "Which vegetable does the speaker name?", "carrot", ["potato", "onion", "pepper"],
     [lambda: said("I am cooking a carrot.")]),
    ("speech", "content", "Which number does the speaker say?", "eleven", ["four", "twenty", "thirty"],
     [lambda: said("Platform eleven, please.")]),
    ("multi", "comparison", "Which clip has more beeps?", "Audio 2", ["Audio 1"], [lambda: beeps(1), lambda: beeps(3)]),
    ("multi", "comparison", "In which clip does someone speak?", "Audio 1", ["Audio 2"],
     [lambda: said("Hello there."), lambda: melody([60, 64, 67])]),
]
PRO_OPEN = [
    ("What does the speaker ask for?", "The speaker asks for a glass of water.",
     lambda: said("Could I have a glass of water?")),
    ("Describe what is heard.", "A short melody of three rising notes.", lambda: melody([60, 64, 67])),
]
PRO_INSTRUCTIONS = [
    # (question, task_identifier, kwargs, clip)
    ("Say what the speaker names, in lowercase letters only.", "All Lowercase", {}, lambda: said("A yellow banana.")),
    ("Name the fruit the speaker mentions, and use the word fruit.", "Include Keywords", {"keywords": "fruit"},
     lambda: said("I bought some cherries.")),
    ("In at most five words: what does the speaker want?", "Number Words (at most)", {"N": 5},
     lambda: said("I want a new bicycle.")),
    ("Describe the sound in at most two sentences.", "Number Sentences (at most)", {"N": 2}, lambda: beeps(2)),
]
KWARGS_FIELDS = ("keywords", "N", "N1", "N2")


def make(out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng([SEED, 3])
    rows = []

    def clip_paths(index: int, clips) -> list[str]:
        paths = []
        for k, make in enumerate(clips):
            name = f"data/synthetic_{index:02d}_{k}.wav"
            write_audio(make(), out / name)
            paths.append(name)
        return paths

    def row(category, sub, question, answer, choices, paths, identifier=None, kwargs=None):
        rows.append({
            "id": f"synthetic-{len(rows):03d}", "audio_path": paths, "question": question, "answer": answer,
            "choices": choices, "length_type": "short", "perceptual_skills": ["synthetic"],
            "reasoning_skills": ["synthetic"], "category": category, "transcription": None,
            "task_classification": category, "task_identifier": identifier,
            "kwargs": None if kwargs is None else {k: kwargs.get(k) for k in KWARGS_FIELDS}, "sub-cat": sub,
        })

    for category, sub, question, answer, others, clips in PRO_CLOSED:
        row(category, sub, question, answer, shuffled(rng, answer, others), clip_paths(len(rows), clips))
    for question, answer, clip in PRO_OPEN:
        row("open", "open", question, answer, [], clip_paths(len(rows), [clip]))
    for question, identifier, kwargs, clip in PRO_INSTRUCTIONS:
        row("instruction following", "instruction following", question, None, [], clip_paths(len(rows), [clip]),
            identifier, kwargs)
    schema = pa.schema([
        ("id", pa.string()), ("audio_path", pa.list_(pa.string())), ("question", pa.string()),
        ("answer", pa.string()), ("choices", pa.list_(pa.string())), ("length_type", pa.string()),
        ("perceptual_skills", pa.list_(pa.string())), ("reasoning_skills", pa.list_(pa.string())),
        ("category", pa.string()), ("transcription", pa.string()), ("task_classification", pa.string()),
        ("task_identifier", pa.string()),
        ("kwargs", pa.struct([("keywords", pa.string()), ("N", pa.int64()), ("N1", pa.int64()), ("N2", pa.int64())])),
        ("sub-cat", pa.string()),
    ])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), out / "test.parquet")
    return len(rows)


if __name__ == "__main__":
    write_sample("MMAU-Pro", Path(__file__).resolve().parent, make)
