"""``cascade``: a recognizer used outside its language (the default English-only Whisper on Chinese speech) is named,
in one warning per run and in the results (``lm_eval_audio_model.recognizer_outside_its_language``), and the run goes
on. The recognizer's languages come from its model (``.en``, a transformers checkpoint's ``is_multilingual``) and
``asr_language=``; a document's from its ``language`` field. faster-whisper's model is a stand-in here (no weights
load); the LLM is a scripted endpoint."""

from __future__ import annotations

import json
import logging
import re
import shutil
from types import SimpleNamespace

import pytest
from lm_eval.api.instance import Instance
from scripted_judge import SERVED_MODELS, ScriptedJudge

from conftest import results_json, run_cli

GREEDY = {"until": [], "max_gen_toks": 8, "do_sample": False}
OUTSIDE = "recognizer_outside_its_language"


class _StandInWhisper:
    """faster_whisper.WhisperModel without weights: every clip is heard as the same words."""

    def __init__(self, model, device="cpu", compute_type="int8"):
        self.model = model

    def transcribe(self, clip, **options):
        return [SimpleNamespace(text=" some words ")], None


@pytest.fixture
def stand_in_whisper(monkeypatch):
    import faster_whisper

    monkeypatch.setattr(faster_whisper, "WhisperModel", _StandInWhisper)


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def cascade_warnings():
    """The cascade's warnings, caught on its own logger (lm-eval's loggers need not reach the root's)."""
    logger, handler = logging.getLogger("lm_eval.audio.cascade"), _Warnings()
    logger.addHandler(handler)
    yield handler.messages
    logger.removeHandler(handler)


@pytest.fixture
def endpoint():
    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",), reply=lambda prompt: "an answer") as server:
        yield server


def _cascade(endpoint, tmp_path, **asr):
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    return CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=endpoint.base_url,
                     transcript_cache=str(tmp_path / "t.sqlite"), **asr)


def _request(task, language, clip, doc_id=0):
    doc = {} if language is None else {"language": language}
    return Instance("generate_until", doc, ("<audio>Transcribe.", GREEDY, {"audio": [clip]}), idx=0,
                    metadata=(task, doc_id, 1))


@pytest.mark.parametrize("value,code", [
    ("en", "en"), ("en_us", "en"), ("zh-CN", "zh"), ("cmn_hans_cn", "zh"), ("ja_jp", "ja"), ("yue_hant_hk", "yue"),
    ("es_419", "es"), ("fil_ph", "tl"), ("jv_id", "jw"), ("nb_no", "no"), ("<|ja|>", "ja"), ("Japanese", "ja"),
    ("Mandarin", "zh"), (" DE ", "de"), ("", None), ("not a language", None), (None, None), (3, None)])
def test_a_language_is_read_as_whispers_code(value, code):
    from lm_eval_audio.model_wrappers.transcription import language_code

    assert language_code(value) == code


