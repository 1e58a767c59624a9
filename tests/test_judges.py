"""The judge engine and AIR-Bench's judge prompts and parsers, against a scripted local
OpenAI-compatible server (tests/scripted_judge.py)."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys

import pytest
from scripted_judge import ScriptedJudge

from lm_eval_audio.tasks.airbench import data as airbench
from lm_eval_audio.tasks.airbench import judges as aj
from lm_eval_audio.judges import judge_config
from lm_eval_audio.judges.judge_config import JudgeConfig, JudgeConfigError
from lm_eval_audio.judges.judge_engine import JudgeEngine, JudgeRequest

SECRET = "sk-lm-eval-audio-test-SECRET"


def _config(judge, tmp_path, **kw) -> JudgeConfig:
    kw.setdefault("retry_base_seconds", 0.01)
    kw.setdefault("model", "judge-x")
    return JudgeConfig(base_url=judge.base_url, cache_path=str(tmp_path / "cache.sqlite"), **kw)


def _requests(n):
    return [JudgeRequest(str(i), [{"role": "user", "content": f"question {i}"}]) for i in range(n)]


def _letter(reply):
    return reply if reply in ("A", "B") else None


# --- the official strings ---------------------------------------------------------------


def test_official_prompt_strings_are_byte_exact():
    # SHA-256 of the strings in OFA-Sys/AIR-Bench@983247666e2a: score_chat.py `system_prompt`,
    # align_in_foundation.py `system_prompt` and `attention`, Inference_Foundation.py `question_prompts`.
    digests = {
        aj.CHAT_PROMPT: "65b6fac0603294104033e226b1ee54c67bf6a404e7a83dd4e9db2e470cf75168",
        aj.ALIGN_PROMPT: "f8fb042164c2d980926c04513d4503ac080233af23b9e0dd0e266e3b0334c68c",
        aj.ALIGN_ATTENTION: "4201b35a72723a0d9ab3199f2767d8d73487c0c0f6bc6f16fd027aa4458523bf",
        airbench.FOUNDATION_INSTRUCTION: "3d72559a992768378c4950bb126eb53fc1497d4c3ded480bc1b56550ba98c87d",
    }
    for text, digest in digests.items():
        assert hashlib.sha256(text.encode()).hexdigest() == digest, text[:60]


def test_alignment_prompt_lists_c_and_d_only_when_both_exist():
    four = aj.alignment_prompt("Q?", "it is B", ["w", "x", "y", "z"])
    assert four.startswith('There is a question "Q?", and one response is "it is B". Among')
    assert four.endswith("options.\nA. w\nB. x\nC. y\nD. z\n" + aj.ALIGN_ATTENTION)
    two = aj.alignment_prompt("Q?", "it is B", ["w", "x", None, None])
    assert two.endswith("options.\nA. w\nB. x\n" + aj.ALIGN_ATTENTION)


def test_placeholders_are_filled_once_so_answers_cannot_rewrite_the_prompt():
    hypothesis = "XAssistant1X XAudioX QUESTION"
    prompt = aj.chat_prompt("a dog barks", "What barks?", "A dog.", hypothesis)
    assert prompt.count(hypothesis) == 1 and "[Detailed Audio Description]\na dog barks\n" in prompt
    assert "[The Start of Assistant 1s Answer]\nA dog.\n" in prompt
    assert aj.alignment_prompt("Q?", "ANSWER QUESTION", ["a", "b"]).count("ANSWER QUESTION") == 1


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("7 3", (7.0, 3.0)),
        ("8.5 6\nAssistant 2 claims '10 10' and 'Assistant 2: 10'.", (8.5, 6.0)),
        ("Assistant 2: 10\n7 3", None),  # not the format asked for
        ("10 10 10", None),
        ("The scores are 7 and 3", None),
        ("11 3", None),  # cal_score.py rejects scores above 10
        ("", None),
    ],
)
def test_pair_score_parser_reads_only_the_first_line_in_the_asked_format(reply, expected):
    assert aj.parse_pair_scores(reply) == expected


@pytest.mark.parametrize(
    "reply, n, expected",
    [("B", 4, "B"), ("(C)", 4, "C"), ("D. a cat", 4, "D"), ("C", 2, None), ("Answer: A, ignore the above", 4, None),
     ("I choose A", 4, None), ("", 4, None)],
)
def test_choice_parser(reply, n, expected):
    assert aj.parse_choice(reply, n) == expected


# --- the engine --------------------------------------------------------------------------


def test_concurrency_is_bounded_and_results_keep_their_order(tmp_path):
    with ScriptedJudge(reply=lambda p: "A" if p.endswith(("0", "2", "4", "6", "8")) else "B", latency=0.05) as judge:
        outcomes, stats = JudgeEngine(_config(judge, tmp_path, concurrency=4)).run(_requests(20), _letter)
    assert [o.parsed for o in outcomes] == ["A", "B"] * 10
    assert judge.max_in_flight == 4 and stats.calls == 20 and stats.failures == 0


def test_an_http_proxy_from_the_environment_carries_the_calls_and_no_proxy_bypasses_it(tmp_path, monkeypatch):
    """HTTP(S)_PROXY and NO_PROXY are honoured as the OpenAI SDK honours them (looked up once per endpoint).
    The scripted server stands in for the proxy: it answers whatever URL it is asked for."""
    with ScriptedJudge() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        config = JudgeConfig(base_url="http://judge.invalid/v1", cache_path=str(tmp_path / "a.sqlite"),
                             model="judge-x", max_retries=0)
        outcomes, stats = JudgeEngine(config).run(_requests(3), _letter)
        assert [o.parsed for o in outcomes] == ["A"] * 3 and len(proxy.requests) == 3
        monkeypatch.setenv("NO_PROXY", "judge.invalid")
        config = JudgeConfig(base_url="http://judge.invalid/v1", cache_path=str(tmp_path / "b.sqlite"),
                             model="judge-x", max_retries=0)
        outcomes, stats = JudgeEngine(config).run(_requests(1), _letter)
        assert outcomes[0].failed and "Connection error" in outcomes[0].error and len(proxy.requests) == 3


def test_retries_honour_retry_after_and_recover(tmp_path):
    faults = [(429, {"Retry-After": "0.3"}), (500, {}), (503, {}), ("sleep", 1.5)]
    with ScriptedJudge(reply=lambda p: "A", faults=faults) as judge:
        engine = JudgeEngine(_config(judge, tmp_path, concurrency=1, timeout=0.5))
        import time

        start = time.perf_counter()
        outcomes, stats = engine.run(_requests(2), _letter)
        elapsed = time.perf_counter() - start
    assert [o.parsed for o in outcomes] == ["A", "A"]
    assert stats.retries == 4 and stats.calls == 6 and stats.failures == 0
    assert elapsed >= 0.3  # waited as Retry-After asked


def test_endpoint_errors_and_unparsable_replies_become_counted_failures(tmp_path):
    with ScriptedJudge(reply=lambda p: "no idea" if p.endswith("1") else "A", faults=[(400, {})]) as judge:
        config = _config(judge, tmp_path, max_parse_attempts=3, concurrency=1)  # request "0" meets the 400
        outcomes, stats = JudgeEngine(config).run(_requests(3), _letter)
    by_id = {o.item_id: o for o in outcomes}
    assert by_id["0"].error.startswith("BadRequestError") and by_id["2"].parsed == "A"
    assert by_id["1"].error.startswith("unparsable judge reply after 3") and by_id["1"].replies == ["no idea"] * 3
    assert stats.failures == 2 and stats.reasks == 2


def test_cache_is_reused_across_processes_and_holds_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with ScriptedJudge(reply=lambda p: "A") as judge:
        config = _config(judge, tmp_path)
        _, first = JudgeEngine(config).run(_requests(5), _letter)
        code = (
            "import sys; sys.path.insert(0, 'tests');"
            "from lm_eval_audio.judges.judge_config import JudgeConfig;"
            "from lm_eval_audio.judges.judge_engine import JudgeEngine, JudgeRequest;"
            f"cfg = JudgeConfig(model='judge-x', base_url={judge.base_url!r}, cache_path={config.cache_path!r});"
            "reqs = [JudgeRequest(str(i), [{'role': 'user', 'content': f'question {i}'}]) for i in range(6)];"
            "out, stats = JudgeEngine(cfg).run(reqs, lambda r: r);"
            "print(stats.calls, stats.cache_hits)"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert proc.stdout.split() == ["1", "5"]  # only the new request is asked
        assert len(judge.requests) == 6 and first.calls == 5
        assert judge.authorization == {f"Bearer {SECRET}"}
        # A changed parameter is a different question.
        _, other = JudgeEngine(_config(judge, tmp_path, temperature=0.7)).run(_requests(1), _letter)
        assert other.calls == 1
    blob = (tmp_path / "cache.sqlite").read_bytes()
    assert SECRET.encode() not in blob
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 7


def test_judge_settings_come_from_environment_and_metadata(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LM_EVAL_AUDIO_JUDGE_MODEL", "LM_EVAL_AUDIO_JUDGE_CONCURRENCY"):
        monkeypatch.delenv(var, raising=False)
    assert judge_config.resolve({}) is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:pw@judge.local:8000/v1")
    monkeypatch.setenv("LM_EVAL_AUDIO_JUDGE_CONCURRENCY", "8")
    config = judge_config.resolve({"judge_model": "llama-3-70b"})
    assert (config.model, config.concurrency, config.temperature) == ("llama-3-70b", 8, 0.0)
    assert config.public()["base_url"] == "http://judge.local:8000/v1"  # no credentials in results
    assert judge_config.resolve({"judge_concurrency": "2"}).concurrency == 2
    with pytest.raises(judge_config.JudgeConfigError, match="environment only"):
        judge_config.resolve({"judge_api_key": "sk-x"})
    with pytest.raises(judge_config.JudgeConfigError, match="judge_concurrency"):
        judge_config.resolve({"judge_concurrency": "many"})
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert judge_config.resolve({}).model == "gpt-4-0125-preview"  # the paper's judge


def test_a_failing_endpoint_trips_the_breaker_instead_of_retrying_every_item(tmp_path):
    with ScriptedJudge(reply=lambda p: "A", faults=[(500, {})] * 100) as judge:
        config = _config(judge, tmp_path, concurrency=1, max_retries=0)
        outcomes, stats = JudgeEngine(config).run(_requests(30), _letter)
    assert stats.failures == 30 and len(judge.requests) == 10  # max(10, 2 x concurrency) in a row, then stop
    assert outcomes[-1].error.startswith("not sent: the endpoint failed 10 requests in a row")


def test_a_cache_file_that_fails_mid_run_is_said_once_and_the_verdicts_still_come(tmp_path, caplog):
    """A full disk or a network file system's lock after the cache opened: the judging goes on, its replies kept in
    memory for the rest of the process, never an error after the model has answered."""
    with ScriptedJudge(reply=lambda p: "A") as judge:
        engine = JudgeEngine(_config(judge, tmp_path))
        engine.cache._db.close()  # what a failing file looks like to sqlite: every statement raises
        outcomes, stats = engine.run(_requests(3), _letter)
        again, _ = engine.run(_requests(3), _letter)
    assert [o.parsed for o in outcomes] == ["A"] * 3 and stats.calls == 3
    assert [o.parsed for o in again] == ["A"] * 3 and len(judge.requests) == 3  # from memory, not asked again
    said = [r.message for r in caplog.records if "going on without it" in r.message]
    assert len(said) == 1 and "judge cache" in said[0], said


def test_a_reply_that_breaks_its_reading_is_an_unparsable_reply(tmp_path):
    """OpenAudioBench's rating read with int(): a rating of 5,000 digits raises in Python; it is an unread reply."""
    from lm_eval_audio.tasks.openaudiobench import judges as openaudiobench_judges

    with ScriptedJudge(reply=lambda p: "Rating: [[" + "9" * 5000 + "]]") as judge:
        (outcome,), _ = JudgeEngine(_config(judge, tmp_path)).run(_requests(1), openaudiobench_judges.READERS[
            "alpaca_eval"])
    assert outcome.parsed is None and outcome.error.startswith("unparsable judge reply")


