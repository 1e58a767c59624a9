"""Generate ``sample_data`` here: a SYNTHETIC stand-in for AISHELL-2's iOS test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/aishell2/make_sample.py

Laid out as AISHELL's TEST&DEV release is once ``iOS/test.tar.gz`` is extracted (what Kimi-Audio-Evalkit reads):
``AISHELL-DEV-TEST-SET/iOS/test/wav.scp`` and ``trans.txt`` (``<utterance>\\t<value>``) and the clips under
``wav/<speaker>/``. One transcript holds a number in digits (read out by the normalizer before CER).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

TEXTS = [("IT0011W0001", "换一首歌"), ("IT0011W0002", "打开客厅的灯"), ("IT0012W0001", "明天早上7点叫我起床")]


def make(out: Path) -> int:
    test = out / "AISHELL-DEV-TEST-SET" / "iOS" / "test"
    scp, trans = [], []
    for uid, text in TEXTS:
        clip = f"wav/{uid[1:6]}/{uid}.wav"
        (test / clip).parent.mkdir(parents=True, exist_ok=True)
        write_audio(said_whole(text, "cmn"), test / clip)
        scp.append(f"{uid}\t{clip}\n")
        trans.append(f"{uid}\t{text}\n")
    (test / "wav.scp").write_text("".join(scp), encoding="utf-8")
    (test / "trans.txt").write_text("".join(trans), encoding="utf-8")
    return len(TEXTS)


if __name__ == "__main__":
    write_sample("AISHELL-2", Path(__file__).resolve().parent, make)
