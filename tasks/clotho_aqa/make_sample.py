"""Generate ``sample_data`` here: a SYNTHETIC stand-in for Clotho-AQA's test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/clotho_aqa/make_sample.py

Laid out as ``lmms-lab-audio/ClothoAQA`` publishes it: ``clotho_aqa/clotho_aqa_test_filtered-00000-of-00001.parquet``
with ``audio`` (an ``Audio`` cell), ``question`` and ``answer``. The clips say what the question asks about (espeak-ng
cannot bark), so a cascade can be right; two answers are yes/no, as most of Clotho-AQA's are.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [("A dog is barking in the park.", "Is a dog barking?", "yes"),
         ("Rain is falling on the roof.", "What is falling on the roof?", "rain"),
         ("Birds are singing near the river.", "Is someone playing a piano?", "no")]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(said)), "path": f"clip_{k}.wav"}, "question": question,
             "answer": answer} for k, (said, question, answer) in enumerate(ITEMS)]
    write_audio_parquet(out / "clotho_aqa" / "clotho_aqa_test_filtered-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("Clotho-AQA", Path(__file__).resolve().parent, make)
