"""Generate ``sample_data`` here: a SYNTHETIC stand-in for OpenAudioBench (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/openaudiobench/make_sample.py

Laid out as ``baichuan-inc/OpenAudioBench`` publishes its data: per subset ``eval_datas/<subset>/<subset>.csv``
with ``audio_filename`` and the question and reference columns its evaluation reads (data.COLUMNS), beside
``eval_datas/<subset>/audios/<subset>_<n>.mp3``. The published CSVs may hold more columns than these (no loader
that reads them names others); the references are written in the forms the evaluators pass to the judge (TriviaQA's
aliases and Web Questions' answers as the printed lists). Two spoken questions per subset, answers known.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import soundfile as sf

from lm_eval_audio.tasks.openaudiobench.data import AUDIO_COLUMN, COLUMNS, csv_path
from lm_eval_audio.testing.synthetic_audio import SR, said_whole, write_sample

ITEMS = {  # subset -> [(spoken question, reference)]
    "alpaca_eval": [("Name a primary color.", "Red is a primary color."),
                    ("Say hello in French.", "Bonjour.")],
    "llama_questions": [("What color is the sky on a clear day?", "blue"),
                        ("How many legs does a spider have?", "eight")],
    "reasoning_qa": [("What is two plus three?", "5"),
                     ("Tom is older than Ann. Who is younger?", "Ann")],
    "trivia_qa": [("What is the capital of France?", "['paris']"),
                  ("Which planet is known as the red planet?", "['mars', 'planet mars']")],
    "web_questions": [("What language is spoken in Brazil?", "['Portuguese Language']"),
                      ("Who wrote Hamlet?", "['William Shakespeare']")],
}


def make(out: Path) -> int:
    total = 0
    for subset, items in ITEMS.items():
        question, reference = COLUMNS[subset]
        table = out / csv_path(subset)
        (table.parent / "audios").mkdir(parents=True, exist_ok=True)
        rows = []
        for n, (text, answer) in enumerate(items):
            name = f"{subset}_{n}.mp3"
            buffer = io.BytesIO()
            sf.write(buffer, said_whole(text), SR, format="MP3")
            (table.parent / "audios" / name).write_bytes(buffer.getvalue())
            rows.append({question: text, reference: answer, AUDIO_COLUMN: name})
        with table.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=[question, reference, AUDIO_COLUMN])
            writer.writeheader()
            writer.writerows(rows)
        total += len(rows)
    return total


if __name__ == "__main__":
    write_sample("OpenAudioBench", Path(__file__).resolve().parent, make)
