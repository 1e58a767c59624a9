"""Generate ``sample_data`` here: a SYNTHETIC stand-in for VoxPopuli's English test set (run once; outputs are
committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/voxpopuli/make_sample.py

Laid out as ``facebook/voxpopuli`` publishes it: ``data/en/asr_test.tsv`` (header ``id``, ``raw_text``,
``normalized_text``, ``speaker_id``, ``gender``, ``is_gold_transcript``, ``accent``: the columns voxpopuli.py
reads, by name) beside
``data/en/test/test_part_0.tar.gz`` holding ``test_part_0/<id>.wav``.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_sample

ROWS = [("20180612-0900-PLENARY-3-en_20180612-09:30:00_1", "The debate is closed.", "the debate is closed"),
        ("20180612-0900-PLENARY-3-en_20180612-09:31:10_4", "We vote on Thursday at 12 noon.",
         "we vote on thursday at twelve noon")]
HEADER = ("id", "raw_text", "normalized_text", "speaker_id", "gender", "is_gold_transcript", "accent")


def make(out: Path) -> int:
    folder = out / "data" / "en"
    (folder / "test").mkdir(parents=True)
    lines = ["\t".join(HEADER)]
    with tarfile.open(folder / "test" / "test_part_0.tar.gz", "w:gz") as tar:
        for uid, raw, normalized in ROWS:
            data = wav_bytes(said_whole(raw))
            info = tarfile.TarInfo(f"test_part_0/{uid}.wav")
            info.size, info.mtime = len(data), 0
            tar.addfile(info, io.BytesIO(data))
            lines.append("\t".join([uid, raw, normalized, "96", "female", "True", "None"]))
    (folder / "asr_test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(ROWS)


if __name__ == "__main__":
    write_sample("VoxPopuli", Path(__file__).resolve().parent, make)
