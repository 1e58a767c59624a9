"""Generate ``sample_data`` here: a SYNTHETIC stand-in for AISHELL-1's test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/aishell1/make_sample.py

Laid out as ``TwinkStart/AISHELL-1`` publishes it: ``data/test-00000-of-00001.parquet`` with ``audio`` (a Hugging
Face ``Audio`` cell: ``bytes``, ``path``) and ``text`` (the transcript, without spaces, as AISHELL's are once
joined). One transcript holds a number in digits (read out by the normalizer before CER).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

TEXTS = [("BAC009S0764W0121", "甚至出现交易几乎停滞的情况"), ("BAC009S0764W0122", "一二线城市虽然也处于调整中"),
         ("BAC009S0764W0123", "他买了3套房子")]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(text, "cmn")), "path": f"{uid}.wav"}, "text": text}
            for uid, text in TEXTS]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("AISHELL-1", Path(__file__).resolve().parent, make)
