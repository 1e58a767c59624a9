"""Spoken answers (issue 54): a served model's speech saved, transcribed and scored by its transcript; a server that
ignores the request for audio stopped in one line; a killed run resumed without speaking a saved answer again; the
refusals before the model loads; the recognizer's wiring; the cascade's TTS on the Big Bench Audio sample."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import signal
import subprocess
import time

import numpy as np
import pytest
import soundfile as sf
from scripted_judge import ScriptedJudge, audio_parts
from test_cli_errors import _one_error_line

from conftest import BIN, REPO, results_json, run_cli, run_readme_block

SPOKEN_TEXT = "The answer is yes."
S2S_SAMPLE = "bigbench_audio_sample_s2s"
DOCS = 8  # the Big Bench Audio sample's questions


def _espeak_wav(text: str) -> bytes:
    return subprocess.run(["espeak-ng", "-v", "en-us", "--stdout"], input=text.encode(), capture_output=True,
                          check=True).stdout


def _speaking_server(**kwargs) -> ScriptedJudge:
    """A stand-in for an OpenAI audio model: a request for speech gets espeak-ng saying SPOKEN_TEXT (OpenAI's form:
    content empty, the text in message.audio.transcript)."""
    speech = base64.b64encode(_espeak_wav(SPOKEN_TEXT)).decode()

    def reply_for(body):
        if body.get("modalities") == ["text", "audio"]:
            assert body["audio"] == {"voice": "alloy", "format": "wav"}
            return {"content": None, "audio": {"id": "audio-1", "data": speech, "expires_at": 0,
                                               "transcript": SPOKEN_TEXT}}
        return None

    return ScriptedJudge(models=("served-omni",), reply_for=reply_for, **kwargs)


def _served_args(server, **extra) -> str:
    args = {"base_url": server.base_url, "model": "served-omni", "max_retries": 0, "retry_base_seconds": 0.01, **extra}
    return ",".join(f"{k}={v}" for k, v in args.items())


def _spoken_calls(server) -> list[dict]:
    """The requests for spoken answers the server got (the check before the run asks 'Say yes.' without audio)."""
    return [b for b in server.requests if b.get("modalities") and audio_parts(b)]


def test_a_served_models_speech_is_saved_transcribed_and_scored_by_its_transcript(tmp_path):
    out = tmp_path / "out"
    with _speaking_server() as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args", _served_args(server), "--tasks",
                        S2S_SAMPLE, "--output_path", str(out), "--log_samples"])
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert len(_spoken_calls(server)) == DOCS
    results = results_json(out)
    task = f"{S2S_SAMPLE}_navigate"
    spoken = results["lm_eval_audio_spoken"][task]
    assert spoken["recognizer"]["model"] == "whisper-tiny.en" and spoken["recognizer"]["bundled"] is True
    assert results["lm_eval_audio_model"]["speech"]["request"]["modalities"] == ["text", "audio"]
    metrics = results["results"][task]
    assert metrics["spoken_failed,none"] == 0
    assert metrics["answer_seconds,none"] == pytest.approx(len(sf.read(io.BytesIO(_espeak_wav(SPOKEN_TEXT)))[0])
                                                         / 22050, abs=0.002)
    samples = [json.loads(line) for line in next((out / "served-omni").glob(f"samples_{task}_*.jsonl")).open()]
    for sample in samples:
        (said,) = sample["spoken_answer"]
        assert said["text"] == SPOKEN_TEXT and said["sample_rate"] == 22050
        assert hashlib.sha256(open(said["path"], "rb").read()).hexdigest() == said["sha256"]
        assert said["path"].startswith(str(out / "spoken_answers" / "served-omni" / task))
        # the task scored the transcript, which tiny.en makes of espeak-ng's "The answer is yes."
        assert sample["filtered_resps"][0] == said["transcript"] and "yes" in said["transcript"].lower()
    # the transcript against the model's own text, Whisper's English normalizer: what tiny.en misheard, if anything
    assert 0.0 <= metrics["speech_text_wer,none"] <= 0.25
    assert "(fraction" in proc.stdout and "bundled recognizer" in proc.stdout


def test_a_server_that_ignores_the_request_for_audio_stops_the_run_in_one_line(tmp_path):
    with ScriptedJudge(models=("served-omni",)) as server:  # mainline vLLM: text, whatever was asked
        line = _one_error_line(run_cli(["lm_eval", "--model", "openai-audio", "--model_args", _served_args(server),
                                        "--tasks", S2S_SAMPLE, "--output_path", str(tmp_path / "out")]))
        assert not _spoken_calls(server)
    assert "holds no message.audio: the server ignores the request for audio (mainline vLLM does)" in line
    assert "vLLM-Omni" in line


def test_a_killed_run_resumes_without_speaking_a_saved_answer_again(tmp_path):
    """SIGKILL once some answers are saved; the same command then asks only for the others."""
    out = tmp_path / "out"
    folder = out / "spoken_answers" / "served-omni"
    with _speaking_server(latency=0.4) as server:
        command = [str(BIN / "lm_eval"), "--model", "openai-audio", "--model_args",
                   _served_args(server, num_concurrent=1), "--tasks", S2S_SAMPLE, "--output_path", str(out)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
        first = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 240
        while len(list(folder.glob("*/*.json"))) < 3 and time.time() < deadline and first.poll() is None:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        saved = len(list(folder.glob("*/*.json")))
        assert 3 <= saved < DOCS
        asked_first = len(_spoken_calls(server))
        second = run_cli(["lm_eval", *command[1:]])
        assert second.returncode == 0, second.stderr[-3000:]
        asked_second = len(_spoken_calls(server)) - asked_first
    assert asked_second == DOCS - saved  # no saved answer was generated again
    assert f"{saved} spoken answer(s) read back" in second.stderr
    assert len(list(folder.glob("*/*.wav"))) == DOCS


def test_use_cache_replays_the_spoken_answers_without_asking_again(tmp_path):
    """--use_cache keeps each spoken answer whole (file, text, transcript) apart from the text answer to the same
    request: the text task first, then its spoken twice (the second asks the server nothing and scores the same),
    then the text task again, which gets its text answers back, not the transcripts."""
    cache = ["--use_cache", str(tmp_path / "cache" / "db")]
    text, spoken = "bigbench_audio_sample_navigate", f"{S2S_SAMPLE}_navigate"
    calls = []
    with _speaking_server() as server:
        for name, task in (("text", text), ("first", spoken), ("second", spoken), ("text_again", text)):
            proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args", _served_args(server), "--tasks",
                            task, "--output_path", str(tmp_path / name), "--log_samples", *cache])
            assert proc.returncode == 0, proc.stderr[-3000:]
            calls.append((len(_spoken_calls(server)), len([b for b in server.requests if audio_parts(b)])))
    assert calls == [(0, 2), (2, 4), (2, 4), (2, 4)]  # asked: the text answers once, the spoken ones once
    first, second = (results_json(tmp_path / name)["results"][spoken] for name in ("first", "second"))
    assert first == second and second["spoken_failed,none"] == 0
    replayed = json.loads(next((tmp_path / "second").glob("*/samples_*.jsonl")).open().readline())
    assert replayed["spoken_answer"][0]["path"].startswith(str(tmp_path / "first"))  # the file the first run saved
    again = json.loads(next((tmp_path / "text_again").glob("*/samples_*.jsonl")).open().readline())
    assert "spoken_answer" not in again and again["resps"] == [["A"]]


def test_each_repeat_is_its_own_answer_and_any_setting_that_changes_answers_is_in_the_key():
    from lm_eval_audio.model_wrappers.cascade import CascadeLM
    from lm_eval_audio.model_wrappers.spoken_answers import request_key, seed_of

    args = ("<audio>Which way?", {"until": [], "max_gen_toks": 8})
    keys = [request_key({"who": "hf-audio"}, args, repeat) for repeat in range(3)]
    assert len({seed_of(k) for k in keys}) == 3  # a sampling talker says each repeat anew
    names = {arg.name for arg in CascadeLM.ARGS} - set(CascadeLM.NOT_IN_ANSWERS)
    assert {"llm_model", "prompt_template", "max_new_tokens", "voice", "asr_model"} <= names


@pytest.mark.parametrize("model, model_args, tasks, expected", [
    ("cascade", "spoken_answers=true", "gsm8k", "gsm8k is lm-eval's own: run it without spoken_answers=true"),
    ("cascade", "spoken_answers=true,voice=zz", S2S_SAMPLE, "cascade: voice=zz: Error: The specified espeak-ng voice "
                                                            "does not exist."),
    ("cascade", "spoken_answers=true", "voicebench_sample_mmsu,spoken_digits_mc",
     "spoken_digits_mc is scored by the log-likelihood of each option (multiple_choice)"),
    ("hf", "pretrained=nowhere", S2S_SAMPLE, "are answered in speech, and --model hf does not speak"),
    ("cascade", "", S2S_SAMPLE, "spoken answers are saved as audio files beside the results: give --output_path"),
])
def test_what_cannot_be_answered_in_speech_stops_before_the_model_loads(model, model_args, tasks, expected, tmp_path):
    output = [] if "output_path" in expected else ["--output_path", str(tmp_path / "out")]
    args = ["--model_args", model_args] if model_args else []
    line = _one_error_line(run_cli(["lm_eval", "--model", model, *args, "--tasks", tasks, *output]))
    assert expected in line


def test_the_recognizer_hears_each_answer_at_16_khz_and_alike_in_any_company(tmp_path, monkeypatch):
    """A tiny random Whisper (transformers' classes, built here): answers saved at 24 kHz reach it resampled to
    16 kHz, and a batch transcribes each answer as it does alone."""
    from test_cascade import tiny_whisper

    from lm_eval_audio.model_wrappers import answer_recognizer
    from lm_eval_audio.storage import run_state

    folder = tiny_whisper(tmp_path)
    spec = answer_recognizer.RecognizerSpec.of({"answer_asr": str(folder)})
    assert spec.record()["backend"] == "transformers" and spec.language == "en"
    monkeypatch.setenv("LM_EVAL_AUDIO_TRANSCRIPT_CACHE", str(tmp_path / "t.sqlite"))
    run_state.current().spoken["t"] = spec
    recognizer = answer_recognizer.for_task("t")
    heard = []
    original = recognizer.transcripts.transcriber.transcribe
    monkeypatch.setattr(recognizer.transcripts.transcriber, "transcribe",
                        lambda clips: heard.extend(len(c) for c in clips) or original(clips))
    entries = []
    for i, seconds in enumerate((1.0, 2.5, 0.5)):
        path = tmp_path / f"a{i}.wav"
        sf.write(path, np.random.default_rng(i).uniform(-0.3, 0.3, int(24000 * seconds)).astype(np.float32), 24000)
        entries.append({"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "seconds": seconds})
    together = recognizer.transcribe_files(entries)
    assert heard == [16000, 40000, 8000]
    alone = [answer_recognizer.Recognizer(spec).transcribe_files([e]) for e in entries]
    monkeypatch.setenv("LM_EVAL_AUDIO_TRANSCRIPT_CACHE", str(tmp_path / "other.sqlite"))  # not from the cache
    fresh = [answer_recognizer.Recognizer(spec).transcribe_files([e])[0] for e in entries]
    assert together == [a[0] for a in alone] == fresh
    with pytest.raises(ValueError, match="Paraformer-zh.* hears Mandarin"):
        answer_recognizer.RecognizerSpec.of({"answer_asr": "paraformer-zh", "answer_asr_language": "en"})
    with pytest.raises(ValueError, match="hears English only"):
        answer_recognizer.RecognizerSpec.of({"answer_asr": "bundled", "answer_asr_language": "zh"})


def test_a_multilingual_recognizer_is_told_the_language_and_mandarin_is_scored_by_characters(tmp_path, monkeypatch):
    """A tiny random Whisper made multilingual (its generation config's languages and tasks, as large-v3's): with
    answer_asr_language=zh it transcribes with language zh, and the task's consistency is a character error rate."""
    from test_cascade import tiny_whisper
    from transformers import GenerationConfig, WhisperTokenizerFast

    from lm_eval_audio.metrics import spoken_scores
    from lm_eval_audio.model_wrappers import answer_recognizer
    from lm_eval_audio.model_wrappers.spoken_answers import SpokenAnswer
    from lm_eval_audio.storage import run_state

    folder = tiny_whisper(tmp_path)
    tokenizer, config = WhisperTokenizerFast.from_pretrained(folder), GenerationConfig.from_pretrained(folder)
    ids = tokenizer.convert_tokens_to_ids
    config.is_multilingual, config._from_model_config = True, False  # (else rebuilt from the model's config)
    config.no_timestamps_token_id = ids("<|notimestamps|>")
    config.lang_to_id = {t: ids(t) for t in ("<|en|>", "<|zh|>")}
    config.task_to_id = {t: ids(f"<|{t}|>") for t in ("transcribe", "translate")}
    config.save_pretrained(folder)
    monkeypatch.setenv("LM_EVAL_AUDIO_TRANSCRIPT_CACHE", str(tmp_path / "t.sqlite"))
    spec = answer_recognizer.RecognizerSpec.of({"answer_asr": str(folder), "answer_asr_language": "Mandarin"})
    assert spec.language == "zh" and spec.record()["language"] == "zh"
    run_state.current().spoken["zh_task"] = spec
    recognizer = answer_recognizer.for_task("zh_task")
    asked = []
    model = recognizer.transcripts.transcriber._model
    original = model.generate
    monkeypatch.setattr(model, "generate", lambda *a, **k: asked.append((k.get("language"), k.get("task")))
                        or original(*a, **k))
    path = tmp_path / "a.wav"
    sf.write(path, np.zeros(24000, dtype=np.float32), 24000)
    recognizer.transcribe_files([{"path": str(path), "sha256": "zeros", "seconds": 1.0}])
    assert asked == [("zh", "transcribe")]
    answer = SpokenAnswer("今天天气很好", "今天天气不好", {"path": str(path), "seconds": 2.0}, recognizer.name)
    scores = spoken_scores.per_document("zh_task", [answer])
    assert scores["speech_text_cer"] == pytest.approx(1 / 6)  # one character of six
    assert scores["characters_per_minute"] == {"units": 6, "seconds": 2.0}
    # answer_asr_language=detect (URO-Bench's Multilingual): Whisper is given no language, the rule is the basic one
    spec = answer_recognizer.RecognizerSpec.of({"answer_asr": str(folder), "answer_asr_language": "detect"})
    assert spec.language == "detect" and spec.record()["language"] == "detect"
    run_state.current().spoken["any_task"] = spec
    detecting = answer_recognizer.for_task("any_task")
    model = detecting.transcripts.transcriber._model
    original_detecting = model.generate
    monkeypatch.setattr(model, "generate", lambda *a, **k: asked.append((k.get("language"), k.get("task")))
                        or original_detecting(*a, **k))
    detecting.transcribe_files([{"path": str(path), "sha256": "zeros", "seconds": 1.0}])
    assert asked[-1] == (None, None)
    answer = SpokenAnswer("Bonjour à tous", "Bonjour, à tous !", {"path": str(path), "seconds": 2.0}, detecting.name)
    assert spoken_scores.per_document("any_task", [answer])["speech_text_wer"] == 0.0  # BasicTextNormalizer


@pytest.mark.slow
def test_the_readmes_spoken_answers_command_runs_as_written(tmp_path):
    """The README's spoken-answers command, as a new user runs it: the cascade answers the Big Bench Audio sample in
    speech (espeak-ng reads the LLM's answer, the bundled tiny.en transcribes it, the transcript is scored); the
    consistency WER is what espeak-ng plus tiny.en give (docs/SPOKEN.md: 7.9 % to 28.6 % per task on this sample)."""
    proc = run_readme_block("spoken", tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = tmp_path / "results"
    results = results_json(out)
    assert results["lm_eval_audio_model"]["speech"]["tts"] == "espeak-ng"
    tasks = [t for t in results["results"] if t.startswith(f"{S2S_SAMPLE}_")]
    assert len(tasks) == 4
    for task in tasks:
        metrics = results["results"][task]
        assert 0.0 <= metrics["speech_text_wer,none"] < 0.4, (task, metrics)
        assert 130 < metrics["words_per_minute,none"] < 220  # espeak-ng reads at 175 words a minute
        assert metrics["spoken_failed,none"] == 0
    # the speech is measured against the text, not the text against itself: some task's answers are misheard (a task's
    # two short answers can be read back whole; on one thread, as the tests' workers run, SmolLM2 answers differently)
    assert any(results["results"][task]["speech_text_wer,none"] > 0 for task in tasks)
    assert len(list((out / "spoken_answers").glob("*/*/*.wav"))) == DOCS
    assert "speech_text_wer" in proc.stdout and "bundled recognizer" in proc.stdout
