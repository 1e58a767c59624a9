"""Generate ``sample_data`` here: a SYNTHETIC stand-in for GTZAN (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/gtzan/make_sample.py

Laid out as ``TwinkStart/GTZAN`` is taken to publish it (assumed: see data.py): ``data/test-00000-of-00001.parquet``
with ``audio`` (an ``Audio`` cell) and ``label`` (the genre's name, a string). Each clip is a short melody with the
genre's name said over it, so a cascade can be right.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import melody, mix, said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [("jazz", [60, 63, 67, 70]), ("classical", [67, 65, 64, 62]), ("metal", [40, 40, 43, 45])]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(mix(melody(notes), said_whole(f"This is {name} music."))),
                       "path": f"{name}.000{k}0.wav"}, "label": name}
            for k, (name, notes) in enumerate(ITEMS)]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("GTZAN", Path(__file__).resolve().parent, make)
