"""FLEURS's data in either of the layouts ``google/fleurs`` is published in (``split_layouts``), per language:

* the dataset script's (``fleurs.py``): ``data/<lang>/test.tsv`` (no header, tab-separated: ``id``, ``file_name``,
  ``raw_transcription``, ``transcription``, the transcription's characters with ``|`` between words,
  ``num_samples``, ``gender``) beside ``data/<lang>/audio/test.tar.gz`` (the clips, 16 kHz WAV, matched to the rows
  by file name as ``fleurs.py`` matches them); a task fetches its language's transcript and archive only, the
  archive unpacked once into the Hugging Face cache;
* the Hub's parquet conversion of it: ``<lang>/test-*.parquet`` (a conversion to the main branch) or
  ``<lang>/test/*.parquet`` (the ``refs/convert/parquet`` branch, pinned with ``data_revisions``), the columns
  ``fleurs.py``'s features: ``id``, ``num_samples``, ``path``, ``audio``, ``transcription``, ``raw_transcription``,
  ``gender`` (0 male, 1 female, 2 other), ``lang_id``, ``language``, ``lang_group_id``.

The reference is ``transcription`` (the normalized text every toolkit but UltraEval-Audio scores against),
each language scored by the rule of ``RULES`` (README: which and why).
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets, split_layouts
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.benchmarks.split_layouts import SplitLayout
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO

log = logging.getLogger("lm_eval.audio.fleurs")

SPEC = DataSpec(
    name="FLEURS", variable="FLEURS_DATA_DIR", metadata_key="fleurs_data_dir", hub="google/fleurs",
    holds="data/<lang>/test.tsv and data/<lang>/audio/test.tar.gz, or the parquet conversion's <lang>/test-*.parquet",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# fleurs.py's _FLEURS_LANG: the 102 configurations (google/fleurs)
LANGUAGES = (
    "af_za", "am_et", "ar_eg", "as_in", "ast_es", "az_az", "be_by", "bg_bg", "bn_in", "bs_ba", "ca_es", "ceb_ph",
    "ckb_iq", "cmn_hans_cn", "cs_cz", "cy_gb", "da_dk", "de_de", "el_gr", "en_us", "es_419", "et_ee", "fa_ir",
    "ff_sn", "fi_fi", "fil_ph", "fr_fr", "ga_ie", "gl_es", "gu_in", "ha_ng", "he_il", "hi_in", "hr_hr", "hu_hu",
    "hy_am", "id_id", "ig_ng", "is_is", "it_it", "ja_jp", "jv_id", "ka_ge", "kam_ke", "kea_cv", "kk_kz", "km_kh",
    "kn_in", "ko_kr", "ky_kg", "lb_lu", "lg_ug", "ln_cd", "lo_la", "lt_lt", "luo_ke", "lv_lv", "mi_nz", "mk_mk",
    "ml_in", "mn_mn", "mr_in", "ms_my", "mt_mt", "my_mm", "nb_no", "ne_np", "nl_nl", "nso_za", "ny_mw", "oc_fr",
    "om_et", "or_in", "pa_in", "pl_pl", "ps_af", "pt_br", "ro_ro", "ru_ru", "sd_in", "sk_sk", "sl_si", "sn_zw",
    "so_so", "sr_rs", "sv_se", "sw_ke", "ta_in", "te_in", "tg_tj", "th_th", "tr_tr", "uk_ua", "umb_ao", "ur_pk",
    "uz_uz", "vi_vn", "wo_sn", "xh_za", "yo_ng", "yue_hant_hk", "zu_za",
)
# The reference evaluations' rules (Qwen2-Audio's evaluate_asr.py, which the cards' FLEURS zh/en numbers come from)
# for English, Mandarin and Cantonese; Whisper's paper's for the rest: its basic normalizer, scored by characters
# for the languages it scores by CER (Japanese, Thai, Lao, Burmese: written without spaces between words; the list
# as fixie-ai/ultravox@648efe7 takes it from the paper, ultravox/evaluation/string_metrics.py), by words otherwise.
RULES = {"en_us": "whisper_english_basic", "cmn_hans_cn": "cn_tn_chars", "yue_hant_hk": "yue_simplified_chars",
         **{lang: "whisper_basic_chars" for lang in ("ja_jp", "th_th", "lo_la", "my_mm")}}
DEFAULT_RULE = "whisper_basic"
# Kimi-Audio-Evalkit (MoonshotAI/Kimi-Audio-Evalkit@4080c49, data/download_benchmark.py, Fleurs lang_configs): the
# question of Fleurs-zh and of Fleurs-en. Languages it does not run are asked in English, Cantonese in Chinese.
PROMPT_CHINESE, PROMPT_OTHER = "请将这段语音转写成文字。", "Please transcribe this audio."
# Each language's English name, for the authors' prompts that name the language spoken
ENGLISH_NAMES = {
    "af_za": "Afrikaans", "am_et": "Amharic", "ar_eg": "Arabic", "as_in": "Assamese", "ast_es": "Asturian",
    "az_az": "Azerbaijani", "be_by": "Belarusian", "bg_bg": "Bulgarian", "bn_in": "Bengali", "bs_ba": "Bosnian",
    "ca_es": "Catalan", "ceb_ph": "Cebuano", "ckb_iq": "Sorani Kurdish", "cmn_hans_cn": "Chinese", "cs_cz": "Czech",
    "cy_gb": "Welsh", "da_dk": "Danish", "de_de": "German", "el_gr": "Greek", "en_us": "English", "es_419": "Spanish",
    "et_ee": "Estonian", "fa_ir": "Persian", "ff_sn": "Fula", "fi_fi": "Finnish", "fil_ph": "Filipino",
    "fr_fr": "French", "ga_ie": "Irish", "gl_es": "Galician", "gu_in": "Gujarati", "ha_ng": "Hausa", "he_il": "Hebrew",
    "hi_in": "Hindi", "hr_hr": "Croatian", "hu_hu": "Hungarian", "hy_am": "Armenian", "id_id": "Indonesian",
    "ig_ng": "Igbo", "is_is": "Icelandic", "it_it": "Italian", "ja_jp": "Japanese", "jv_id": "Javanese",
    "ka_ge": "Georgian", "kam_ke": "Kamba", "kea_cv": "Kabuverdianu", "kk_kz": "Kazakh", "km_kh": "Khmer",
    "kn_in": "Kannada", "ko_kr": "Korean", "ky_kg": "Kyrgyz", "lb_lu": "Luxembourgish", "lg_ug": "Ganda",
    "ln_cd": "Lingala", "lo_la": "Lao", "lt_lt": "Lithuanian", "luo_ke": "Luo", "lv_lv": "Latvian", "mi_nz": "Maori",
    "mk_mk": "Macedonian", "ml_in": "Malayalam", "mn_mn": "Mongolian", "mr_in": "Marathi", "ms_my": "Malay",
    "mt_mt": "Maltese", "my_mm": "Burmese", "nb_no": "Norwegian", "ne_np": "Nepali", "nl_nl": "Dutch",
    "nso_za": "Northern Sotho", "ny_mw": "Nyanja", "oc_fr": "Occitan", "om_et": "Oromo", "or_in": "Odia",
    "pa_in": "Punjabi", "pl_pl": "Polish", "ps_af": "Pashto", "pt_br": "Portuguese", "ro_ro": "Romanian",
    "ru_ru": "Russian", "sd_in": "Sindhi", "sk_sk": "Slovak", "sl_si": "Slovenian", "sn_zw": "Shona",
    "so_so": "Somali", "sr_rs": "Serbian", "sv_se": "Swedish", "sw_ke": "Swahili", "ta_in": "Tamil",
    "te_in": "Telugu", "tg_tj": "Tajik", "th_th": "Thai", "tr_tr": "Turkish", "uk_ua": "Ukrainian",
    "umb_ao": "Umbundu", "ur_pk": "Urdu", "uz_uz": "Uzbek", "vi_vn": "Vietnamese", "wo_sn": "Wolof",
    "xh_za": "Xhosa", "yo_ng": "Yoruba", "yue_hant_hk": "Cantonese", "zu_za": "Zulu",
}
# Kimi-Audio-Evalkit's Fleurs-zh and Fleurs-en questions: MoonshotAI/Kimi-Audio-Evalkit@4080c49
# data/download_benchmark.py:335-336 (the same as this task's default)
KIMI_SOURCE = "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:{line} (Fleurs lang_configs)"
KIMI_LINES = {"cmn_hans_cn": 335, "en_us": 336}
# fleurs.py's transcript columns (its _get_data) and its features (its _info), as the parquet conversion holds them
COLUMNS = ("id", "file_name", "raw_transcription", "transcription", "characters", "num_samples", "gender")
LAYOUT = SplitLayout(
    transcript="data/{language}/test.tsv", archive="data/{language}/audio/test.tar.gz",
    parquet=("{language}/test-*.parquet", "{language}/test/*.parquet"), columns=COLUMNS, file_column="file_name",
    parquet_columns=("id", "raw_transcription", "transcription", "gender"))
GENDERS = ("MALE", "FEMALE", "OTHER")  # fleurs.py's gender_to_id: the conversion's gender numbers


def rule(language: str, metadata: dict | None = None) -> str:
    if language == "cmn_hans_cn" and metadata:
        return speech_sets.chinese_cer(metadata)
    return RULES.get(language, DEFAULT_RULE)


def default_prompt(language: str) -> str:
    return PROMPT_CHINESE if language in ("cmn_hans_cn", "yue_hant_hk") else PROMPT_OTHER


def authors_prompts(language: str) -> dict:
    """What each family's authors published for this language's FLEURS test (``author_prompts``): their speech
    recognition prompts for the language, and Kimi-Audio-Evalkit's FLEURS questions."""
    iso = {"cmn_hans_cn": "zh", "yue_hant_hk": "yue"}.get(language, language.split("_")[0])
    out = author_prompts.speech_recognition(iso, ENGLISH_NAMES[language])
    if language in KIMI_LINES:
        out[KIMI_AUDIO] = Published(default_prompt(language), KIMI_SOURCE.format(line=KIMI_LINES[language]))
    return out


