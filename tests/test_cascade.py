"""``cascade``: the real bundled Whisper tiny.en on espeak-ng speech, the transcript in the
LLM's prompt, the transcript cache, and the CLI on the plugin's spoken_digits tasks."""

from __future__ import annotations

import json
import re
import logging
import subprocess

import numpy as np
import pytest
from lm_eval.api.instance import Instance
from scripted_judge import SERVED_MODELS, ScriptedJudge, audio_parts, prompt_text

from conftest import results_json, run_cli
from lm_eval_audio.metrics import error_rates

RULE = "whisper_english_spelled_numbers"  # AudioBench's preprocess_text_asr

SENTENCES = [
    "The weather is nice today.",
    "Please open the window in the kitchen.",
    "She bought three apples at the market.",
    "My brother works at the hospital.",
    "We will meet again next week.",
]
GREEDY = {"until": [], "max_gen_toks": 8, "do_sample": False}


def _speak(text: str, path) -> str:
    wav = subprocess.run(["espeak-ng", "-v", "en-us", "-s", "130", "--stdout", text], capture_output=True, check=True)
    path.write_bytes(wav.stdout)
    return str(path)


@pytest.fixture(scope="module")
def speech(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("speech")
    return [_speak(s, folder / f"s{i}.wav") for i, s in enumerate(SENTENCES)]


@pytest.fixture(scope="module")
def whisper():
    from lm_eval_audio.model_wrappers.transcription import FasterWhisper

    return FasterWhisper()


def _request(context, refs, gen=GREEDY, doc_id=0):
    return Instance("generate_until", {}, (context, gen, {"audio": refs}), idx=0, metadata=("t", doc_id, 1))


def test_bundled_whisper_transcribes_synthetic_speech_within_a_wer_bound(whisper, speech):
    from lm_eval_audio.audio import decoding

    hyps = whisper.transcribe([decoding.load(p, 16000) for p in speech])
    per_item = [error_rates.counts(ref, hyp, RULE) for ref, hyp in zip(SENTENCES, hyps)]
    total = sum(per_item[1:], per_item[0])
    # Whisper tiny.en on espeak-ng's robotic voice: 8 errors in 31 words and 2 sentences right on the development
    # machine. A recognizer that heard nothing, or noise, scores 1.0 or more.
    assert error_rates.rate(total) < 0.4, hyps
    assert sum(c.errors == 0 for c in per_item) >= 2, hyps
    assert whisper.transcribe([np.zeros(16000, dtype=np.float32)]) == [""]


def test_the_transcript_and_the_question_reach_the_llm_prompt(speech, tmp_path):
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",), reply=lambda prompt: "the window") as server:
        lm = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url,
                       transcript_cache=str(tmp_path / "t.sqlite"))
        answers = lm.generate_until([
            _request("<audio>What should be opened?", [speech[1]]),
            _request("Compare <audio> and <audio>.", [speech[3], speech[4]], doc_id=1),
        ])
    assert answers == ["the window", "the window"]
    one, two = sorted(server.requests, key=lambda b: len(prompt_text(b)))
    assert audio_parts(one) == [] and audio_parts(two) == []  # the LLM gets text only
    text = prompt_text(one)
    assert text.startswith("You cannot hear the audio. Below is an automatic transcript")
    assert 'Transcript: "Please open the window in the kitchen."' in text
    assert text.endswith("\n\nWhat should be opened?") and "<audio>" not in text
    assert 'Clip 1: "My brother' in prompt_text(two) and '\nClip 2: "We will meet again next week."' in prompt_text(two)
    assert prompt_text(two).endswith("\n\nCompare clip 1 and clip 2.")


