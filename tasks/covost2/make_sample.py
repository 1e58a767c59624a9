"""Generate ``sample_data`` here: a SYNTHETIC stand-in for CoVoST 2's test sets (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/covost2/make_sample.py

Laid out as ``fixie-ai/covost2`` publishes them: ``<config>/test-00000-of-00001.parquet`` with ``client_id``,
``file``, ``audio`` (a Hugging Face ``Audio`` cell), ``sentence``, ``translation``, ``id``, for English to Chinese
(``en_zh-CN``), English to Japanese (``en_ja``) and Chinese to English (``zh-CN_en``).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, wav_bytes, write_audio_parquet, write_sample

ITEMS = {  # config: (espeak-ng voice, [(source sentence, reference translation)])
    "en_zh-CN": ("en", [("The weather is nice today.", "今天天气很好。"), ("I like green tea.", "我喜欢绿茶。")]),
    "en_ja": ("en", [("The weather is nice today.", "今日はいい天気です。")]),
    "zh-CN_en": ("cmn", [("我喜欢绿茶。", "I like green tea.")]),
}


def make(out: Path) -> int:
    count = 0
    for config, (voice, pairs) in ITEMS.items():
        rows = []
        for k, (sentence, translation) in enumerate(pairs):
            name = f"common_voice_{config.split('_')[0]}_{1000 + k}.mp3"
            rows.append({"client_id": f"speaker{k}", "file": name,
                         "audio": {"bytes": wav_bytes(said_whole(sentence, voice)), "path": name},
                         "sentence": sentence, "translation": translation, "id": name.removesuffix(".mp3")})
        write_audio_parquet(out / config / "test-00000-of-00001.parquet", rows)
        count += len(rows)
    return count


if __name__ == "__main__":
    write_sample("CoVoST 2", Path(__file__).resolve().parent, make)
