"""Each benchmark scored by its own paper's judge in one run: where a judge's settings come from, and a run whose
two benchmarks each reach their own endpoint."""

from __future__ import annotations

import pytest
from conftest import results_json, run_cli
from scripted_judge import ScriptedJudge, prompt_text

from lm_eval_audio.judges import judge_config

ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "LM_EVAL_AUDIO_JUDGE_MODEL",
       "LM_EVAL_AUDIO_JUDGE_API_KEY_ENV", "LM_EVAL_AUDIO_MMAU_JUDGE_BASE_URL", "LM_EVAL_AUDIO_MMAU_JUDGE_MODEL",
       "LM_EVAL_AUDIO_MMAU_JUDGE_API_KEY_ENV")
# What MMAU's YAML says of its paper's judge (tasks/mmau/_mmau_template_yaml)
MMAU_YAML = {"judge_model_default": "claude-haiku-4-5-20251001", "judge_max_tokens_default": 20,
             "judge_base_url_default": "https://api.anthropic.com/v1/", "judge_api_key_env_default": "ANTHROPIC_API_KEY"}
HAIKU = "claude-haiku-4-5-20251001"


@pytest.fixture
def clean_env(monkeypatch):
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def _judge(metadata, benchmark):
    config = judge_config.resolve(metadata, benchmark)
    return None if config is None else (config.model, config.base_url, config.api_key_env)


def test_each_paper_judge_with_its_own_key_in_one_run(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-openai-key-for-the-test-0000")
    assert _judge({}, "airbench") == ("gpt-4-0125-preview", None, "OPENAI_API_KEY")
    assert _judge(MMAU_YAML, "mmau") is None  # its endpoint is Anthropic's, and its key is not set
    clean_env.setenv("ANTHROPIC_API_KEY", "anthropic-key-for-the-test-0000")
    assert _judge(MMAU_YAML, "mmau") == (HAIKU, "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY")
    assert _judge({}, "airbench") == ("gpt-4-0125-preview", None, "OPENAI_API_KEY")


def test_a_judge_the_user_names_replaces_the_yaml_endpoint_and_its_key_goes_with_it(clean_env):
    clean_env.setenv("ANTHROPIC_API_KEY", "anthropic-key-for-the-test-0000")
    clean_env.setenv("OPENAI_BASE_URL", "http://judge.local:8000/v1")  # one server for the whole run
    assert _judge(MMAU_YAML, "mmau") == (HAIKU, "http://judge.local:8000/v1", "OPENAI_API_KEY")
    clean_env.delenv("OPENAI_BASE_URL")
    clean_env.setenv("OPENAI_API_KEY", "sk-openai-key-for-the-test-0000")
    clean_env.setenv("LM_EVAL_AUDIO_JUDGE_MODEL", "gpt-4o")  # another model: not at the YAML's endpoint
    assert _judge(MMAU_YAML, "mmau") == ("gpt-4o", None, "OPENAI_API_KEY")


def test_one_benchmarks_settings_reach_its_tasks_only_and_win_over_the_runs(clean_env):
    clean_env.setenv("OPENAI_BASE_URL", "http://run-judge:8000/v1")
    clean_env.setenv("LM_EVAL_AUDIO_MMAU_JUDGE_BASE_URL", "http://mmau-judge:8001/v1")
    clean_env.setenv("LM_EVAL_AUDIO_MMAU_JUDGE_MODEL", "qwen-judge")
    assert _judge(MMAU_YAML, "mmau") == ("qwen-judge", "http://mmau-judge:8001/v1", "OPENAI_API_KEY")
    assert _judge({}, "airbench") == ("gpt-4-0125-preview", "http://run-judge:8000/v1", "OPENAI_API_KEY")
    # --metadata's scoped keys win over the scoped environment
    assert _judge({**MMAU_YAML, "mmau_judge_model": "other"}, "mmau")[0] == "other"
    clean_env.setenv("LM_EVAL_AUDIO_MMAU_JUDGE_API_KEY_ENV", "MMAU_JUDGE_KEY")
    clean_env.setenv("MMAU_JUDGE_KEY", "a-key-of-its-own-000000")
    assert _judge(MMAU_YAML, "mmau")[2] == "MMAU_JUDGE_KEY"
    with pytest.raises(judge_config.JudgeConfigError, match="holds a credential"):
        judge_config.resolve({"note": "a-key-of-its-own-000000"}, "mmau")  # that key's value, refused in --metadata


def test_one_run_reaches_each_benchmarks_judge(tiny_qwen2_audio, tmp_path):
    with ScriptedJudge() as airbench_judge, ScriptedJudge(models=(HAIKU,), reply=lambda p: "Selected: A") as mmau_judge:
        out = tmp_path / "out"
        proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                        f"pretrained={tiny_qwen2_audio},max_new_tokens=4", "--tasks",
                        "airbench_sample_foundation,mmau_sample_sound", "--output_path", str(out), "--limit", "4"],
                       env_extra={"OPENAI_BASE_URL": airbench_judge.base_url, "OPENAI_API_KEY": "",
                                  "LM_EVAL_AUDIO_MMAU_JUDGE_BASE_URL": mmau_judge.base_url,
                                  "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite")})
        assert proc.returncode == 0, proc.stderr[-3000:]
        judged = results_json(out)["lm_eval_audio_judge"]
        assert judged["airbench_sample_foundation"]["judge"]["model"] == "gpt-4-0125-preview"
        assert judged["airbench_sample_foundation"]["judge"]["base_url"] == airbench_judge.base_url
        assert judged["mmau_sample_sound"]["judge"]["model"] == HAIKU
        assert judged["mmau_sample_sound"]["judge"]["base_url"] == mmau_judge.base_url
        assert airbench_judge.requests and {r["model"] for r in airbench_judge.requests} == {"gpt-4-0125-preview"}
        assert all("Selected" not in prompt_text(r) for r in airbench_judge.requests)
        assert {r["model"] for r in mmau_judge.requests} <= {HAIKU}
        assert f"judge of mmau_sample_sound: {HAIKU} at {mmau_judge.base_url}" in proc.stderr