def test_each_recognizer_knows_its_languages(stand_in_whisper, tmp_path):
    from transformers import (WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration,
                              WhisperProcessor, WhisperTokenizerFast)

    from lm_eval_audio.model_wrappers.transcription import FasterWhisper, TransformersWhisper
    from lm_eval_audio.storage import bundled_models

    english = FasterWhisper(device="cpu")  # the bundled tiny.en
    assert english.english_only and english.language == "en" and english.hears("en") and not english.hears("zh")
    assert english.languages == "English only (an English-only Whisper)"
    assert FasterWhisper("Systran/faster-whisper-base.en", device="cpu").english_only
    detecting = FasterWhisper("large-v3", device="cpu")
    assert not detecting.english_only and detecting.language is None and detecting.hears("zh")
    assert detecting.languages == "any language (detected in each clip)"
    chinese = FasterWhisper("small", language="zh", device="cpu")
    assert chinese.hears("zh") and not chinese.hears("ja") and chinese.languages == "zh only (asr_language=zh)"
    with pytest.raises(ValueError, match="English-only"):
        FasterWhisper("base.en", language="zh", device="cpu")

    # transformers: the checkpoint's generation config says whether it is multilingual (a tiny random Whisper)
    tokenizer = WhisperTokenizerFast(tokenizer_file=f"{bundled_models.whisper_tiny_en()}/tokenizer.json")
    config = WhisperConfig(vocab_size=len(tokenizer), d_model=16, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                           max_source_positions=1500, max_target_positions=32, num_mel_bins=80)
    english_folder, multilingual_folder = tmp_path / "whisper-en", tmp_path / "whisper-multi"
    WhisperForConditionalGeneration(config).save_pretrained(english_folder)
    WhisperProcessor(WhisperFeatureExtractor(feature_size=80), tokenizer).save_pretrained(english_folder)
    shutil.copytree(english_folder, multilingual_folder)
    generation = multilingual_folder / "generation_config.json"
    settings = {k: v for k, v in json.loads(generation.read_text()).items() if k != "_from_model_config"}
    generation.write_text(json.dumps({**settings, "is_multilingual": True}))  # as openai/whisper-small's says
    english = TransformersWhisper(str(english_folder), beam_size=1, device="cpu")
    assert english.english_only and not english.hears("ja") and english.options["language"] is None
    japanese = TransformersWhisper(str(multilingual_folder), language="ja", beam_size=1, device="cpu")
    assert not japanese.english_only and japanese.hears("ja") and not japanese.hears("en")
    assert TransformersWhisper(str(multilingual_folder), beam_size=1, device="cpu").hears("ja")


def test_the_english_only_recognizer_is_named_once_and_recorded(stand_in_whisper, endpoint, clips, tmp_path,
                                                                 cascade_warnings):
    from lm_eval_audio.audio.conditions import parse

    lm = _cascade(endpoint, tmp_path)
    assert lm.run_record["asr_languages"] == "English only (an English-only Whisper)" and OUTSIDE not in lm.run_record
    answers = lm.generate_until([
        _request("asr_zh", "cmn_hans_cn", clips[0]), _request("asr_ja", "ja_jp", clips[1]),
        _request("asr_en", "en_us", clips[2]), _request("no_language", None, clips[3]),
        _request("asr_zh", "cmn_hans_cn", clips[4], doc_id=1),
        Instance("generate_until", {"language": "de"}, ("Say hi.", GREEDY), idx=0, metadata=("text_de", 0, 1)),
    ])
    assert answers == ["an answer"] * 6  # the run goes on: the numbers are still the cascade's
    (warning,) = cascade_warnings
    assert warning.startswith("cascade: the recognizer faster-whisper:whisper-tiny.en transcribes English only")
    assert "asr_ja (ja_jp), asr_zh (cmn_hans_cn) are in another language" in warning
    assert "asr_model= a multilingual Whisper (small, medium, large-v3" in warning and "asr_language=" in warning
    assert "asr_en" not in warning and "no_language" not in warning and "text_de" not in warning
    # a second call of the same run: another task is recorded, no second warning
    lm.generate_until([_request("asr_zh", "cmn_hans_cn", clips[0]), _request("asr_fr", "fr", clips[5])])
    assert len(cascade_warnings) == 1
    expected = {"asr_zh": ["cmn_hans_cn"], "asr_ja": ["ja_jp"], "asr_fr": ["fr"]}
    assert lm.run_record[OUTSIDE] == expected
    # a copy under audio=none transcribes nothing: nothing to record
    none = lm.under(parse("none"))
    none.generate_until([_request("asr_zh", "cmn_hans_cn", clips[0])])
    assert OUTSIDE not in none.run_record and lm.run_record[OUTSIDE] == expected
    lm.notes.start_run()  # the next run (its evaluate starts it): English only
    lm.generate_until([_request("asr_en", "en", clips[2])])
    assert OUTSIDE not in lm.run_record and len(cascade_warnings) == 1
    lm.generate_until([_request("asr_ja", "Japanese", clips[1])])
    assert lm.run_record[OUTSIDE] == {"asr_ja": ["Japanese"]} and len(cascade_warnings) == 2  # its own warning


