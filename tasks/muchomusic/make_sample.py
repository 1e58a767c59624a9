"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MuChoMusic (run once; outputs are committed).

    .venv/bin/python tasks/muchomusic/make_sample.py

Laid out as its two Hub datasets publish it, in one folder (as ``MUCHOMUSIC_DATA_DIR`` holds them):
``muchomusic.csv`` in ``mulab-mir/muchomusic``'s columns (the dimension lists as Python list literals, one empty)
beside ``data/test-00000-of-00001.parquet`` in ``lmms-lab-audio/muchomusic``'s (``context`` an ``Audio`` cell,
``instruction``, ``choices`` as one lettered string with a trailing space, ``answer`` as ``(B) ...``). Tones and
melodies whose tempo, pitch and length the questions ask about.
"""

from __future__ import annotations

import csv
from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import beeps, melody, wav_bytes, write_audio_parquet, write_sample

ITEMS = [  # (clip, question, options in the asked order, right index, source, genre, knowledge, reasoning)
    (melody([60, 62, 64, 65, 67, 69, 71, 72], note=0.2), "What is the tempo of the music?",
     ["Slow tempo", "Fast tempo", "Suitable for sleeping", "Uses a lot of strings"], 1, "sdd", "pop",
     "['metre and rhythm']", "[]"),
    (melody([72, 71, 69, 67], note=0.6), "Does the melody rise or fall?",
     ["It rises", "It stays on one note", "It falls", "It is sung by a choir"], 2, "musiccaps", "classical",
     "['melody']", "['mood and expression']"),
    (beeps(3), "How many notes are played?", ["Three", "One", "Seven", "Twelve"], 0, "musiccaps", "electronic",
     "", "['temporal relations between elements']"),
]
DISTRACTOR_COLUMNS = ("distractor_1_answer", "distractor_2_answer", "distractor_3_answer")


def make(out: Path) -> int:
    rows, official = [], []
    for k, (clip, question, options, right, source, genre, knowledge, reasoning) in enumerate(ITEMS):
        choices = "".join(f"({letter}) {option} " for letter, option in zip("ABCD", options))
        rows.append({"context": {"bytes": wav_bytes(clip), "path": f"track{k}.wav"}, "instruction": question,
                     "choices": choices, "answer": f"({'ABCD'[right]}) {options[right]}"})
        distractors = [o for j, o in enumerate(options) if j != right]
        official.append({"question": question, "dataset": source, "dataset_identifier": f"track{k}.json",
                         "correct_answer": options[right], **dict(zip(DISTRACTOR_COLUMNS, distractors)),
                         "genre": genre, "music_knowledge": knowledge, "music_reasoning": reasoning})
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    with open(out / "muchomusic.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(official[0]))
        writer.writeheader()
        writer.writerows(official)
    return len(rows)


if __name__ == "__main__":
    write_sample("MuChoMusic", Path(__file__).resolve().parent, make)
