"""AIR-Bench through the real CLI: lm_eval and lm-eval-audio judge in subprocesses, the
judge a scripted local OpenAI-compatible server (tests/scripted_judge.py)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import BIN, REPO, results_json, run_cli
from scripted_judge import DEFAULT_PAIR, ScriptedJudge

SAMPLE = REPO / "tasks" / "airbench" / "sample_data"
SECRET = "sk-lm-eval-audio-test-SECRET"
NO_JUDGE = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
N_FOUNDATION, N_CHAT = 35, 6
JUDGE_CALLS = N_FOUNDATION + 2 * N_CHAT  # one alignment per item, two chat passes per item


def _ok(proc):
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def _expected_gpt_align() -> float:
    """The scripted judge answers "A" for every alignment: accuracy is the share of items
    whose right option is A, read from the meta file."""
    meta = json.loads((SAMPLE / "Foundation" / "Foundation_meta.json").read_text())
    return sum(item["answer_gt"] == item["choice_a"] for item in meta) / len(meta)


def _judge_env(judge, cache, **extra):
    return {**NO_JUDGE, "OPENAI_BASE_URL": judge.base_url, "OPENAI_API_KEY": SECRET,
            "LM_EVAL_AUDIO_JUDGE_CACHE": str(cache), "LM_EVAL_AUDIO_JUDGE_RETRY_BASE_SECONDS": "0.01", **extra}


@pytest.fixture(scope="module")
def predicted(tiny_qwen2_audio, tmp_path_factory) -> list[Path]:
    """One --predict_only run of airbench_sample: the samples the judge tests score."""
    out = tmp_path_factory.mktemp("predicted")
    _ok(run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                 "--tasks", "airbench_sample", "--batch_size", "8", "--output_path", str(out),
                 "--gen_kwargs", "max_gen_toks=16",  # a random-weight model never stops by itself
                 "--predict_only", "--log_samples"], env_extra=NO_JUDGE))
    samples = sorted(out.rglob("samples_*.jsonl"))
    assert [p.name.split("_2")[0] for p in samples] == ["samples_airbench_sample_chat", "samples_airbench_sample_foundation"]
    return samples


def _judge_cmd(samples, out):
    return ["lm-eval-audio", "judge", *map(str, samples), "--output_path", str(out)]


def _metrics(res, task):
    return {k.split(",")[0]: v for k, v in res["results"][task].items() if k.endswith(",none")}


def test_two_phase_judge_exact_scores_logs_settings_and_no_key(predicted, tmp_path):
    cache = tmp_path / "judge.sqlite"
    with ScriptedJudge() as judge:
        _ok(run_cli(_judge_cmd(predicted, tmp_path / "judged"), env_extra=_judge_env(judge, cache)))
        assert len(judge.requests) == JUDGE_CALLS
        assert judge.authorization == {f"Bearer {SECRET}"}
        res = results_json(tmp_path / "judged")
        foundation, chat = _metrics(res, "airbench_sample_foundation"), _metrics(res, "airbench_sample_chat")
        assert foundation["gpt_align"] == pytest.approx(_expected_gpt_align())
        assert foundation["gpt_align_judge_failures"] == 0 and foundation["audio_missing"] == 0
        assert "exact_match" in foundation and "format_followed" in foundation
        # per audio folder beside the pooled task score, as score_foundation.py prints it
        folders = res["lm_eval_audio_data"]["airbench_folder_accuracy"]["airbench_sample_foundation"]["gpt_align"]
        assert sum(f["items"] for f in folders.values()) == N_FOUNDATION and len(folders) > 1
        pooled = sum(f["accuracy"] * f["items"] for f in folders.values()) / N_FOUNDATION
        assert pooled == pytest.approx(foundation["gpt_align"])
        # "8 6" in both passes: the model gets 6 (second) then 8 (first); it wins the second pass only.
        first, second = map(float, DEFAULT_PAIR.split())
        assert chat["score"] == pytest.approx((second + first) / 2)
        assert chat["reference_score"] == pytest.approx((first + second) / 2)
        assert chat["win_rate"] == pytest.approx(0.5) and chat["judge_failures"] == 0
        # the samples carry each judged score under its metric's name (lm-eval logged the document there)
        logged = {p.name.split("_2")[0]: [json.loads(x) for x in p.read_text().splitlines()]
                  for p in (tmp_path / "judged").rglob("samples_*.jsonl")}
        found = logged["samples_airbench_sample_foundation"]
        assert all(s["gpt_align"] in (0.0, 1.0) and s["gpt_align"] == s["item_scores"]["gpt_align"] for s in found)
        assert sum(s["gpt_align"] for s in found) / len(found) == pytest.approx(foundation["gpt_align"])
        assert all(s["score"] == pytest.approx((second + first) / 2) for s in logged["samples_airbench_sample_chat"])
        settings = res["lm_eval_audio_judge"]["airbench_sample_chat"]
        assert settings["judge"]["model"] == "gpt-4-0125-preview" and settings["judge"]["temperature"] == 0.0
        assert settings["prompt_version"].startswith("airbench-official@983247666e2a")
        assert settings["calls"] == 2 * N_CHAT and settings["cache_hits"] == 0

        logs = {p.name.split("_2")[0]: [json.loads(x) for x in p.read_text().splitlines()]
                for p in (tmp_path / "judged").rglob("judge_log_*.jsonl")}
        assert len(logs["judge_log_airbench_sample_foundation"]) == N_FOUNDATION
        chat_log = logs["judge_log_airbench_sample_chat"]
        assert len(chat_log) == 2 * N_CHAT and {e["pass"] for e in chat_log} == {"reference_first", "model_first"}
        entry = chat_log[0]
        assert {"doc_id", "uniq_id", "messages", "replies", "parsed", "cache", "judge_model"} <= set(entry)
        assert entry["replies"] == [DEFAULT_PAIR] and entry["cache"] == ["miss"]

        # The same samples again: every verdict comes from the cache, in a new process.
        _ok(run_cli(_judge_cmd(predicted, tmp_path / "again"), env_extra=_judge_env(judge, cache)))
        assert len(judge.requests) == JUDGE_CALLS
    again = results_json(tmp_path / "again")
    assert again["results"] == res["results"]
    assert again["lm_eval_audio_judge"]["airbench_sample_foundation"]["cache_hits"] == N_FOUNDATION
    for path in [*tmp_path.rglob("*.json*"), cache]:
        assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.slow  # a killed run and its resumption: about 25 s
def test_a_killed_judge_run_resumes_without_asking_again(predicted, tmp_path):
    cache = tmp_path / "judge.sqlite"
    with ScriptedJudge(latency=0.1) as judge:
        env = {**_judge_env(judge, cache, LM_EVAL_AUDIO_JUDGE_CONCURRENCY="1"), "HF_HUB_OFFLINE": "1"}
        import os

        proc = subprocess.Popen([str(BIN / "lm-eval-audio"), *_judge_cmd(predicted, tmp_path / "killed")[1:]],
                                cwd=REPO, env={**os.environ, **env},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while judge.completed < 12 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with sqlite3.connect(cache) as db:
            answered = db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        assert 10 <= answered < JUDGE_CALLS  # the reply in flight at the kill may be lost
        before = len(judge.requests)
        _ok(run_cli(_judge_cmd(predicted, tmp_path / "resumed"), env_extra=env))
        assert len(judge.requests) - before == JUDGE_CALLS - answered  # only what was never answered
    res = results_json(tmp_path / "resumed")
    assert _metrics(res, "airbench_sample_foundation")["gpt_align"] == pytest.approx(_expected_gpt_align())


def test_retries_and_judge_failures_are_counted_and_named(predicted, tmp_path):
    meta = json.loads((SAMPLE / "Chat" / "Chat_meta.json").read_text())
    stubborn = meta[0]  # the judge never answers this item in the asked format

    def reply(prompt):
        if prompt.startswith("You are a helpful") and f"[Question]\n{stubborn['question']}\n" in prompt:
            return "Both answers are fine."
        return "A" if not prompt.startswith("You are a helpful") else DEFAULT_PAIR

    faults = [(429, {"Retry-After": "0"}), (502, {}), (503, {})]
    with ScriptedJudge(reply=reply, faults=faults) as judge:
        env = _judge_env(judge, tmp_path / "judge.sqlite", LM_EVAL_AUDIO_JUDGE_MAX_PARSE_ATTEMPTS="2")
        proc = _ok(run_cli(_judge_cmd(predicted, tmp_path / "judged"), env_extra=env))
    res = results_json(tmp_path / "judged")
    chat = _metrics(res, "airbench_sample_chat")
    assert chat["judge_failures"] == 1 and chat["score"] == pytest.approx(7.0)  # over the other five
    summary = res["lm_eval_audio_judge"]
    assert summary["airbench_sample_chat"]["unjudged_items"] == [str(stubborn["uniq_id"])]
    assert sum(s["retries"] for s in summary.values()) == len(faults)
    assert f"could not be judged (uniq_id {stubborn['uniq_id']})" in proc.stderr


def test_chat_without_a_judge_refuses_before_the_model_runs(tiny_qwen2_audio):
    """The real airbench_chat (here on the sample's files) never falls back to the smoke-test judge."""
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                    "--tasks", "airbench_chat"], env_extra={**NO_JUDGE, "AIRBENCH_DATA_DIR": str(SAMPLE)})
    assert proc.returncode != 0
    assert "no judge is configured" in proc.stderr
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LM_EVAL_AUDIO_JUDGE_MODEL", "lm-eval-audio judge"):
        assert name in proc.stderr
    assert "Running generate_until" not in proc.stderr


