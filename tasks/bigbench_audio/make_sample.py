"""Generate ``sample_data`` here: a SYNTHETIC stand-in for Big Bench Audio (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/bigbench_audio/make_sample.py

Laid out exactly as ``ArtificialAnalysis/big_bench_audio`` publishes its data: ``metadata.jsonl`` with one line
per question, ``{"category", "official_answer", "file_name", "id"}`` (ids not contiguous, as the published ones are
not), beside ``data/question_<id>.mp3``. Two questions of each category, their answers in the published forms
(valid/invalid, Yes/No, a number). Answers known by construction.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import soundfile as sf

from lm_eval_audio.testing.synthetic_audio import SR, said_whole, write_sample

QUESTIONS = [  # (id, category, spoken question, official answer)
    (0, "formal_fallacies", "All cats are animals. Tom is a cat. So Tom is an animal. Valid?", "valid"),
    (1, "formal_fallacies", "Some dogs bark. Rex barks. So Rex is a dog. Valid?", "invalid"),
    (250, "navigate", "Take two steps forward, then two back. Are you at the start?", "Yes"),
    (251, "navigate", "Take three steps forward. Are you at the start?", "No"),
    (500, "object_counting", "I have an apple and two pears. How many fruits?", "3"),
    (501, "object_counting", "I have a cat, a dog and a goat. How many animals?", "3"),
    (750, "web_of_lies", "Ann tells the truth. Bob says Ann lies. Does Bob lie?", "Yes"),
    (1059, "web_of_lies", "Sam lies. Kim says Sam lies. Does Kim lie?", "No"),
]


def make(out: Path) -> int:
    (out / "data").mkdir(parents=True, exist_ok=True)
    lines = []
    for qid, category, text, answer in QUESTIONS:
        name = f"data/question_{qid}.mp3"
        buffer = io.BytesIO()
        sf.write(buffer, said_whole(text), SR, format="MP3")
        (out / name).write_bytes(buffer.getvalue())
        lines.append(json.dumps({"category": category, "official_answer": answer, "file_name": name, "id": qid}))
    (out / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return len(lines)


if __name__ == "__main__":
    write_sample("Big Bench Audio", Path(__file__).resolve().parent, make)