def test_prompt_template_file_and_its_checks(speech, tmp_path):
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    template = tmp_path / "template.txt"
    template.write_text("ASR says, {transcript}; now: {question}")
    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",)) as server:
        lm = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url,
                       prompt_template_file=str(template), transcript_cache=str(tmp_path / "t.sqlite"))
        lm.generate_until([_request("<audio>When?", [speech[4]])])
        assert prompt_text(server.requests[0]) == 'ASR says, "We will meet again next week."; now: When?'
        with pytest.raises(ValueError, match="2 <audio> marker\\(s\\) but the request carries 1 clip"):
            lm.generate_until([_request("<audio> and <audio>?", [speech[4]])])
        perplexity = Instance("loglikelihood_rolling", {}, ("some text", {"audio": [speech[4]]}), idx=0)
        with pytest.raises(ValueError, match="perplexity tasks\\) is for text"):
            lm.loglikelihood_rolling([perplexity])
        template.write_text("Only {question}")
        with pytest.raises(ValueError, match="template.txt needs both \\{transcript\\} and \\{question\\}"):
            CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url, prompt_template_file=str(template))
        with pytest.raises(ValueError, match="unknown model_args asr_modle \\(did you mean asr_model\\?\\)"):
            CascadeLM(asr_modle="x")
        with pytest.raises(ValueError, match="llm must be one of"):
            CascadeLM(llm="vllm")
        with pytest.raises(ValueError, match="llm_base_url are for llm=openai"):
            CascadeLM(llm_base_url=server.base_url)
        with pytest.raises(ValueError, match="gguf_file= names a file inside llm_model="):
            CascadeLM(gguf_file="model.gguf")
        with pytest.raises(ValueError, match="cascade \\(llm=openai.*does not serve model 'nope'"):
            CascadeLM(llm="openai", llm_model="nope", llm_base_url=server.base_url)
        with pytest.raises(ValueError, match="English-only"):
            CascadeLM(asr_language="de")
        with pytest.raises(ValueError, match="llm_api_key= holds a credential"):
            CascadeLM(llm_api_key="secret")


def test_settings_are_read_once_and_name_the_results_folder(speech, tmp_path):
    """The cascade's arguments, read and checked before anything loads; its results folder after its recognizer and
    LLM; a copy under another audio= condition shares the recognizer and the LLM and leaves the cascade as it is."""
    from lm_eval_audio.audio.conditions import parse
    from lm_eval_audio.endpoints.model_args import Settings
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    with pytest.raises(ValueError, match=r"cascade: asr must be one of \('faster-whisper', 'transformers'\), got 'vosk'"):
        CascadeLM(asr="vosk")
    with pytest.raises(ValueError, match="cascade: asr=transformers needs asr_model="):
        CascadeLM(asr="transformers")
    with ScriptedJudge(models=SERVED_MODELS + ("org/text-llm",), reply=lambda prompt: "B") as server:
        lm = CascadeLM(llm="openai", llm_model="org/text-llm", llm_base_url=server.base_url,
                       transcript_cache=str(tmp_path / "t.sqlite"))
        assert isinstance(lm.settings, Settings) and lm.settings.asr_beam_size == 5
        assert lm.results_name == "cascade__whisper-tiny.en__text-llm"
        none = lm.under(parse("none"))
        assert (lm.audio_condition.label, none.audio_condition.label) == ("full", "none")
        assert none.transcripts is lm.transcripts and none.results_name == lm.results_name
        assert none.llm is not lm.llm and none.llm.urls == lm.llm.urls and none.llm.progress_label == lm.llm.progress_label
        assert none.generate_until([_request("<audio>Which option?", [speech[0]])]) == ["B"]
        assert prompt_text(server.requests[-1]) == "Which option?"  # the copy heard nothing; the cascade still does
        assert lm.audio_condition.label == "full"


