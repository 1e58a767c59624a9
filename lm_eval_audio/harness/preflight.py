"""The judge preflight: before the model runs, every judged task of the run has a judge, and no task of ours
carries a credential in its metadata.

The command line calls :func:`check_judges_first` before the model loads; the startup hook calls :func:`preflight`
at the start of each ``evaluate``, and each task's scoring is told whether that task has a judge
(``TaskScoring.judged``), where the task folders' ``process_results`` and aggregations read it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lm_eval_audio.endpoints.model_args import refuse_secrets
from lm_eval_audio.judges import judge_config, smoke_test_judge, task_judge
from lm_eval_audio.judges.judge_engine import check_cache, check_endpoint
from lm_eval_audio.storage import said_once

log = logging.getLogger("lm_eval.audio.judge")


@dataclass
class TaskJudges:
    """Which judge each judged task of a run gets (:func:`judges_of`): a configured endpoint (config -> its tasks),
    the bundled smoke-test judge, or none, where the task cannot run without one or reports its judge-free metrics."""

    configured: dict = field(default_factory=dict)
    smoke: list = field(default_factory=list)
    required_without: list = field(default_factory=list)
    optional_without: list = field(default_factory=list)

    def refuse_required_without(self) -> None:
        if self.required_without:
            names = ", ".join(sorted(self.required_without))
            raise judge_config.JudgeConfigError(
                f"task {names} is scored by an LLM judge and no judge is configured: {judge_config.HOW_TO_CONFIGURE}. "
                "Or run it with --predict_only --log_samples and score the samples later with "
                "`lm-eval-audio judge SAMPLES.jsonl`"
            )

    def judged(self) -> set[str]:
        return {n for names in self.configured.values() for n in names} | set(self.smoke)


def judges_of(metadata_by_task: dict) -> TaskJudges:
    """Which judge each task of ``metadata_by_task`` (name -> its metadata) gets: the endpoint configured for its
    benchmark or the run, else the bundled smoke-test judge where its YAML asks for one, else none. Read alike before
    the model loads (from the YAMLs and ``--metadata``) and once lm-eval has built the tasks."""
    found = TaskJudges()
    for name, metadata in metadata_by_task.items():
        need = metadata.get("judge")
        if not need:
            continue
        config = judge_config.resolve(metadata, task_judge.benchmark_key(name))
        if config is not None:
            found.configured.setdefault(config, []).append(name)
        elif smoke_test_judge.requested(metadata):
            found.smoke.append(name)
        elif need == "required":
            found.required_without.append(name)
        else:
            found.optional_without.append(name)
    return found


def preflight(tasks: dict) -> set[str]:
    """Before the model runs: refuse tasks that need a judge when none is configured.

    A task says so in its YAML ``metadata: {judge: required}`` (or ``optional``, where it
    falls back to its judge-free metrics). ``--predict_only`` needs no judge: score its
    samples later with ``lm-eval-audio judge``. Tasks that name a ``smoke_test_judge`` get
    it, started here, when no endpoint is configured. Returns the names of the tasks that have a judge: each
    task's judge metrics are reported only where it has one, so a task without (``optional``) reports its
    judge-free metrics beside a judged task of another benchmark, as the warning says.
    """
    metadata_by_task = {}
    for name, task in tasks.items():
        metadata = getattr(getattr(task, "config", None), "metadata", None) or {}
        # --metadata (and, from lm-eval's CLI, --model_args) reach the task here, and its configuration in the
        # results JSON: no credential among them.
        refuse_secrets("lm-eval-audio", metadata, where="metadata")
        if not predicts_only(task):
            metadata_by_task[name] = metadata
    found = judges_of(metadata_by_task)
    found.refuse_required_without()
    for config, names in check_each(found.configured).items():  # each benchmark's judge, when they differ
        public = config.public()
        log.info("judge of %s: %s at %s (key from %s)", ", ".join(sorted(names)), config.model, public["base_url"],
                 config.api_key_env)
    if found.smoke:
        # Started, and its cache opened, before the model runs, not in the middle of aggregation.
        check_cache(task_judge.for_task(metadata_by_task[found.smoke[0]], found.smoke[0]))
    if found.optional_without and said_once.first_time_in_process(("no judge", tuple(sorted(found.optional_without)))):
        from lm_eval_audio.benchmarks import registry

        without = sorted(found.optional_without)
        what = "; ".join(b.without_judge for b in registry.by_benchmark(without) if b.without_judge)
        log.warning(
            "no LLM judge configured: %d task(s) (%s) report their judge-free metrics only%s; to add them, %s",
            len(without), _shown(without), f" ({what})" if what else "", judge_config.HOW_TO_CONFIGURE,
        )
    return found.judged()


def _shown(names: list[str]) -> str:
    names = sorted(names)
    return ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")


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


def check_judges_first(configs: dict, metadata: dict, include_path) -> None:
    """Before lm-eval loads the model (it builds the tasks only after): the judge each named task of ours will
    use, read from its YAML's metadata (``configs``: ``registry.task_configs`` of the run's tasks) and ``--metadata``
    as the built task will read them (:func:`judges_of`), is checked, so a judge that does not answer or serve its
    model, or a task that cannot be scored without one, stops the run at once. Tasks left without a judge are warned
    of by :func:`preflight`, once they are built."""
    from lm_eval_audio.benchmarks import registry

    found = judges_of({name: {**(config.get("metadata") or {}), **metadata} for name, config in configs.items()})
    found.refuse_required_without()
    for benchmark in registry.by_benchmark(sorted(found.judged()), include_path):
        if benchmark.check_judge is not None:
            benchmark.check_judge(metadata)
    check_each(found.configured)
