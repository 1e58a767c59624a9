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

import io
import tarfile
from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_sample

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
    count = 0
    for language, (voice, rows) in ITEMS.items():
        folder = out / "data" / language
        (folder / "audio").mkdir(parents=True)
        lines = []
        with tarfile.open(folder / "audio" / "test.tar.gz", "w:gz") as tar:
            for k, (sentence_id, raw, text, gender) in enumerate(rows):
                samples = said_whole(raw, voice)
                buffer = io.BytesIO(wav_bytes(samples))
                name = f"{sentence_id}{k:04d}.wav"
                info = tarfile.TarInfo(f"test/{name}")
                info.size, info.mtime = len(buffer.getvalue()), 0
                buffer.seek(0)
                tar.addfile(info, buffer)
                characters = " | ".join(" ".join(word) for word in text.split()) + " |"
                lines.append("\t".join([str(sentence_id), name, raw, text, characters, str(len(samples)), gender]))
                count += 1
        (folder / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


if __name__ == "__main__":
    write_sample("FLEURS S2TT", Path(__file__).resolve().parent, make)
