"""A task's judge as its scoring reads it: the one the run resolved for it (``harness.preflight``: the configured
endpoint, else the bundled smoke-test judge when the task's YAML asks for it, else none)."""

from __future__ import annotations

from lm_eval_audio.judges import smoke_test_judge
from lm_eval_audio.judges.judge_config import HOW_TO_CONFIGURE, JudgeConfig, JudgeConfigError, _settings, \
    default_cache_path


def benchmark_key(task_name: str | None) -> str | None:
    """The folder name of the benchmark ``task_name`` belongs to: the scope of its own judge settings."""
    from lm_eval_audio.benchmarks import registry

    benchmark = registry.of_task(task_name) if task_name else None
    return benchmark.key if benchmark is not None else None


def smoke_test(metadata: dict | None) -> JudgeConfig:
    """The bundled smoke-test judge, serving in this process (started on first use)."""
    return JudgeConfig(
        model=smoke_test_judge.NAME, base_url=smoke_test_judge.url(), concurrency=1,
        cache_path=_settings(dict(metadata or {}))["judge_cache"] or default_cache_path(),
        max_tokens=smoke_test_judge.MAX_TOKENS, max_parse_attempts=smoke_test_judge.MAX_PARSE_ATTEMPTS, smoke_test=True,
    )


def for_aggregation(task) -> JudgeConfig:
    """The judge the run resolved for ``task`` (its ``metrics.task_scoring.TaskScoring``: ``task.judge``); an
    aggregation asks for it only where ``task.judged``, so None here is a task folder's mistake, said as one."""
    if task.judge is None:
        raise JudgeConfigError(f"{task.name}: its aggregation asked for a judge the run did not give it (read "
                               "task.judged first); " + HOW_TO_CONFIGURE)
    return task.judge
