"""Which judge scores a task: the configured endpoint, else the bundled smoke-test judge when
the task's YAML asks for it, else none."""

from __future__ import annotations

from lm_eval_audio.judges import smoke_test_judge
from lm_eval_audio.judges.judge_config import HOW_TO_CONFIGURE, JudgeConfig, JudgeConfigError, _settings, \
    default_cache_path, resolve


def benchmark_key(task_name: str | None) -> str | None:
    """The folder name of the benchmark ``task_name`` belongs to: the scope of its own judge settings."""
    from lm_eval_audio.benchmarks import registry

    benchmark = registry.of_task(task_name) if task_name else None
    return benchmark.key if benchmark is not None else None


def for_task(metadata: dict | None = None, task_name: str | None = None) -> JudgeConfig | None:
    """The judge of a task: the endpoint configured for its benchmark or the run, else the bundled smoke-test
    judge when the task's YAML asks for it (``smoke_test_judge: smollm2``), else None."""
    config = resolve(metadata, benchmark_key(task_name))
    if config is not None:
        return config
    metadata = dict(metadata or {})
    if not smoke_test_judge.requested(metadata):
        return None
    return JudgeConfig(
        model=smoke_test_judge.NAME, base_url=smoke_test_judge.url(), concurrency=1,
        cache_path=_settings(metadata)["judge_cache"] or default_cache_path(),
        max_tokens=smoke_test_judge.MAX_TOKENS, max_parse_attempts=smoke_test_judge.MAX_PARSE_ATTEMPTS, smoke_test=True,
    )


def for_aggregation(task) -> JudgeConfig:
    """The judge of ``task`` (its ``metrics.task_scoring.TaskScoring``); raises naming the task if none is configured."""
    config = for_task(task.metadata, task.name)
    if config is None:
        raise JudgeConfigError(f"{task.name} is scored by an LLM judge and none is configured: " + HOW_TO_CONFIGURE)
    return config