def gender(value) -> str:
    """A row's gender as the transcript writes it (the conversion's class number read as its name)."""
    return GENDERS[value] if isinstance(value, int) and 0 <= value < len(GENDERS) else str(value)


def load_docs(language: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    if language not in LANGUAGES:
        raise speech_sets.SpeechDataError(f"FLEURS has no language {language!r}: give one of fleurs.py's codes "
                                          "(en_us, cmn_hans_cn, ...)")
    label = f"FLEURS {language}" + (" sample" if sample else "")
    scoring = rule(language, metadata)
    default = author_prompts.instruction(notes, label, metadata, authors_prompts(language), "FLEURS",
                                        default_prompt(language))
    instruction = speech_sets.asked(notes, label, metadata, default, scoring)
    split = split_layouts.read_split(SPEC, LAYOUT, language, metadata, sample, label, notes)
    docs = []
    for row in split.rows:
        reference = row["transcription"]
        if not isinstance(reference, str) or not reference.strip():
            split.invalid.add(row["line"], row["clip_name"], "empty transcription")
            continue
        docs.append(speech_sets.document(
            len(docs), row["clip_name"], reference, scoring, instruction, **split_layouts.clip_fields(row),
            language=language, sentence_id=str(row["id"]), raw_transcription=row["raw_transcription"],
            gender=gender(row["gender"])))
    split.invalid.warn(split.read)
    return speech_sets.checked(docs, label, notes)
