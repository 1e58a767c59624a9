"""FLEURS's data in its official layout: the Hub dataset ``google/fleurs``, per language ``data/<lang>/test.tsv``
(no header, tab-separated: ``id``, ``file_name``, ``raw_transcription``, ``transcription``, the transcription's
characters with ``|`` between words, ``num_samples``, ``gender``) beside ``data/<lang>/audio/test.tar.gz`` (the
clips, 16 kHz WAV, matched to the rows by file name as ``fleurs.py`` matches them).

A task fetches its language's transcript and archive only; the archive is unpacked once into the Hugging Face
cache. The reference is ``transcription`` (the normalized text every toolkit but UltraEval-Audio scores against),
each language scored by the rule of ``RULES`` (README: which and why).
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.benchmarks import author_prompts, speech_sets
from lm_eval_audio.benchmarks.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

log = logging.getLogger("lm_eval.audio.fleurs")

SPEC = DataSpec(
    name="FLEURS", variable="FLEURS_DATA_DIR", metadata_key="fleurs_data_dir", hub="google/fleurs",
    holds="data/<lang>/test.tsv and data/<lang>/audio/test.tar.gz",
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
COLUMNS = ("id", "file_name", "raw_transcription", "transcription", "characters", "num_samples", "gender")


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
        out["Kimi-Audio"] = Published(default_prompt(language), KIMI_SOURCE.format(line=KIMI_LINES[language]))
    return out


def read_transcript(path: Path, invalid: LeftOut) -> list[dict]:
    """The rows of a ``test.tsv``, split on tabs as ``fleurs.py`` splits them (a row beginning with a quotation mark
    is text, not a quoted field); a row without its seven fields is left out and named."""
    rows = []
    # lines end at "\n" only, as fleurs.py's readlines() ends them (str.splitlines would also break at \x1c, \u2028)
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        fields = line.strip().split("\t")
        if len(fields) != len(COLUMNS):
            invalid.add(number, line[:40], f"{len(fields)} tab-separated fields, not {len(COLUMNS)}")
            continue
        rows.append({**dict(zip(COLUMNS, fields)), "line": number})
    return rows


def load_docs(language: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    if language not in LANGUAGES:
        raise speech_sets.SpeechDataError(f"FLEURS has no language {language!r}: give one of fleurs.py's codes "
                                          "(en_us, cmn_hans_cn, ...)")
    label = f"FLEURS {language}" + (" sample" if sample else "")
    root, snapshot = speech_sets.source(SPEC, metadata, sample)
    tsv, = speech_sets.files(SPEC, root, snapshot, f"data/{language}/test.tsv", label,
                             transcript=True)
    archive = root / f"data/{language}/audio/test.tar.gz"  # fetched (and checked) as it is unpacked
    speech_sets.record(notes, label, root, snapshot, [tsv])
    scoring = rule(language, metadata)
    default = author_prompts.instruction(notes, label, metadata, authors_prompts(language), "FLEURS",
                                        default_prompt(language))
    instruction = speech_sets.asked(notes, label, metadata, default, scoring)
    clips = speech_sets.archive_clips(snapshot, archive, f"{language}-test", label)
    invalid = LeftOut(label, "line", notes)
    rows: dict[str, dict] = {}
    for row in read_transcript(tsv, invalid):
        if row["file_name"] in rows:  # fleurs.py keys its rows by file name: the last one stands
            notes.note("repeated_rows", f"{label}/{row['file_name']}", "the last row of this file name is used")
        rows[row["file_name"]] = row
    docs = []
    for row in rows.values():
        if not row["transcription"].strip():
            invalid.add(row["line"], row["file_name"], "empty transcription")
            continue
        if "/" in row["file_name"] or "\\" in row["file_name"] or row["file_name"] in ("", ".", ".."):
            invalid.add(row["line"], row["file_name"], "file_name is not a clip's name (it holds a path): refused")
            continue
        clip = clips / row["file_name"]
        problem = "" if clip.is_file() else f"missing audio file: {row['file_name']} is not in {archive.name}"
        docs.append(speech_sets.document(
            len(docs), row["file_name"], row["transcription"], scoring, instruction, audio_path=str(clip),
            audio_problem=problem or speech_sets.clip_problem(clip), language=language, sentence_id=row["id"],
            raw_transcription=row["raw_transcription"], gender=row["gender"]))
    invalid.warn(tsv)
    return speech_sets.checked(docs, label, notes)
