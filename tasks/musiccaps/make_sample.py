"""Generate ``sample_data`` here: a SYNTHETIC stand-in for MusicCaps's captioning test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/musiccaps/make_sample.py

Laid out as this task reads CLAPv2/MusicCaps (an ASSUMED layout, not confirmed on the Hub: README.md): ``data/test-00000-of-00001.parquet`` with ``audio`` (an ``Audio`` cell) and
``raw_text`` (a list of 1 reference caption(s), as the source has). Each clip SAYS a caption (espeak-ng), so a
cascade that transcribes it answers close to the references.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [('A slow piano melody in a major key.', ['a slow and calm piano melody in a major key with no other instruments']),
         ('Fast drums and an electric guitar.', ['an energetic rock song with fast drums and a distorted electric guitar']),
         ('A violin plays a sad tune.', ['a solo violin plays a slow and sad tune'])]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(spoken)), "path": f"clip_{k}.wav"}, "raw_text": refs}
            for k, (spoken, refs) in enumerate(ITEMS)]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("MusicCaps captioning", Path(__file__).resolve().parent, make)