def test_a_benchmarks_judge_its_endpoint_does_not_serve_stops_the_run_before_the_model_loads(tmp_path, clean_env):
    with ScriptedJudge() as judge:  # serves AIR-Bench's and AudioBench's judges, not MMAU's
        # no model at that path: the judge's error comes first, so the model was never loaded
        proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tmp_path / 'no-model-here'}",
                        "--tasks", "mmau_sample", "--limit", "2"],
                       env_extra={"LM_EVAL_AUDIO_MMAU_JUDGE_BASE_URL": judge.base_url})
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "the judge of mmau_sample_music, mmau_sample_sound, mmau_sample_speech: the judge endpoint" in proc.stderr
    assert f"does not serve the judge model '{HAIKU}'" in proc.stderr
    assert "LM_EVAL_AUDIO_<BENCHMARK>_JUDGE_MODEL" in proc.stderr and not judge.requests


def test_a_benchmark_without_its_judge_beside_a_judged_one_reports_its_judge_free_metrics(tiny_qwen2_audio, tmp_path,
                                                                                          clean_env, monkeypatch):
    """A judge configured for AIR-Bench alone: OpenAudioBench, in the same run, is warned of at start and reports what
    the warning says (its judge score null, with the reason), and the run writes its results; nothing stops it
    after the model has answered. Each task's judge is resolved once in the run, before the model loads."""
    resolved = []
    real_resolve = judge_config.resolve
    monkeypatch.setattr(judge_config, "resolve", lambda metadata=None, benchmark=None: resolved.append(benchmark)
                        or real_resolve(metadata, benchmark))
    with ScriptedJudge() as judge:
        out = tmp_path / "out"
        proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                        f"pretrained={tiny_qwen2_audio},max_new_tokens=4", "--tasks",
                        "airbench_sample_foundation,openaudiobench_sample", "--output_path", str(out), "--limit", "2"],
                       env_extra={"LM_EVAL_AUDIO_AIRBENCH_JUDGE_BASE_URL": judge.base_url,
                                  "LM_EVAL_AUDIO_AIRBENCH_JUDGE_MODEL": "gpt-4-0125-preview",
                                  "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "openaudiobench_sample_alpaca_eval" in proc.stderr and "report their judge-free metrics only" in proc.stderr
    assert "each judge metric NaN with its reason in the results" in proc.stderr  # what the results then hold
    # one resolution per judged task (AIR-Bench's foundation task, OpenAudioBench's five), all before the model loads
    assert sorted(resolved) == ["airbench"] + ["openaudiobench"] * 5, resolved
    results = results_json(out)
    assert results["lm_eval_audio_judge"]["airbench_sample_foundation"]["judge"]["base_url"] == judge.base_url
    assert not any(task.startswith("openaudiobench") for task in results["lm_eval_audio_judge"])
    assert results["results"]["openaudiobench_sample_alpaca_eval"]["judge_score,none"] is None
    reasons = results["lm_eval_audio_null_reasons"]
    assert "no judge is configured" in reasons["results.openaudiobench_sample_alpaca_eval.judge_score,none"]
    assert results["results"]["openaudiobench_sample_alpaca_eval"]["audio_missing,none"] == 0
    assert judge.requests and all("gpt-4-0125-preview" == r["model"] for r in judge.requests)
