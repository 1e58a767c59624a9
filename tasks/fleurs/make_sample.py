"""Generate ``sample_data`` here: a SYNTHETIC stand-in for FLEURS (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/fleurs/make_sample.py

Laid out exactly as ``google/fleurs`` publishes a language: ``data/<lang>/test.tsv`` (no header, tab-separated:
``id``, ``file_name``, ``raw_transcription``, ``transcription``, the characters with ``|`` between words,
``num_samples``, ``gender``) beside ``data/<lang>/audio/test.tar.gz`` holding ``test/<file_name>``, for English,
Mandarin (a number written in digits, read out by the normalizer) and Japanese (scored by characters). One row's
raw transcription begins with a quotation mark (read as text, as fleurs.py reads it); one English sentence is read
by two speakers (the same ``id``, two files).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import write_sample, write_transcript_splits

ITEMS = {  # language: (espeak-ng voice, [(sentence id, raw transcription, transcription, gender)])
    "en_us": ("en", [
        (1001, "The cat sat on the mat.", "the cat sat on the mat", "FEMALE"),
        (1002, '"Good morning," she said to everyone.', "good morning she said to everyone", "MALE"),
        (1002, '"Good morning," she said to everyone.', "good morning she said to everyone", "FEMALE"),
    ]),
    "cmn_hans_cn": ("cmn", [
        (2001, "今天天气很好。", "今 天 天 气 很 好", "MALE"),
        (2002, "我买了3个苹果。", "我 买 了 3 个 苹 果", "FEMALE"),
    ]),
    "ja_jp": ("ja", [
        (3001, "今日はいい天気です。", "今日はいい天気です", "FEMALE"),
    ]),
}


def make(out: Path) -> int:
    return write_transcript_splits(out, ITEMS)


if __name__ == "__main__":
    write_sample("FLEURS", Path(__file__).resolve().parent, make)
