"""Paraformer-zh as the recognizer of spoken answers (issue 55): a tiny random-weight Paraformer in FunASR's folder
layout, run through FunASR's AutoModel as URO-Bench's and Seed-TTS-eval's scripts run it (each answer's file read
and resampled by FunASR, ``generate(input=path)[0]["text"]``), each answer alone, cached by content, recorded; what
cannot be used is said in one line before the model answers."""

from __future__ import annotations

import contextlib
import hashlib
import io

import pytest
import soundfile as sf

from lm_eval_audio.model_wrappers import answer_recognizer, checkpoints, paraformer
from lm_eval_audio.testing import tiny_paraformer


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(tiny_paraformer.build(str(tmp_path_factory.mktemp("paraformer"))))


def _answers(folder, rates=(24000, 16000, 22050)) -> list[dict]:
    """Spoken answers as the run saves them (their sidecar's path, sha256, seconds), at the rates models speak."""
    import librosa

    from lm_eval_audio.testing.synthetic_audio import said_whole

    out = []
    for i, (rate, text) in enumerate(zip(rates, ("Good morning.", "The weather is fine today.", "Hello world."))):
        speech = librosa.resample(said_whole(text, "en"), orig_sr=16000, target_sr=rate)
        path = folder / f"doc{i}_r0.wav"
        sf.write(path, speech, rate, subtype="PCM_16")
        out.append({"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                    "seconds": len(speech) / rate})
    return out


def _scripts_transcript(model_folder: str, path: str) -> str:
    """URO-Bench asr_for_eval.py / Seed-TTS-eval run_wer.py: ``AutoModel(model=...)``, ``generate(input=path)``,
    ``result[0]["text"].strip()``."""
    with contextlib.redirect_stdout(io.StringIO()):
        from funasr import AutoModel
    return AutoModel(model=model_folder, disable_update=True).generate(input=path)[0]["text"].strip()


def test_answers_are_transcribed_as_funasr_transcribes_their_files_each_alone(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("LM_EVAL_AUDIO_TRANSCRIPT_CACHE", str(tmp_path / "transcripts.sqlite"))
    spec = answer_recognizer.RecognizerSpec.of({"answer_asr": tiny})
    assert (spec.paraformer, spec.language) == (True, "zh")
    spec.check()
    recognizer = answer_recognizer.Recognizer(spec)
    entries = _answers(tmp_path)
    heard = []
    original = recognizer.transcripts.transcriber.transcribe
    monkeypatch.setattr(recognizer.transcripts.transcriber, "transcribe",
                        lambda clips: heard.extend(clips) or original(clips))
    together = recognizer.transcribe_files(entries)
    assert heard == [e["path"] for e in entries]  # the files themselves: FunASR reads and resamples them
    assert together == [_scripts_transcript(tiny, e["path"]) for e in entries]  # each file alone, as there
    assert all(together) and len(set(together)) == 3  # the clips are told apart
    assert recognizer.transcribe_files(entries[::-1]) == together[::-1] and len(heard) == 3  # the cache's
    assert recognizer.name == f"funasr:{tiny.rstrip('/').rsplit('/', 1)[-1]}"
    record = spec.record()
    assert record["language"] == "zh" and record["backend"] == "funasr" and record["model"] == tiny
    assert record["model.pt sha256"] == hashlib.sha256(open(f"{tiny}/model.pt", "rb").read()).hexdigest()


def test_a_checkpoint_without_the_models_parameters_is_refused_before_the_run(tiny, tmp_path):
    import shutil

    import torch

    broken = tmp_path / "broken"
    shutil.copytree(tiny, broken)
    state = torch.load(broken / "model.pt")
    state.pop(next(k for k in state if k.startswith("decoder.")))
    torch.save(state, broken / "model.pt")
    with pytest.raises(ValueError, match=r"model.pt lacks 1 of the model's parameters .*decoder\."):
        paraformer.Paraformer(str(broken))


def test_what_cannot_be_used_is_said_in_one_line(tiny, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="Paraformer-zh.* hears Mandarin, and answer_asr_language=en"):
        answer_recognizer.RecognizerSpec.of({"answer_asr": "paraformer-zh", "answer_asr_language": "en"})
    assert answer_recognizer.RecognizerSpec.of({"answer_asr": "Paraformer-zh"}).language == "zh"
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "config.yaml").write_text("model: Paraformer\n")
    assert not paraformer.is_funasr_folder(str(tmp_path / "half"))
    with pytest.raises(checkpoints.CheckpointNotFound, match="without FunASR's config.yaml and model.pt"):
        paraformer.folder(str(tmp_path / "half"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty_cache"))
    with pytest.raises(checkpoints.CheckpointNotFound) as refused:
        answer_recognizer.RecognizerSpec.of({"answer_asr": "paraformer-zh"}).check()
    said = str(refused.value)
    assert "funasr/paraformer-zh" in said and "HF_HUB_OFFLINE" in said and "\n" not in said


@pytest.mark.slow  # a cascade run of about a minute
def test_a_mandarin_task_is_transcribed_by_paraformer_and_the_results_name_it(tiny, tmp_path):
    """seedtts_test_zh (its default recognizer: paraformer-zh) on the sample's Chinese list, the recognizer given as
    a local folder: what the spoken answer's file says to FunASR is the transcript scored."""
    import json

    from conftest import results_json, run_cli

    from lm_eval_audio.tasks.seedtts import data, scoring

    out = tmp_path / "out"
    metadata = {"seedtts_data_dir": str(data.DATA.sample), "answer_asr": tiny}
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "seedtts_test_zh", "--limit", "1", "--output_path",
                    str(out), "--log_samples", "--metadata", json.dumps(metadata), "--gen_kwargs", "max_gen_toks=24"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = results_json(out)
    recognizer = results["lm_eval_audio_spoken"]["seedtts_test_zh"]["recognizer"]
    assert (recognizer["backend"], recognizer["language"], recognizer["model"]) == ("funasr", "zh", tiny)
    (sample,) = [json.loads(line) for line in next(out.glob("*/samples_seedtts_test_zh_*.jsonl")).open()]
    (said,) = sample["spoken_answer"]
    assert said["transcript"] == _scripts_transcript(tiny, said["path"]) and said["recognizer"].startswith("funasr:")
    assert results["results"]["seedtts_test_zh"]["seedtts_wer,none"] == pytest.approx(
        scoring.utterance_wer(said["transcript"], sample["doc"]["text"], "zh"))


def test_every_chinese_task_of_urobench_and_seedtts_is_transcribed_by_paraformer():
    """As their scripts transcribe Mandarin (URO-Bench asr_for_eval.py, Seed-TTS-eval run_wer.py): each task YAML
    whose documents are Chinese names it, so that no Mandarin answer is heard as English."""
    from pathlib import Path

    import yaml
    from conftest import yaml_metadata

    chinese = []
    for path in [*Path("tasks/urobench").glob("urobench_*_zh.yaml"), *Path("tasks/seedtts").glob("seedtts_test_*.yaml")]:
        if "group" in yaml.load(path.read_text(), yaml.BaseLoader) or path.stem == "seedtts_test_en":
            continue
        chinese.append(path.stem)
        spec = answer_recognizer.RecognizerSpec.of(yaml_metadata(path))
        assert (spec.paraformer, spec.language) == (True, "zh"), path.name
    from lm_eval_audio.tasks.urobench.data import SUBSETS

    assert len(chinese) == sum(s.language == "zh" for s in SUBSETS.values()) + 2  # URO-Bench's 18, test-zh, test-hard
