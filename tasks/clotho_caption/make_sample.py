"""Generate ``sample_data`` here: a SYNTHETIC stand-in for Clotho's captioning test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/clotho_caption/make_sample.py

Laid out as mteb/Clotho's card describes it, the columns read: ``data/test-00000-of-00001.parquet`` with ``audio``
(an ``Audio`` cell) and ``raw_text`` (a list of the 5 captions). Each clip SAYS a caption (espeak-ng), so a
cascade that transcribes it answers close to the references.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [('A dog barks twice and then a car passes by.', ['a dog barks twice near a road', 'a dog is barking while a car drives past', 'two barks from a dog and then a passing car', 'a car passes after a dog barks', 'a dog barks and a vehicle goes by']),
         ('Rain falls on a metal roof.', ['rain is falling on a metal roof', 'heavy rain drums on a tin roof', 'rain pours down onto a roof', 'raindrops hit a metal surface steadily', 'it rains hard on a roof']),
         ('A bell rings in a quiet church.', ['a bell rings inside a quiet church', 'a church bell is ringing', 'a bell tolls several times', 'a single bell rings slowly', 'a bell rings in a large hall'])]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(spoken)), "path": f"clip_{k}.wav"}, "raw_text": refs}
            for k, (spoken, refs) in enumerate(ITEMS)]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("Clotho captioning", Path(__file__).resolve().parent, make)
