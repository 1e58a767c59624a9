"""Generate ``sample_data`` here: a SYNTHETIC stand-in for AudioCaps's captioning test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/audiocaps_caption/make_sample.py

Laid out as TwinkStart/AudioCaps is read: ``data/test-00000-of-00001.parquet`` with ``audio`` (an ``Audio`` cell) and
``caption`` (a list of 5 reference caption(s), as the source has). Each clip SAYS a caption (espeak-ng), so a
cascade that transcribes it answers close to the references.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = [('A man speaks while birds chirp.', ['a man speaks as birds chirp', 'a man is talking and birds are singing', 'birds chirp in the background while a man talks', 'a male voice speaks over chirping birds', 'a man speaking with birds chirping']),
         ('An engine idles and then revs.', ['an engine idles and then revs up', 'a vehicle engine runs and accelerates', 'a motor idles before revving loudly', 'an engine is running and revving', 'a car engine idles then revs']),
         ('A baby cries and a woman speaks.', ['a baby cries while a woman talks', 'a woman speaks as an infant cries', 'a baby is crying and a woman is speaking', 'an infant cries and a female voice speaks', 'a woman talking over a crying baby'])]


def make(out: Path) -> int:
    rows = [{"audio": {"bytes": wav_bytes(said_whole(spoken)), "path": f"clip_{k}.wav"}, "caption": refs}
            for k, (spoken, refs) in enumerate(ITEMS)]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("AudioCaps captioning", Path(__file__).resolve().parent, make)
