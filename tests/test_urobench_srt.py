"""URO-Bench's SRT subsets (singing, reciting, tongue twisters): the judge hears the spoken answer
(metrics/mark_gemini.py, Ruiqi-Yan/URO-Bench@9e74bc04): its prompt as the file holds it, the answer's WAV given to
an OpenAI-compatible endpoint as ``input_audio`` (judges/judge_audio.py), cached by the clip's content, and the
score as the script computes it."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil

import pytest
import soundfile as sf
from conftest import judge_of, tone, yaml_metadata

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.spoken_answer import SpokenAnswer
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.urobench import data, prompts, scoring

TASK = "urobench_pro_srt_en"
# sha256 of mark_gemini.py's ``template`` literal as the script sends it (not stripped), computed from that file
OFFICIAL_SRT_SHA256 = "87bbd73a0b1bffb8bd8ebc57f41299b1a051ff6e057a33fb346be52fd69a8eca"


def test_the_srt_prompt_is_the_official_string_unstripped():
    assert hashlib.sha256(prompts.SRT.encode()).hexdigest() == OFFICIAL_SRT_SHA256
    assert prompts.SRT.startswith("\n        I need your help") and prompts.SRT.endswith("explanations.\n        ")


def _answer(path) -> SpokenAnswer:
    seconds = sf.info(str(path)).duration
    return SpokenAnswer("she sells sea shells", "She sells sea shells.", {
        "path": str(path), "sample_rate": 16000, "seconds": seconds,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}, "asr")


def _task(judge, tmp_path, cache: str = "j.sqlite") -> TaskScoring:
    metadata = {**yaml_metadata(data.DATA.folder / f"{TASK}.yaml"), "judge_base_url": judge.base_url,
                "judge_cache": str(tmp_path / cache), "judge_concurrency": 1, "judge_max_parse_attempts": 1}
    return TaskScoring(TASK, metadata, judge=judge_of(TASK, metadata))


def test_the_judge_hears_each_answer_and_the_score_is_twenty_times_the_mean(tmp_path):
    from scripted_judge import ScriptedJudge

    docs = data.load_docs(data.SUBSETS["SRT-en"], {}, True, notes=DataNotes())
    wav = tmp_path / "answer.wav"
    sf.write(wav, tone(1.2, seed=3), 16000, subtype="PCM_16")
    with ScriptedJudge(models=("gemini-2.0-flash",), reply=lambda prompt: "4") as judge:
        task = _task(judge, tmp_path)
        # the first document answered in speech; the second's answer failed (nothing to hear): 0, kept in N
        items = [scoring.process_results(docs[0], [_answer(wav)], task)[scoring.SCORE],
                 scoring.process_results(docs[1], [""], task)[scoring.SCORE]]
        assert scoring.urobench_score(items, task) == pytest.approx((4 * 20 + 0) / 2)  # sum(score) * 20 / length
        (body,) = list(judge.requests)
    # mark_gemini.py:55-62: contents=[prompt, the wav]; no system instruction; Gemini's default sampling
    assert body["model"] == "gemini-2.0-flash" and body["temperature"] == 1.0 and "top_p" not in body
    (message,) = body["messages"]
    text, audio = message["content"]
    assert text == {"type": "text", "text": prompts.SRT.replace("{question}", docs[0]["question"])}
    assert audio == {"type": "input_audio", "input_audio": {
        "data": base64.b64encode(wav.read_bytes()).decode("ascii"), "format": "wav"}}
    # the judge's log names the clip (path, sha256), never its bytes
    (record,) = [r for r in task.judge_records if r["uniq_id"] == docs[0]["uniq_id"]]
    assert record["messages"][0]["content"][1] == {"type": "audio_file", "path": str(wav),
                                                   "sha256": hashlib.sha256(wav.read_bytes()).hexdigest()}
    assert audio["input_audio"]["data"][:64] not in json.dumps(task.judge_records)


def test_the_same_answer_saved_elsewhere_is_read_from_the_cache_and_a_changed_one_fails(tmp_path):
    from scripted_judge import ScriptedJudge

    (doc, _) = data.load_docs(data.SUBSETS["SRT-en"], {}, True, notes=DataNotes())
    first, moved = tmp_path / "run1.wav", tmp_path / "run2.wav"
    sf.write(first, tone(0.8, seed=4), 16000, subtype="PCM_16")
    shutil.copy(first, moved)
    with ScriptedJudge(models=("gemini-2.0-flash",), reply=lambda prompt: "3") as judge:
        item = scoring.process_results(doc, [_answer(first)], _task(judge, tmp_path))[scoring.SCORE]
        assert scoring.urobench_score([item], _task(judge, tmp_path)) == 60.0
        again = scoring.process_results(doc, [_answer(moved)], _task(judge, tmp_path))[scoring.SCORE]
        assert scoring.urobench_score([again], _task(judge, tmp_path)) == 60.0
        assert len(judge.requests) == 1  # the clip is keyed by its content, not its path
        changed = _answer(moved)
        sf.write(moved, tone(0.8, seed=5), 16000, subtype="PCM_16")  # changed on disk after it was saved
        task = _task(judge, tmp_path, "fresh.sqlite")  # a cache without this answer's verdict
        item = scoring.process_results(doc, [changed], task)[scoring.SCORE]
        assert scoring.judge_failures([item], task) == 1 and len(judge.requests) == 1  # never sent
    (record,) = task.judge_records
    assert "is not the file given to the judge" in record["error"]
