"""Generate ``sample_data`` here: a SYNTHETIC stand-in for VocalSound's test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/vocalsound/make_sample.py

Laid out as ``lmms-lab-audio/vocalsound`` publishes it: ``data/test-00000-of-00001.parquet`` with ``audio`` (an
``Audio`` cell), ``spk_id`` (``f`` or ``m`` and a number), ``answer`` (the class) and ``age_group`` (1-3). The
clips say the class's name (espeak-ng cannot cough), so a cascade can be right.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [("Laughter", "f0003", 1), ("Cough", "m0112", 2), ("Throat clearing", "f0420", 3)]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(f"A {name.lower()}.")), "path": f"{speaker}_0_{k}.wav"},
             "spk_id": speaker, "answer": name, "age_group": age} for k, (name, speaker, age) in enumerate(ITEMS)]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("VocalSound", Path(__file__).resolve().parent, make)