def test_the_same_audio_is_transcribed_once_across_calls_and_runs(speech, tmp_path, monkeypatch, caplog):
    from lm_eval_audio.model_wrappers.cascade import CascadeLM
    from lm_eval_audio.model_wrappers.transcription import FasterWhisper

    heard = []
    original = FasterWhisper.transcribe
    monkeypatch.setattr(FasterWhisper, "transcribe", lambda self, clips: heard.extend(clips) or original(self, clips))
    cache = str(tmp_path / "transcripts.sqlite")
    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",)) as server:
        lm = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url, transcript_cache=cache)
        copy = tmp_path / "same_audio_other_name.wav"
        copy.write_bytes(open(speech[0], "rb").read())
        lm.generate_until([_request("<audio>a", [speech[0]]), _request("<audio>b", [str(copy)]),
                           _request("<audio>c", [speech[2]])])
        assert len(heard) == 2  # two distinct contents among three requests
        broken = tmp_path / "broken.wav"
        broken.write_bytes(b"RIFF" + bytes(range(256)) * 8)
        with caplog.at_level(logging.INFO):
            lm.generate_until([_request("<audio>another task", [speech[2]]), _request("<audio>d", [str(broken)])])
        assert len(heard) == 2
        assert "2 distinct clip(s): 0 transcribed, 1 from the transcript cache, 1 could not be decoded" in caplog.text
        again = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url, transcript_cache=cache)
        again.generate_until([_request("<audio>next run", [speech[0]])])
        assert len(heard) == 2  # from the file, as a new run would
        first = next(prompt_text(b) for b in server.requests if prompt_text(b).endswith("\n\na"))
        last = prompt_text(server.requests[-1])
        said = first[first.index("Transcript: "):-len("\n\na")]
        assert said in last and said != 'Transcript: (no speech recognized)'


def test_a_text_only_model_refuses_audio_and_points_to_the_cascade(speech):
    from lm_eval_audio.storage import bundled_models
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    lm = HFAudioLM(pretrained=bundled_models.smollm2_folder())
    (reply,) = lm.generate_until([Instance("generate_until", {}, ("Say hi.", GREEDY), idx=0)])
    assert isinstance(reply, str) and reply.strip()
    with pytest.raises(ValueError, match="no audio processor.*--model cascade"):
        lm.generate_until([_request("<audio>What is said?", [speech[0]])])