def test_foundation_without_a_judge_reports_exact_match_only(predicted, tmp_path):
    # The sample's smoke-test judge switched off, as for any judge-optional task with no judge.
    no_smoke_test = ["--metadata", json.dumps({"smoke_test_judge": None})]
    proc = _ok(run_cli(_judge_cmd(predicted[1:], tmp_path / "judged") + no_smoke_test, env_extra=NO_JUDGE))
    assert "AIR-Bench foundation: exact_match, without gpt_align" in proc.stderr
    metrics = _metrics(results_json(tmp_path / "judged"), "airbench_sample_foundation")
    assert "gpt_align" not in metrics
    assert {"exact_match", "format_followed", "exact_match_rule_parsed", "exact_match_official"} <= set(metrics)


def test_judge_scores_the_documents_a_limited_run_answered(predicted, tmp_path):
    run = tmp_path / "limited"
    run.mkdir()
    for path in predicted:  # as if the run had used --limit 5 for foundation
        lines = path.read_text().splitlines()
        (run / path.name).write_text("\n".join(lines[:5] if "foundation" in path.name else lines) + "\n")
    with ScriptedJudge() as judge:
        _ok(run_cli(_judge_cmd(sorted(run.glob("*.jsonl")), tmp_path / "judged"),
                    env_extra=_judge_env(judge, tmp_path / "judge.sqlite")))
    res = results_json(tmp_path / "judged")
    assert res["n-samples"]["airbench_sample_foundation"]["effective"] == 5
    assert res["n-samples"]["airbench_sample_chat"]["effective"] == N_CHAT