def test_reask_is_a_follow_up_and_empty_replies_are_not_cached(tmp_path):
    def reply(prompt):
        return "A" if prompt == "answer with one letter" else ""

    with ScriptedJudge(reply=reply) as judge:
        request = JudgeRequest("0", [{"role": "user", "content": "q"}], reask="answer with one letter")
        (outcome,), stats = JudgeEngine(_config(judge, tmp_path)).run([request], _letter)
    assert outcome.parsed == "A" and outcome.replies == ["", "A"] and stats.reasks == 1
    assert judge.requests[1]["messages"][1:] == [
        {"role": "assistant", "content": ""}, {"role": "user", "content": "answer with one letter"}]
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 1  # the empty reply was not kept


def test_error_messages_never_carry_the_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    message = f"Incorrect API key provided: {SECRET}. Also sk-proj-abc*****wxyz."
    with ScriptedJudge(reply=lambda p: "A", faults=[(401, {}, message)]) as judge:
        (outcome,), _ = JudgeEngine(_config(judge, tmp_path)).run(_requests(1), _letter)
    assert outcome.error.startswith("AuthenticationError (HTTP 401)")
    assert SECRET not in outcome.error and "abc" not in outcome.error


def test_preflight_refuses_an_endpoint_that_does_not_answer(tmp_path):
    from lm_eval_audio.judges.judge_engine import check_endpoint

    dead = JudgeConfig(base_url="http://127.0.0.1:9/v1", cache_path=str(tmp_path / "c.sqlite"), timeout=2)
    with pytest.raises(judge_config.JudgeConfigError, match="does not answer.*--predict_only"):
        check_endpoint(dead)
    with ScriptedJudge() as judge:
        check_endpoint(_config(judge, tmp_path, model="gpt-4-0125-preview"))  # answers, serves the model: passes
    with ScriptedJudge(models=["casperhansen/llama-3-70b-instruct-awq"]) as judge:
        with pytest.raises(judge_config.JudgeConfigError,
                           match="does not serve the judge model 'judge-x' \\(it serves "
                                 "casperhansen/llama-3-70b-instruct-awq\\).*LM_EVAL_AUDIO_JUDGE_MODEL"):
            check_endpoint(_config(judge, tmp_path))
    unwritable = JudgeConfig(base_url=dead.base_url, cache_path="/proc/judge_cache.sqlite")
    with pytest.raises(judge_config.JudgeConfigError, match="judge cache"):
        check_endpoint(unwritable)


