"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MMSU (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/mmsu/make_sample.py

Laid out exactly as ``ddwang2000/MMSU`` publishes its data: ``data/train-00000-of-00001.parquet`` with ``id``
(``<task_name>_<uuid>``), ``task_name``, ``audio`` (a Hugging Face ``Audio`` struct: ``bytes``, ``path``),
``question``, ``choice_a`` .. ``choice_d`` (null in the two-option items, in any position), ``answer_gt`` (the
right choice's text), ``category``, ``sub-category``, ``sub-sub-category``, ``linguistics_sub_discipline``: each
category and sub-category, a two-option item with nulls in A and C, one whose options include the text "None".
Answers known by construction.
"""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import soundfile as sf

from lm_eval_audio.testing.synthetic_audio import SR, said_whole, to_pcm16, write_sample

ITEMS = [  # (task_name, category, sub-category, sub-sub-category, said, question, choices A-D, answer)
    ("content_grounding", "Perception", "Linguistics", "Semantics", "I bought three apples.",
     "What did the speaker buy?", ["Pears.", "Apples.", "Bread.", "Milk."], "Apples."),
    ("syllable_perception", "Perception", "Linguistics", "Phonology", "Banana.",
     "How many syllables does the word have?", ["Two.", "Three.", "Four.", "One."], "Three."),
    ("gender_prediction", "Perception", "Paralinguistics", "Speaker Traits", "Good morning, everyone.",
     "What is the gender of the speaker?", [None, "male", None, "female"], "male"),
    ("total_speaker_counting", "Perception", "Paralinguistics", "Speaker Traits", "Hello, it is only me.",
     "How many speakers are there?", ["One.", "Two.", "Three.", "Four."], "One."),
    ("intent_detection", "Reasoning", "Linguistics", "Semantics", "Could you close the window?",
     "What does the speaker want?", ["A drink.", "The window closed.", "Music.", "A taxi."], "The window closed."),
    ("homophone_based_reasoning", "Reasoning", "Linguistics", "Phonology", "I ate eight grapes.",
     "How many grapes were eaten?", ["Eight.", "Two.", "Four.", "None"], "Eight."),
    ("sarcasm_detection", "Reasoning", "Paralinguistics", "Speaker Traits & Speaking Style",
     "Oh great, another rainy day.", "Is the speaker sincere or sarcastic?", ["Sincere.", "Sarcastic.", None, None],
     "Sarcastic."),
]


def make(out: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for k, (task, category, sub, subsub, text, question, choices, answer) in enumerate(ITEMS):
        buffer = io.BytesIO()
        sf.write(buffer, to_pcm16(said_whole(text)), SR, format="WAV", subtype="PCM_16")
        uid = f"{task}_{uuid.UUID(int=k + 1)}"
        rows.append({"id": uid, "task_name": task, "audio": {"bytes": buffer.getvalue(), "path": f"{uid}.wav"},
                     "question": question, **{f"choice_{x}": c for x, c in zip("abcd", choices)},
                     "answer_gt": answer, "category": category, "sub-category": sub, "sub-sub-category": subsub,
                     "linguistics_sub_discipline": subsub if sub == "Linguistics" else "None"})
    text = pa.string()
    schema = pa.schema([("id", text), ("task_name", text),
                        ("audio", pa.struct([("bytes", pa.binary()), ("path", text)])), ("question", text),
                        *((f"choice_{x}", text) for x in "abcd"), ("answer_gt", text), ("category", text),
                        ("sub-category", text), ("sub-sub-category", text), ("linguistics_sub_discipline", text)])
    (out / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), out / "data" / "train-00000-of-00001.parquet")
    return len(rows)


if __name__ == "__main__":
    write_sample("MMSU", Path(__file__).resolve().parent, make)