def test_replay_refuses_answers_whose_document_changed(predicted, tmp_path):
    edited = tmp_path / predicted[1].name
    lines = predicted[1].read_text().splitlines()
    sample = json.loads(lines[3])
    sample["doc"]["question"] = "A question the model never heard?"
    lines[3] = json.dumps(sample)
    edited.write_text("\n".join(lines) + "\n")
    proc = run_cli(_judge_cmd([edited], tmp_path / "judged"), env_extra=NO_JUDGE)
    assert proc.returncode != 0
    assert "lm-eval-audio judge: error: task airbench_sample_foundation, doc_id 3: the document differs" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_full_groups_on_a_partial_snapshot_with_missing_audio(tiny_qwen2_audio, tmp_path):
    """The paper's task names on any official-layout snapshot: here the synthetic one, with
    a folder removed, one clip deleted and one emptied."""
    root = tmp_path / "snapshot"
    shutil.copytree(SAMPLE, root)
    shutil.rmtree(root / "Foundation" / "Music_Midi_Velocity_Analysis_lm_eval_audio_synthetic")
    meta = json.loads((root / "Foundation" / "Foundation_meta.json").read_text())
    lid = next(i for i in meta if i["task_name"] == "Spoken_Language_Identification")
    gender = next(i for i in meta if i["task_name"] == "Speaker_Gender_Recognition")
    (root / "Foundation" / f"Spoken_Language_Identification_{lid['dataset_name']}" / lid["path"]).unlink()
    (root / "Foundation" / f"Speaker_Gender_Recognition_{gender['dataset_name']}" / gender["path"]).write_bytes(b"")
    with ScriptedJudge() as judge:
        proc = _ok(run_cli(
            ["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
             "--tasks", "airbench_foundation,airbench_chat", "--batch_size", "8",
             "--gen_kwargs", "max_gen_toks=16",  # a random-weight model never stops by itself
             "--output_path", str(tmp_path / "out"), "--log_samples"],
            env_extra={**_judge_env(judge, tmp_path / "judge.sqlite"), "AIRBENCH_DATA_DIR": str(root)}))
    res = results_json(tmp_path / "out")
    assert {"airbench_foundation", "airbench_foundation_speech", "airbench_chat", "airbench_chat_mixed"} <= set(res["groups"])
    assert "airbench_foundation_music_midi_velocity_analysis" not in res["results"]
    # the number's row says it averages fewer tasks than the benchmark has (the synthetic sample holds 6 of the
    # 19 foundation tasks and 5 of the 8 chat tasks; one foundation folder is removed above)
    assert re.search(r"^\|\s*airbench_foundation \(PARTIAL: 5 of 19 tasks\)\s*\|", proc.stdout, re.M)
    assert re.search(r"^\|\s*- airbench_foundation_music \(PARTIAL: 1 of 6 tasks\)\s*\|", proc.stdout, re.M)
    assert re.search(r"^\|\s*airbench_chat \(PARTIAL: 5 of 8 tasks\)\s*\|", proc.stdout, re.M)
    for group, counts in (("airbench_foundation", (5, 19)), ("airbench_foundation_music", (1, 6)),
                          ("airbench_chat", (5, 8))):
        entry = res["groups"][group]
        assert (entry["tasks_present,none"], entry["tasks_listed,none"]) == counts
    assert "Music_Midi_Velocity_Analysis_lm_eval_audio_synthetic is missing" in proc.stderr and "its 6 item(s)" in proc.stderr
    assert f"uniq_id {lid['uniq_id']}: missing audio file" in proc.stderr
    assert f"uniq_id {gender['uniq_id']}: empty audio file" in proc.stderr
    gaps = res["lm_eval_audio_data"]
    assert gaps["airbench_missing_folders"]["Foundation/Music_Midi_Velocity_Analysis_lm_eval_audio_synthetic"]["items"] == 6
    assert set(gaps["airbench_unusable_audio"]) == {
        f"Foundation/Spoken_Language_Identification/{lid['uniq_id']}",
        f"Foundation/Speaker_Gender_Recognition/{gender['uniq_id']}"}
    lid_metrics = _metrics(res, "airbench_foundation_spoken_language_identification")
    assert lid_metrics["audio_missing"] == 1 and res["n-samples"]["airbench_foundation_spoken_language_identification"]["effective"] == 8
    assert _metrics(res, "airbench_foundation_speaker_gender_recognition")["audio_missing"] == 1
    categories = [res["groups"][f"airbench_foundation_{c}"]["gpt_align,none"] for c in ("speech", "sound", "music")]
    assert res["groups"]["airbench_foundation"]["gpt_align,none"] == pytest.approx(sum(categories) / 3)
