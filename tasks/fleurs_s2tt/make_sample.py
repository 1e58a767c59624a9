"""Generate ``sample_data`` here: a SYNTHETIC stand-in for FLEURS's parallel test splits (run once; outputs are
committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/fleurs_s2tt/make_sample.py

Laid out exactly as ``google/fleurs`` publishes a language (as ``tasks/fleurs/sample_data``): ``data/<lang>/test.tsv``
(no header, tab-separated: ``id``, ``file_name``, ``raw_transcription``, ``transcription``, the characters with
``|`` between words, ``num_samples``, ``gender``) beside ``data/<lang>/audio/test.tar.gz`` holding
``test/<file_name>``, for English, Mandarin and French, the same sentence ``id`` in each language the same sentence
(FLEURS is n-way parallel). Sentence 1002 is read by two English speakers (two rows, one id); sentence 1003 is in
the English split only (left out of the directions into the other two, as a sentence a language lacks).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import write_sample, write_transcript_splits

ITEMS = {  # language: (espeak-ng voice, [(sentence id, raw transcription, transcription, gender)])
    "en_us": ("en", [
        (1001, "The weather is nice today.", "the weather is nice today", "FEMALE"),
        (1002, "I like green tea.", "i like green tea", "MALE"),
        (1002, "I like green tea.", "i like green tea", "FEMALE"),
        (1003, "Only English has this sentence.", "only english has this sentence", "MALE"),
    ]),
    "cmn_hans_cn": ("cmn", [
        (1001, "今天天气很好。", "今 天 天 气 很 好", "MALE"),
        (1002, "我喜欢绿茶。", "我 喜 欢 绿 茶", "FEMALE"),
    ]),
    "fr_fr": ("fr", [
        (1001, "Il fait beau aujourd'hui.", "il fait beau aujourd'hui", "FEMALE"),
        (1002, "J'aime le thé vert.", "j'aime le thé vert", "MALE"),
    ]),
}


def make(out: Path) -> int:
    return write_transcript_splits(out, ITEMS)


if __name__ == "__main__":
    write_sample("FLEURS S2TT", Path(__file__).resolve().parent, make)
