"""Generate ``sample_data`` here: a SYNTHETIC stand-in for WenetSpeech's test sets (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/wenetspeech/make_sample.py

Laid out as ``TwinkStart/WenetSpeech`` publishes them: ``data/test_net-00000-of-00001.parquet`` and
``data/test_meeting-00000-of-00001.parquet``, columns ``sid``, ``confidence``, ``begin_time``, ``end_time``,
``subsets``, ``text``, ``WavPath``, ``audio`` (a Hugging Face ``Audio`` cell). One transcript holds a percentage in
digits and one Latin word (read out and lower-cased by the normalizer before CER).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

SPLITS = {
    "test_net": [("TEST_NET_Y0000000000_0AbCdEfGhIj_S00000", "今天的新闻到此结束"),
                 ("TEST_NET_Y0000000001_0AbCdEfGhIj_S00001", "价格上涨了5%")],
    "test_meeting": [("TEST_MEETING_T0000000001_S00000", "我们下午三点开会讨论OK吗")],
}


def make(out: Path) -> int:
    count = 0
    for split, items in SPLITS.items():
        rows = []
        for k, (sid, text) in enumerate(items):
            clip = said_whole(text, "cmn")
            rows.append({"sid": sid, "confidence": 1, "begin_time": float(k), "end_time": float(k) + len(clip) / 16000,
                         "subsets": ["{TEST_NET}" if split == "test_net" else "{TEST_MEETING}"], "text": text,
                         "WavPath": f"{sid}.wav", "audio": {"bytes": wav_bytes(clip), "path": f"{sid}.wav"}})
        write_audio_parquet(out / "data" / f"{split}-00000-of-00001.parquet", rows)
        count += len(rows)
    return count


if __name__ == "__main__":
    write_sample("WenetSpeech", Path(__file__).resolve().parent, make)
