"""The judge preflight: before the model runs, every judged task of the run has a judge, and no task of ours
carries a credential in its metadata.

The startup hook calls :func:`preflight` at the start of each ``evaluate``; what it finds
(a judge configured, the smoke-test judge started) is kept on the run state, where the task
folders' ``process_results`` read it.
"""

from __future__ import annotations

import logging

from lm_eval_audio.endpoints.model_args import refuse_secrets
from lm_eval_audio.judges import judge_config, smoke_test_judge, task_judge
from lm_eval_audio.judges.judge_engine import check_cache, check_endpoint
from lm_eval_audio.storage import said_once

log = logging.getLogger("lm_eval.audio.judge")


def preflight(tasks: dict) -> bool:
    """Before the model runs: refuse tasks that need a judge when none is configured.

    A task says so in its YAML ``metadata: {judge: required}`` (or ``optional``, where it
    falls back to its judge-free metrics). ``--predict_only`` needs no judge: score its
    samples later with ``lm-eval-audio judge``. Tasks that name a ``smoke_test_judge`` get
    it, started here, when no endpoint is configured. Returns whether the run has a judge (its judge metrics are
    reported only then).
    """
    smoke_started = False
    optional_without, configs, smoke = [], {}, []
    for name, task in tasks.items():
        metadata = getattr(getattr(task, "config", None), "metadata", None) or {}
        # --metadata (and, from lm-eval's CLI, --model_args) reach the task here, and its configuration in the
        # results JSON: no credential among them.
        refuse_secrets("lm-eval-audio", metadata, where="metadata")
        need = metadata.get("judge")
        if not need or predicts_only(task):
            continue
        config = judge_config.resolve(metadata, task_judge.benchmark_key(name))
        if config is not None:
            configs.setdefault(config, []).append(name)
            continue
        if smoke_test_judge.requested(metadata):
            smoke.append((name, metadata))
            continue
        if need == "required":
            raise judge_config.JudgeConfigError(
                f"task {name} is scored by an LLM judge and no judge is configured: {judge_config.HOW_TO_CONFIGURE}. "
                "Or run it with --predict_only --log_samples and score the samples later with "
                "`lm-eval-audio judge SAMPLES.jsonl`"
            )
        optional_without.append(name)
    for config, names in check_each(configs).items():  # each benchmark's judge, when they differ
        public = config.public()
        log.info("judge of %s: %s at %s (key from %s)", ", ".join(sorted(names)), config.model, public["base_url"],
                 config.api_key_env)
    if smoke:
        if optional_without:
            # Their items would go to the judge (the run has one) with no judge of their own to take them.
            raise judge_config.JudgeConfigError(
                f"{', '.join(sorted(n for n, _ in smoke))} fall back to the bundled smoke-test judge when no judge "
                f"is configured, and {', '.join(sorted(optional_without))} in the same run would get no judge: "
                "configure a judge "
                f"({judge_config.HOW_TO_CONFIGURE}) or run them separately"
            )
        # Started, and its cache opened, before the model runs, not in the middle of aggregation.
        check_cache(task_judge.for_task(smoke[0][1]))
        smoke_started = True
    if optional_without and said_once.first_time_in_process(("no judge", tuple(sorted(optional_without)))):
        from lm_eval_audio.benchmarks import registry

        shown = ", ".join(sorted(optional_without)[:5]) + (" ..." if len(optional_without) > 5 else "")
        what = "; ".join(b.without_judge for b in registry.by_benchmark(sorted(optional_without)) if b.without_judge)
        log.warning(
            "no LLM judge configured: %d task(s) (%s) report their judge-free metrics only%s; to add them, %s",
            len(optional_without), shown, f" ({what})" if what else "", judge_config.HOW_TO_CONFIGURE,
        )
    return bool(configs) or smoke_started


def predicts_only(task) -> bool:
    """Whether lm-eval runs ``task`` with ``--predict_only``: it then gives the task the one metric ``bypass``
    (``override_metric``), which the task's public ``higher_is_better()`` lists (its metrics, as lm-eval's private
    ``_metric_fn_list`` does; ``harness/targets.py`` checks lm-eval still marks the run so)."""
    metrics = getattr(task, "higher_is_better", None)
    return callable(metrics) and "bypass" in (metrics() or {})


def check_each(configs: dict) -> dict:
    """Each judge (``{config: the tasks it judges}``) answers and serves its model; an error names its tasks."""
    for config, names in configs.items():
        try:
            check_endpoint(config)
        except judge_config.JudgeConfigError as e:
            raise judge_config.JudgeConfigError(f"the judge of {', '.join(sorted(names))}: {e}") from None
    return configs


def check_judges_first(tasks: list[str], metadata: dict, include_path) -> None:
    """Before lm-eval loads the model (it builds the tasks only after): the judge each named task of ours will
    use, read from its YAML's metadata and ``--metadata`` as the built task will read them, is checked, so a
    judge that does not answer or serve its model stops the run at once. Tasks without a configured judge are
    :func:`preflight`'s, once they are built."""
    from lm_eval_audio.benchmarks import registry

    configs: dict = {}
    for name, config in registry.task_configs(tasks, include_path).items():
        merged = {**(config.get("metadata") or {}), **metadata}
        if not merged.get("judge"):
            continue
        judge = judge_config.resolve(merged, task_judge.benchmark_key(name))
        if judge is not None:
            configs.setdefault(judge, []).append(name)
    check_each(configs)
