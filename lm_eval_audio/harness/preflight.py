"""The judge preflight: each judged task's judge resolved once per run, and checked before the model runs; no task of
ours carries a credential in its metadata.

The command line resolves the judges of the tasks it names before the model loads (:func:`check_judges_first`, from
their YAML and ``--metadata``, as the built tasks will read them) and keeps each task's in its run
(``storage.run_state``: ``Run.judges``). The startup hook's ``evaluate`` calls :func:`preflight`, which takes each
task's judge from there and resolves only a task no command named (``simple_evaluate`` from Python, ``diagnose``);
each task's scoring gets its judge (``TaskScoring.judge``), which its ``process_results`` and aggregations read
(``judges.task_judge.for_aggregation``). A task that needs a judge (``judge: required``) and has none stops the run
before the model loads; one whose judge is optional runs with its judge metrics NaN, the reason beside each, as the
warning at the start says: its judge-free metrics are still worth having, and a run of several benchmarks should not
stop for one whose judge the user did not set.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lm_eval_audio.endpoints.model_args import refuse_secrets
from lm_eval_audio.judges import judge_config, smoke_test_judge, task_judge
from lm_eval_audio.judges.judge_engine import check_cache, check_endpoint
from lm_eval_audio.storage import run_state

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

    def by_task(self) -> dict:
        """Each judged task's judge: its ``JudgeConfig``, the smoke-test judge (started when the run's evaluate
        begins), or None."""
        out = {name: None for name in self.required_without + self.optional_without}
        out.update({name: run_state.SMOKE_TEST_JUDGE for name in self.smoke})
        out.update({name: config for config, names in self.configured.items() for name in names})
        return out


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


def preflight(tasks: dict) -> dict:
    """Before the model runs: each of ``tasks``' judge (name -> its ``JudgeConfig``, or None), as the run resolved it
    before the model loaded, or resolved here (and kept in the run) for a task it did not; a task that needs a judge
    and has none is refused. The bundled smoke-test judge is started here, where a task gets it. ``--predict_only``
    needs no judge: score its samples later with ``lm-eval-audio judge``. Each task's judge metrics are reported only
    where it has one, so a task without (``optional``) reports its judge-free metrics beside a judged task of another
    benchmark, as the warning says."""
    run = run_state.current()
    metadata_by_task = {}
    for name, task in tasks.items():
        metadata = getattr(getattr(task, "config", None), "metadata", None) or {}
        # --metadata (and, from lm-eval's CLI, --model_args) reach the task here, and its configuration in the
        # results JSON: no credential among them.
        refuse_secrets("lm-eval-audio", metadata, where="metadata")
        if not predicts_only(task):
            metadata_by_task[name] = metadata
    unresolved = {name: m for name, m in metadata_by_task.items() if name not in run.judges}
    if unresolved:
        resolve_and_check(unresolved)
    judges = {name: run.judges.get(name) for name in metadata_by_task}
    for name, judge in judges.items():
        if judge == run_state.SMOKE_TEST_JUDGE:
            # started, and its cache opened, before the model runs, not in the middle of aggregation
            judges[name] = run.judges[name] = task_judge.smoke_test(metadata_by_task[name])
            check_cache(judges[name])
    configured: dict = {}
    for name, judge in judges.items():
        if judge is not None and not judge.smoke_test:
            configured.setdefault(judge, []).append(name)
    for config, names in configured.items():  # each benchmark's judge, when they differ
        public = config.public()
        log.info("judge of %s: %s at %s (key from %s)", ", ".join(sorted(names)), config.model, public["base_url"],
                 config.api_key_env)
    without = sorted(name for name, judge in judges.items() if judge is None and metadata_by_task[name].get("judge"))
    if without and run.first_time(("no judge", tuple(without))):
        from lm_eval_audio.benchmarks import registry

        what = "; ".join(b.without_judge for b in registry.by_benchmark(without) if b.without_judge)
        log.warning(
            "no LLM judge configured: %d task(s) (%s) report their judge-free metrics only, each judge metric NaN "
            "with its reason in the results%s; to add them, %s",
            len(without), _shown(without), f" ({what})" if what else "", judge_config.HOW_TO_CONFIGURE,
        )
    return judges


def resolve_and_check(metadata_by_task: dict, check_benchmarks=None) -> TaskJudges:
    """The judges of ``metadata_by_task`` (name -> the metadata the built task reads), resolved once and kept in the
    run (``Run.judges``); refused where a task needs one and has none, each benchmark's own checks run
    (``check_benchmarks(found)``), and each endpoint checked (it answers and serves its model)."""
    found = judges_of(metadata_by_task)
    found.refuse_required_without()
    if check_benchmarks is not None:
        check_benchmarks(found)
    check_each(found.configured)
    run_state.current().judges.update(found.by_task())
    return found


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
    as the built task will read them (:func:`judges_of`), is resolved once, kept in the run for :func:`preflight`,
    and checked, so a judge that does not answer or serve its model, or a task that cannot be scored without one,
    stops the run at once. Tasks left without a judge are warned of by :func:`preflight`, once they are built."""
    from lm_eval_audio.benchmarks import registry

    def benchmarks_checks(found: TaskJudges) -> None:
        for benchmark in registry.by_benchmark(sorted(found.judged()), include_path):
            if benchmark.check_judge is not None:
                benchmark.check_judge(metadata)

    resolve_and_check({name: {**(config.get("metadata") or {}), **metadata} for name, config in configs.items()},
                      benchmarks_checks)