def test_a_multilingual_recognizer_is_named_only_outside_its_asr_language(stand_in_whisper, endpoint, clips,
                                                                          tmp_path, cascade_warnings):
    requests = [_request("asr_zh", "zh-CN", clips[0]), _request("asr_ja", "ja", clips[1]),
                _request("asr_yue", "yue_hant_hk", clips[2])]
    detecting = _cascade(endpoint, tmp_path, asr_model="large-v3")
    detecting.generate_until(requests)
    assert cascade_warnings == [] and OUTSIDE not in detecting.run_record
    assert detecting.run_record["asr_languages"] == "any language (detected in each clip)"
    chinese = _cascade(endpoint, tmp_path, asr_model="small", asr_language="zh")
    chinese.generate_until(requests)
    assert chinese.run_record[OUTSIDE] == {"asr_ja": ["ja"], "asr_yue": ["yue_hant_hk"]}
    (warning,) = cascade_warnings
    assert "faster-whisper:small transcribes zh only (asr_language=zh)" in warning
    assert "asr_ja (ja), asr_yue (yue_hant_hk)" in warning and "drop asr_language=" in warning


def test_the_results_name_the_sample_tasks_the_default_recognizer_cannot_transcribe(stand_in_whisper, endpoint,
                                                                                     tmp_path):
    """Through lm-eval: the documents' language reaches the cascade, the record reaches the results JSON."""
    proc = run_cli(["lm_eval", "--model", "cascade", "--model_args",
                    f"llm=openai,llm_model=text-llm,llm_base_url={endpoint.base_url}",
                    "--tasks", "fleurs_asr_sample", "--limit", "1", "--output_path", str(tmp_path / "out")],
                   env_extra={"LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite"),
                              "HF_HUB_CACHE": str(tmp_path / "hf_cache")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    record = results_json(tmp_path / "out")["lm_eval_audio_model"]
    assert record["asr"] == "faster-whisper:whisper-tiny.en"
    assert record[OUTSIDE] == {"fleurs_asr_sample_cmn_hans_cn": ["cmn_hans_cn"], "fleurs_asr_sample_ja_jp": ["ja_jp"]}
    # one warning (counted in the test's own log format; lm-eval's handler prints it again in its own)
    warnings = re.findall(r"^WARNING \[lm_eval\.audio\.cascade\] cascade: the recognizer (.*)$", proc.stderr, re.M)
    assert len(warnings) == 1, proc.stderr[-4000:]
    assert warnings[0].startswith("faster-whisper:whisper-tiny.en transcribes English only (an English-only Whisper), "
                                  "but the clips of fleurs_asr_sample_cmn_hans_cn (cmn_hans_cn), "
                                  "fleurs_asr_sample_ja_jp (ja_jp) are in another language")


def test_every_speech_set_says_the_language_spoken_in_its_clips():
    """What the cascade reads to tell a recognizer used outside its language: each document's ``language``."""
    from lm_eval_audio.benchmarks.data_notes import DataNotes
    from lm_eval_audio.model_wrappers import transcription
    from lm_eval_audio.tasks.aishell1 import data as aishell1
    from lm_eval_audio.tasks.covost2 import data as covost2
    from lm_eval_audio.tasks.voxpopuli import data as voxpopuli
    from lm_eval_audio.tasks.wenetspeech import data as wenetspeech

    loaded = {"aishell1": aishell1.load_docs({}, True, notes=DataNotes()),
              "wenetspeech": wenetspeech.load_docs("test_net", {}, True, notes=DataNotes()),
              "covost2 zh_en": covost2.load_docs("zh_en", {}, True, notes=DataNotes()),
              "covost2 en_ja": covost2.load_docs("en_ja", {}, True, notes=DataNotes()),
              "voxpopuli": voxpopuli.load_docs({}, True, notes=DataNotes())}
    expected = {"aishell1": "zh", "wenetspeech": "zh", "covost2 zh_en": "zh", "covost2 en_ja": "en", "voxpopuli": "en"}
    for name, docs in loaded.items():
        assert docs and {transcription.language_code(d["language"]) for d in docs} == {expected[name]}, name