@pytest.mark.slow
def test_cli_spoken_digits_generation_and_multiple_choice_offline(tmp_path):
    """Default models (bundled Whisper tiny.en, SmolLM2): the generation task, then the
    log-likelihood one over the same clips, which come from the transcript cache."""
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "spoken_digits", "--batch_size", "4",
                    "--output_path", str(tmp_path / "out"), "--log_samples"],
                   env_extra={"LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "10 distinct clip(s): 10 transcribed, 0 from the transcript cache, 0 could not be decoded" in proc.stderr
    assert "10 distinct clip(s): 0 transcribed, 10 from the transcript cache, 0 could not be decoded" in proc.stderr
    # the progress bars say what runs: the recognizer, then the cascade's LLM (not "hf-audio")
    assert re.search(r"cascade: faster-whisper:\S+ transcribes: 100%", proc.stderr)
    assert "cascade: SmolLM2-135M-Instruct answers generate" in proc.stderr and "hf-audio generate" not in proc.stderr
    res = results_json(tmp_path / "out")
    assert res["config"]["model"] == "cascade"
    assert res["n-samples"]["spoken_digits_gen"]["effective"] == 10
    assert 0.0 <= res["results"]["spoken_digits_mc"]["acc,none"] <= 1.0
    folder = next((tmp_path / "out").iterdir())
    assert folder.name == "cascade__whisper-tiny.en__SmolLM2-135M-Instruct"
    samples = [json.loads(x) for x in next(folder.glob("samples_spoken_digits_gen_*.jsonl")).read_text().splitlines()]
    assert all(isinstance(s["resps"][0][0], str) for s in samples)
    # what the recognizer heard, beside each answer: one transcript per clip (Whisper tiny.en on espeak-ng
    # speech: "Zero.", "one.", "2", "For...")
    assert all(len(s["transcripts"]) == 1 and s["transcripts"][0].strip() for s in samples)
    assert sum(s["target"].lower() in s["transcripts"][0].lower() for s in samples) >= 3


def tiny_whisper(tmp_path):
    """A tiny random Whisper (built here, no download) with the bundled model's tokenizer: its folder."""
    from transformers import (WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration, WhisperProcessor,
                              WhisperTokenizerFast)

    from lm_eval_audio.storage import bundled_models

    tokenizer = WhisperTokenizerFast(tokenizer_file=f"{bundled_models.whisper_tiny_en()}/tokenizer.json")
    folder = tmp_path / "tiny-whisper"
    config = WhisperConfig(vocab_size=len(tokenizer), d_model=16, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                           max_source_positions=1500, max_target_positions=32, num_mel_bins=80,
                           decoder_start_token_id=tokenizer.convert_tokens_to_ids("<|startoftranscript|>"),
                           pad_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    WhisperForConditionalGeneration(config).save_pretrained(folder)
    WhisperProcessor(WhisperFeatureExtractor(feature_size=80), tokenizer).save_pretrained(folder)
    return folder


def test_transformers_whisper_backend_cuts_long_clips_into_windows(tmp_path, monkeypatch):
    from transformers import WhisperProcessor

    from lm_eval_audio.model_wrappers.transcription import TransformersWhisper

    asr = TransformersWhisper(str(tiny_whisper(tmp_path)), beam_size=1)
    windows = []
    original = WhisperProcessor.__call__
    monkeypatch.setattr(WhisperProcessor, "__call__",
                        lambda self, audio, **kw: windows.extend(map(len, audio)) or original(self, audio, **kw))
    texts = asr.transcribe([np.zeros(16000 * 45, dtype=np.float32), np.zeros(16000 * 2, dtype=np.float32)])
    assert len(texts) == 2 and all(isinstance(t, str) for t in texts)
    assert windows == [16000 * 30, 16000 * 15, 16000 * 2]


@pytest.mark.slow(seconds=75)
def test_a_gguf_llm_via_gguf_file_answers_as_the_converted_folder_does(speech, tmp_path):
    """``llm_model=FOLDER,gguf_file=FILE`` (transformers reads the GGUF file itself), and the
    bundled default, converted once from that file, gives the same answers."""
    from lm_eval_audio.storage import bundled_models
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    folder, gguf = bundled_models.smollm2()
    requests = [_request("<audio>What should be opened? Answer in one word.", [speech[1]]),
                _request("<audio>When will they meet?", [speech[4]], doc_id=1)]
    cache = str(tmp_path / "t.sqlite")
    from_gguf = CascadeLM(llm_model=folder, gguf_file=gguf, transcript_cache=cache).generate_until(requests)
    from_folder = CascadeLM(transcript_cache=cache).generate_until(requests)
    assert from_gguf == from_folder and all(a.strip() for a in from_gguf)


def test_smollm2_is_converted_once_per_machine_not_once_per_clone(tmp_path, monkeypatch):
    """The converted folder is keyed by the GGUF file's content: another clone's copy (another path, another time)
    finds the folder the first one made, and a different file gets its own."""
    import os

    from lm_eval_audio.storage import bundled_models
    from lm_eval_audio.storage.digests import file_sha256

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    clones = [tmp_path / "clone_a", tmp_path / "clone_b"]
    for k, clone in enumerate(clones):
        clone.mkdir()
        (clone / bundled_models.SMOLLM2_GGUF).write_bytes(b"the same weights")
        os.utime(clone / bundled_models.SMOLLM2_GGUF, ns=(10**18 + k, 10**18 + k))
    monkeypatch.setattr(bundled_models, "smollm2", lambda: (str(clones[0]), bundled_models.SMOLLM2_GGUF))
    digest = file_sha256(str(clones[0] / bundled_models.SMOLLM2_GGUF))
    made = tmp_path / "cache" / "lm_eval_audio" / "models" / f"SmolLM2-135M-Instruct-{digest[:12]}"
    made.mkdir(parents=True)
    (made / ".complete").touch()  # what the first clone's conversion left
    assert bundled_models.smollm2_folder() == str(made)
    monkeypatch.setattr(bundled_models, "smollm2", lambda: (str(clones[1]), bundled_models.SMOLLM2_GGUF))
    assert bundled_models.smollm2_folder() == str(made)  # no second conversion
    (clones[1] / bundled_models.SMOLLM2_GGUF).write_bytes(b"other weights")
    assert file_sha256(str(clones[1] / bundled_models.SMOLLM2_GGUF))[:12] != digest[:12]
