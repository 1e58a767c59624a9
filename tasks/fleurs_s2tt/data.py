"""FLEURS speech translation: a source language's test recordings, each translated into a target language whose
reference is the target's ``raw_transcription`` of the same sentence. FLEURS is n-way parallel (FLoRes-101
sentences read in every language): a pair is the same ``id`` in the two languages' test splits, as
sarapapi/hearing2translate@bf9e23e manifests/fleurs/generate.py:83-99 pairs them (every source row whose ``id`` the
target holds, the target's ``raw_transcription`` the reference; the rows of ids the target lacks left out).

The data is ``google/fleurs`` in either of its layouts, read as ``tasks/fleurs`` reads it (``split_layouts``): the
source's transcript and archive (or its parquet shards), and the target's transcript only (or its shards, where
only the parquet conversion is there: text and clips are in the same files).

The score is Qwen2-Audio's (``eval_audio/evaluate_st.py``, QwenLM/Qwen2-Audio@595360e), as ``tasks/covost2``
scores: sacrebleu's corpus BLEU of the answers as given, tokenized for the target (``lm_eval_audio.metrics.bleu``:
``zh`` for Chinese, and for Cantonese, written in Chinese characters too; ``ja-mecab`` for Japanese; ``13a`` for
the rest); the signature goes into the results.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets, split_layouts
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.benchmarks.split_layouts import SplitLayout
from lm_eval_audio.metrics import bleu
from lm_eval_audio.metrics.speech_to_text import BLEU_PREFIX

log = logging.getLogger("lm_eval.audio.fleurs_s2tt")

# The same data (and local copy) as tasks/fleurs: a folder in google/fleurs's layout serves both.
SPEC = DataSpec(
    name="FLEURS", variable="FLEURS_DATA_DIR", metadata_key="fleurs_data_dir", hub="google/fleurs",
    holds="data/<lang>/test.tsv and data/<lang>/audio/test.tar.gz, or the parquet conversion's <lang>/test-*.parquet",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# fleurs.py's transcript columns and features (see tasks/fleurs/data.py, which reads the same files)
LAYOUT = SplitLayout(
    transcript="data/{language}/test.tsv", archive="data/{language}/audio/test.tar.gz",
    parquet=("{language}/test-*.parquet", "{language}/test/*.parquet"),
    columns=("id", "file_name", "raw_transcription", "transcription", "characters", "num_samples", "gender"),
    file_column="file_name", parquet_columns=("id", "raw_transcription", "transcription", "gender"))
# Qwen3-Omni's S2TT languages (arXiv 2509.17765, Table 6 note c: "translations across 15 languages"; the numbers in
# QwenLM/Qwen3-Omni@0309c201 README.md, rows Fleurs-en2xx, -xx2en, -zh2xx, -xx2zh): task code -> (FLEURS
# configuration, English name)
LANGUAGES = {
    "en": ("en_us", "English"), "zh": ("cmn_hans_cn", "Chinese"), "yue": ("yue_hant_hk", "Cantonese"),
    "ar": ("ar_eg", "Arabic"), "fr": ("fr_fr", "French"), "de": ("de_de", "German"), "id": ("id_id", "Indonesian"),
    "it": ("it_it", "Italian"), "ja": ("ja_jp", "Japanese"), "ko": ("ko_kr", "Korean"), "pt": ("pt_br", "Portuguese"),
    "ru": ("ru_ru", "Russian"), "es": ("es_419", "Spanish"), "th": ("th_th", "Thai"), "vi": ("vi_vn", "Vietnamese"),
}
# Every direction of the four the card reports: English into the 14 others and they into English (en2xx, xx2en),
# Chinese into the 14 others and they into Chinese (zh2xx, xx2zh); zh->en and en->zh belong to two of them
DIRECTIONS = tuple(dict.fromkeys(
    [f"en_{c}" for c in LANGUAGES if c != "en"] + [f"{c}_en" for c in LANGUAGES if c != "en"]
    + [f"zh_{c}" for c in LANGUAGES if c != "zh"] + [f"{c}_zh" for c in LANGUAGES if c != "zh"]))
# Cantonese is written in (traditional) Chinese characters, without spaces: sacrebleu's zh tokenizer splits them
TOKENIZER_LANGUAGE = {"yue": "zh"}
# Qwen3-Omni's S2TT prompt (author_prompts.QWEN3_OMNI_S2TT: QwenLM/Qwen3-Omni@0309c201 README.md, 'Setting for
# Evaluation', Default Prompts), the instruction of the card whose numbers these tasks reproduce
PROMPT = author_prompts.QWEN3_OMNI_S2TT


def scoring(direction: str) -> str:
    target = direction.split("_")[1]
    return BLEU_PREFIX + bleu.tokenizer_for(TOKENIZER_LANGUAGE.get(target, target))


def load_docs(direction: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    if direction not in DIRECTIONS:
        raise speech_sets.SpeechDataError(f"FLEURS S2TT has no task direction {direction!r}: give one of "
                                          f"{', '.join(DIRECTIONS)}")
    (source, source_name), (target, target_name) = (LANGUAGES[c] for c in direction.split("_"))
    label = f"FLEURS S2TT {direction}" + (" sample" if sample else "")
    default = author_prompts.instruction(notes, label, metadata,
                                         author_prompts.speech_translation(source_name, target_name), "FLEURS S2TT",
                                         PROMPT.format(source=source_name, target=target_name))
    instruction = speech_sets.asked(notes, label, metadata, default, scoring(direction))
    references = target_texts(target, metadata, sample, f"{label} references", notes)
    split = split_layouts.read_split(SPEC, LAYOUT, source, metadata, sample, label, notes)
    docs, unpaired = [], []
    for row in split.rows:
        sentence = str(row["id"])
        if sentence not in references:
            unpaired.append(sentence)
            continue
        docs.append(speech_sets.document(
            len(docs), row["clip_name"], references[sentence], scoring(direction), instruction,
            **split_layouts.clip_fields(row), language=direction.split("_")[0], sentence_id=sentence,
            source_text=row["raw_transcription"], source_language=source, target_language=target))
    if unpaired:
        notes.note("unpaired_rows", label, {"rows": len(unpaired), "first_ids": sorted(set(unpaired))[:10],
                                            "why": f"no {target} test row has their id: not part of this direction"})
        log.info("%s: %d source row(s) of %d sentence id(s) the %s test split lacks are not part of this direction",
                 label, len(unpaired), len(set(unpaired)), target)
    split.invalid.warn(split.read)
    return speech_sets.checked(docs, label, notes)


def target_texts(language: str, metadata: dict, sample: bool, label: str, notes: DataNotes) -> dict[str, str]:
    """Sentence id -> the target language's ``raw_transcription`` (its clips not fetched); where an id's rows (its
    speakers) write it differently, the last row's stands, as a dict built over the rows keeps it, and it is noted."""
    split = split_layouts.read_split(SPEC, LAYOUT, language, metadata, sample, label, notes, clips=False)
    texts: dict[str, str] = {}
    for row in split.rows:
        text, sentence = row["raw_transcription"], str(row["id"])
        if not isinstance(text, str) or not text.strip():
            split.invalid.add(row["line"], row["clip_name"], "empty raw_transcription: no reference")
            continue
        if texts.get(sentence, text) != text:
            notes.note("differing_references", f"{label}/{sentence}", "the rows of this id differ; the last is used")
        texts[sentence] = text
    split.invalid.warn(split.read)
    return texts