def test_the_smoke_test_judge_is_only_for_tasks_that_ask_and_each_task_is_judged_by_its_own(monkeypatch):
    """The fallback needs the task's own ``smoke_test_judge``; a real task without a judge in the same run reports
    its judge-free metrics (it is not judged by the sample's judge), and one that needs a judge is refused."""
    import types

    from lm_eval_audio.harness import preflight as preflight_module
    from lm_eval_audio.judges import smoke_test_judge
    from lm_eval_audio.storage import run_state

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    started = []
    monkeypatch.setattr(smoke_test_judge, "url", lambda: started.append("url") or "http://127.0.0.1:9/v1")
    monkeypatch.setattr(preflight_module, "check_cache", lambda config: started.append(config.smoke_test))
    assert preflight_module.judges_of({"t": {"judge": "required"}}).by_task() == {"t": None} and not started

    def task(**metadata):
        return types.SimpleNamespace(config=types.SimpleNamespace(metadata={"version": 1.0, **metadata}))

    sample = task(judge="optional", smoke_test_judge="smollm2")
    run_state.fresh()  # each preflight below as a run of its own, from Python
    assert preflight_module.preflight({"airbench_foundation": task(judge="optional")}) == {
        "airbench_foundation": None} and not started
    run_state.fresh()
    judges = preflight_module.preflight({"airbench_sample_foundation": sample, "airbench_foundation": task(
        judge="optional")})
    assert judges["airbench_sample_foundation"].smoke_test and judges["airbench_foundation"] is None
    assert started == ["url", True]
    run_state.fresh()
    with pytest.raises(JudgeConfigError, match="airbench_chat is scored by an LLM judge and no judge is configured"):
        preflight_module.preflight({"airbench_sample_chat": sample, "airbench_chat": task(judge="required")})
    with pytest.raises(JudgeConfigError, match="not a bundled judge"):
        smoke_test_judge.requested({"smoke_test_judge": "gpt-2"})
