"""A judged run killed with SIGKILL, once while the model answers and once while the judge
scores, then started again with the same command: it finishes with the results of a run
never interrupted, and asks neither the model nor the judge again for what it already had.

The model is ``openai-audio`` against one scripted server and the judge another, so every
call either makes is counted. Both are called with an API key, which no file the runs wrote holds."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import BIN, REPO, results_json
from scripted_judge import DEFAULT_PAIR, SERVED_MODELS, ScriptedJudge

N_ITEMS = 35 + 6  # airbench_sample: foundation and chat documents, one request each
JUDGE_CALLS = 35 + 2 * 6  # one alignment per foundation item, two passes per chat item
KEY = "sk-lm-eval-audio-resume-SECRET"


def _pick(prompt: str, options: str) -> str:
    """A fixed answer per prompt that differs between prompts, so a result mixed up between
    items would show."""
    return options[hashlib.sha256(prompt.encode()).digest()[0] % len(options)]


def _model_reply(prompt: str) -> str:
    return _pick(prompt, "ABCD")


def _judge_reply(prompt: str) -> str:
    if prompt.startswith("You are a helpful and precise assistant"):
        return DEFAULT_PAIR
    return _pick(prompt, "AB")


def _command(model, out: Path, cache: Path) -> list[str]:
    return [str(BIN / "lm_eval"), "--model", "openai-audio", "--model_args",
            f"base_url={model.base_url},model=served-audio-lm,num_concurrent=1,retry_base_seconds=0.01",
            "--tasks", "airbench_sample", "--output_path", str(out), "--log_samples", "--use_cache", str(cache)]


def _env(judge, judge_cache: Path) -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": judge.base_url, "LM_EVAL_AUDIO_JUDGE_CACHE": str(judge_cache),
            "LM_EVAL_AUDIO_JUDGE_CONCURRENCY": "1", "LM_EVAL_AUDIO_JUDGE_RETRY_BASE_SECONDS": "0.01"}


def _run(cmd, env) -> None:
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert KEY not in proc.stdout + proc.stderr


def _kill_when(cmd, env, server, calls: int) -> None:
    """Start the command and SIGKILL it once ``server`` has answered ``calls`` more requests."""
    target = server.completed + calls
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while server.completed < target and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before the kill"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _rows(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _scored(out: Path) -> tuple[dict, dict]:
    """The results, and every logged sample's response and scores by task and document."""
    res = results_json(out)
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name.split("_2")[0]
        for line in path.read_text().splitlines():
            s = json.loads(line)
            samples[(task, s["doc_id"])] = (s["filtered_resps"], s.get("item_scores"),
                                                           {k: s[k] for k in ("exact_match", "gpt_align") if k in s})
    return res["results"], samples


@pytest.mark.slow
def test_a_run_killed_while_answering_and_while_judging_resumes_to_the_same_results(tmp_path):
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=_model_reply, latency=0.05) as model, \
            ScriptedJudge(reply=_judge_reply, latency=0.05) as judge:
        # The reference: one run, never interrupted.
        _run(_command(model, tmp_path / "reference", tmp_path / "ref_cache"), _env(judge, tmp_path / "ref_judge.sqlite"))
        # Items that ask the judge the very same question are asked once.
        judge_calls = len(judge.requests)
        assert len(model.requests) == N_ITEMS and judge_calls == _rows(tmp_path / "ref_judge.sqlite", "replies")
        assert JUDGE_CALLS - 8 <= judge_calls <= JUDGE_CALLS

        env = _env(judge, tmp_path / "judge.sqlite")
        cmd = _command(model, tmp_path / "resumed", tmp_path / "cache")
        requests_db = tmp_path / "cache_rank0.db"
        asked, judged = len(model.requests), len(judge.requests)

        # 1. Killed while the model answers: the answers so far are in the request cache.
        _kill_when(cmd, env, model, 15)
        kept = _rows(requests_db, "unnamed")
        assert 14 <= kept < N_ITEMS  # the answer in flight at the kill may be lost
        assert len(judge.requests) == judged  # the judge had not started

        # 2. Started again, killed while judging: the model is asked only for what was not kept.
        asked = len(model.requests)
        _kill_when(cmd, env, judge, 20)
        assert len(model.requests) - asked == N_ITEMS - kept
        model_calls = len(model.requests)
        verdicts = _rows(tmp_path / "judge.sqlite", "replies")
        assert 19 <= verdicts < judge_calls

        # 3. Started again: no model call at all, and only the verdicts never received.
        judged = len(judge.requests)
        _run(cmd, env)
        assert len(model.requests) == model_calls
        assert len(judge.requests) - judged == judge_calls - verdicts

    reference, resumed = _scored(tmp_path / "reference"), _scored(tmp_path / "resumed")
    assert resumed[0] == reference[0]
    assert len(resumed[1]) == N_ITEMS and resumed[1] == reference[1]

    # The key both the model server and the judge were called with is in no file the runs wrote:
    # results, sample and judge logs, the request cache, the judge cache (and its WAL).
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 12 and any(p.name.startswith("judge_log_") for p in written)
    assert model.authorization == judge.authorization == {f"Bearer {KEY}"}
    for path in written:
        try:
            content = path.read_bytes()
        except FileNotFoundError:  # a WAL checkpointed into its database (read here too) once its last connection closed
            continue
        assert KEY.encode() not in content, path
