"""CoVoST 2's test sets as the peer toolkits read them from the Hub: ``fixie-ai/covost2`` (AU-Harness, ultravox),
the ``facebook/covost2`` directions with their Common Voice clips inside the parquet shards
(``facebook/covost2`` itself needs Common Voice downloaded by hand): per direction ``<config>/test-*.parquet``, columns
``id``, ``sentence`` (the source text), ``translation`` (the reference) and ``audio`` (a Hugging Face ``Audio``
cell). The configurations are facebook's, ``en_zh-CN`` and ``zh-CN_en`` among them.

The score is Qwen2-Audio's (``eval_audio/evaluate_st.py``, QwenLM/Qwen2-Audio@595360e): sacrebleu's corpus BLEU of
the answers as given (no normalization), tokenized for the target language: ``zh`` for Chinese, ``ja-mecab`` for
Japanese, ``13a`` for the rest (``lm_eval_audio.metrics.bleu``); the signature goes into the results.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.metrics import bleu
from lm_eval_audio.metrics.speech_to_text import BLEU_PREFIX
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI

SPEC = DataSpec(
    name="CoVoST 2", variable="COVOST2_DATA_DIR", metadata_key="covost2_data_dir", hub="fixie-ai/covost2",
    holds="<config>/test-*.parquet (e.g. en_zh-CN/test-00000-of-00008.parquet)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# task direction -> (Hub configuration, source language, target language): English into German, Chinese and
# Japanese (the cards' en-de and en-zh, and en-ja), and every one of CoVoST 2's 21 directions into English (the cards
# report de, zh, es, fr and it of them: Qwen2-Audio, Qwen2.5-Omni, Step-Audio 2)
INTO_ENGLISH = {"fr": "French", "de": "German", "es": "Spanish", "ca": "Catalan", "it": "Italian", "ru": "Russian",
                "zh": "Chinese", "pt": "Portuguese", "fa": "Persian", "et": "Estonian", "mn": "Mongolian",
                "nl": "Dutch", "tr": "Turkish", "ar": "Arabic", "sv": "Swedish", "lv": "Latvian", "sl": "Slovenian",
                "ta": "Tamil", "ja": "Japanese", "id": "Indonesian", "cy": "Welsh"}
CONFIG_CODE = {"zh": "zh-CN", "sv": "sv-SE"}  # facebook/covost2's configuration names for these two
DIRECTIONS = {
    "en_de": ("en_de", "English", "German"), "en_zh": ("en_zh-CN", "English", "Chinese"),
    "en_ja": ("en_ja", "English", "Japanese"),
    **{f"{code}_en": (f"{CONFIG_CODE.get(code, code)}_en", name, "English") for code, name in INTO_ENGLISH.items()},
}
# Qwen2.5-Omni's and Qwen3-Omni's speech translation instruction, as UltraEval-Audio reproduces them for zh-en,
# en-zh, en-de and de-en (OpenBMB/UltraEval-Audio@9b69da6, registry/prompt/qwen3-omni.yaml and qwen-omni.yaml);
# the same template is filled in for the other directions
PROMPT = "Listen to the provided {source} speech and produce a translation in {target} text."
# The model authors' prompts (--model_args ...,prompts=authors): Qwen3-Omni's README's S2TT prompt (every direction,
# author_prompts.speech_translation); Qwen2.5-Omni's for the four directions UltraEval-Audio reproduces (a
# reproduction, OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/qwen-omni.yaml, not the authors' own file).
# Qwen2-Audio's CoVoST 2 prompt is in its OSS covost2_eval.jsonl only, which could not be read: none known.
QWEN2_5_OMNI_DIRECTIONS = ("en_de", "de_en", "en_zh", "zh_en")
QWEN2_5_OMNI_SOURCE = "OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/qwen-omni.yaml (a reproduction)"


def authors_prompts(direction: str) -> dict:
    _, source_language, target_language = DIRECTIONS[direction]
    out = author_prompts.speech_translation(source_language, target_language)
    if direction in QWEN2_5_OMNI_DIRECTIONS:
        out[QWEN2_5_OMNI] = Published(PROMPT.format(source=source_language, target=target_language),
                                        QWEN2_5_OMNI_SOURCE)
    return out


def scoring(direction: str) -> str:
    return BLEU_PREFIX + bleu.tokenizer_for(direction.split("_")[1])


def load_docs(direction: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    if direction not in DIRECTIONS:
        raise speech_sets.SpeechDataError(f"CoVoST 2 has no task direction {direction!r}: give one of "
                                          f"{', '.join(DIRECTIONS)}")
    config, source_language, target_language = DIRECTIONS[direction]
    label = f"CoVoST 2 {direction}" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, f"{config}/test-*.parquet", label, notes)
    default = author_prompts.instruction(notes, label, metadata, authors_prompts(direction), "CoVoST 2",
                                        PROMPT.format(source=source_language, target=target_language))
    instruction = speech_sets.asked(notes, label, metadata, default, scoring(direction))
    return speech_sets.parquet_docs(shards, "translation", "id", label, scoring(direction), instruction, notes,
                                    extra_columns=("sentence",), language=direction.split("_")[0])
