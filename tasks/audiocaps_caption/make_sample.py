"""Generate ``sample_data`` here: a SYNTHETIC stand-in for AudioCaps's captioning test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/audiocaps_caption/make_sample.py

Laid out as TwinkStart/AudioCaps publishes it (its dataset card, README.md at 7405ddc: split ``test``, files
``data/test-*``, columns ``audiocap_id`` int64, ``youtube_id`` string, ``start_time`` int64, ``caption`` string,
``WavPath`` string, ``audio`` (an ``Audio`` cell)): ONE caption a row, a clip repeated on as many rows as it has
captions, here ``data/test-00000-of-00001.parquet``. The first clip has two rows, as the Hub copy's clips have five.
Each clip SAYS a caption (espeak-ng), so a cascade that transcribes it answers close to the references.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

# (audiocap_id, youtube_id, start_time, said, caption)
ROWS = [(1, "synthetic01", 20, "A man speaks while birds chirp.", "a man speaks as birds chirp"),
        (2, "synthetic01", 20, "A man speaks while birds chirp.", "a man is talking and birds are singing"),
        (3, "synthetic02", 0, "An engine idles and then revs.", "an engine idles and then revs up")]


def make(out: Path) -> int:
    rows = [{"audiocap_id": cap_id, "youtube_id": ytid, "start_time": start, "caption": caption,
             "WavPath": f"{ytid}_{start}.wav", "audio": {"bytes": wav_bytes(said_whole(said)), "path": f"{ytid}.wav"}}
            for cap_id, ytid, start, said, caption in ROWS]
    write_audio_parquet(out / "data" / "test-00000-of-00001.parquet", rows)
    return len(rows)


if __name__ == "__main__":
    write_sample("AudioCaps captioning", Path(__file__).resolve().parent, make)
