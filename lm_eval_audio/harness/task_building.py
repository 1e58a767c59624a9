"""Our tasks and groups as lm-eval builds them. One patch, of ``lm_eval.tasks._factory.TaskFactory.build`` (the
module docstring of ``lm_eval_audio.harness.patches`` says why); the rest subclasses lm-eval's ``Group`` and
``ConfigurableTask`` through their public API (``add``, ``pop``, ``get``, ``child_names``, ``aggregate``,
``aggregation``, ``higher_is_better``, ``apply_filters``, ``instances``).

* Each task of ours becomes an :class:`AudioTask`: a ``process_results`` or aggregation function of its YAML
  that takes a ``task`` parameter gets the task's :class:`~lm_eval_audio.metrics.task_scoring.TaskScoring` (its
  name, its metadata, whether the run has a judge; what its functions report stays on it: judge verdicts,
  standard errors, per-document scores), so no function has to ask which task it scores. The run's ``evaluate``
  starts each task's scoring (:meth:`AudioTask.start_scoring`) and reads it back off the task. The standard errors
  it reports fill lm-eval's "N/A" (:func:`fill_stderrs`: in each group of ours before it pools them, and in the
  results).

* A task the run answers in speech (``harness.spoken_preflight``) reports the spoken metrics beside its own
  (``metrics.spoken_scores``) and the quality metrics it names (``metrics.speech_quality``: its answers rated before
  its filters run, ``model_wrappers.answer_quality``), and its filtered answers stay spoken
  (``metrics.spoken_answer``).
* What a loader of ours returns with its documents, or with the error that stopped it (its
  ``benchmarks.data_notes.DataNotes``), goes into the run state as the task is built (:func:`take_notes`).
* A member task whose data is absent (our loaders raise errors marked ``skippable_in_group``) is built as an
  :class:`_Absent` stand-in, which its group's build then pops; the group counts it (the run state's
  ``group_absent_tasks``), and a group left with no member at all is an error (inside a larger group, left out
  in turn). An error also marked ``expected_absent`` (a task for rows the data may well not have) is not
  counted, and logged at INFO.
* Each group of ours becomes an :class:`AudioGroup`: with ``metadata: {aggregate_over: subgroups}`` (AIR-Bench's
  average of categories) lm-eval's own arithmetic averages its direct children instead of its leaf tasks, and a
  group averaging fewer tasks than it lists says so in its alias and results.
"""

from __future__ import annotations

import functools
import logging
import re
import types

from lm_eval_audio.benchmarks import data_notes
from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.harness.failed_scoring import scored_as_failed
from lm_eval_audio.harness.wrapping import wrap
from lm_eval_audio.metrics import speech_quality, spoken_scores
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.metrics.spoken_answer import carried_through_filters
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio")


class _Absent:
    """Where a member without data would be: lm-eval adds it to the group by its ``task_name``, and the group's
    build pops it."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.task_name = f"lm_eval_audio:absent:{id(self)}"

    @property
    def leaves(self) -> list:
        return list(getattr(self.error, "absent_tasks", [self.error]))


def _absent_members(group) -> int:
    """How many leaf tasks of ``group`` and its subgroups were left out for want of data (counted as the groups
    were built)."""
    counts = run_state.current().data_notes.get("group_absent_tasks", {})
    return counts.get(group.name, 0) + sum(_absent_members(child) for child in group if hasattr(child, "child_names"))


# A partial group's counts of its tasks, in its results entry and the printed table (integers, not scores)
PARTIAL_COUNTS = ("tasks_present", "tasks_listed")
PARTIAL_MARK = re.compile(r" \(PARTIAL: \d+ of \d+ tasks\)")


def _marked_partial(group, metrics: dict) -> dict:
    """A group of ours averaging fewer tasks than it lists says so where its number is: in its alias, which
    lm-eval's table prints, and as ``tasks_present`` / ``tasks_listed`` in its results entry."""
    absent = _absent_members(group)
    if not absent or not isinstance(metrics, dict):
        return metrics
    present = len(group.get_all_tasks())
    listed = present + absent
    metrics["alias"] = f"{metrics.get('alias') or group.name} (PARTIAL: {present} of {listed} tasks)"
    metrics["tasks_present,none"] = present
    metrics["tasks_listed,none"] = listed
    return metrics


def _whole_means(group: str, leaves: list[str], task_metrics: dict, metrics: dict) -> dict:
    """A group's mean of a metric only some of its tasks report (the judged ones, where no judge was configured) is
    no score of the group: lm-eval would print the mean of the others; it is left out, with a warning naming the
    tasks without it."""
    if not isinstance(metrics, dict):
        return metrics
    for key in [k for k in metrics if "," in k and not k.split(",")[0].endswith("_stderr")]:
        if key in PARTIAL_COUNTS or key.split(",")[0] in PARTIAL_COUNTS:
            continue
        without = [t for t in leaves if key not in task_metrics.get(t, {})]
        if without:
            name, _, filter_name = key.partition(",")
            metrics.pop(key)
            metrics.pop(f"{name}_stderr,{filter_name}", None)
            log.warning("group %s: %s is reported by %d of its %d tasks (not by %s: a judged task without a judge, "
                        "or a task that failed): no group mean over part of its tasks is given", group, name,
                        len(leaves) - len(without), len(leaves), ", ".join(without[:5])
                        + (f" and {len(without) - 5} more" if len(without) > 5 else ""))
    return metrics


def _with_group_score(group: str, members: list, task_metrics: dict, metrics) -> dict:
    """A group's results entry with the score its benchmark forms from its tasks' (``Benchmark.group_score``)."""
    from lm_eval_audio.benchmarks.registry import of_task

    benchmark = of_task(group)
    if benchmark is None or benchmark.group_score is None or not isinstance(metrics, dict):
        return metrics
    return {**metrics, **benchmark.group_score(group, {t.task_name: task_metrics.get(t.task_name, {})
                                                       for t in members})}


def fill_stderrs(metrics_by_task: dict, reported: dict, tasks=None) -> None:
    """Put the standard errors our aggregations ``reported`` (task -> metric -> value) where lm-eval wrote "N/A"
    (it only knows its own aggregations' standard errors), for ``tasks`` (default: every task in
    ``metrics_by_task``)."""
    for task in (metrics_by_task if tasks is None else tasks):
        metrics = metrics_by_task.get(task)
        if not isinstance(metrics, dict):
            continue
        for metric, value in reported.get(task, {}).items():
            for key in list(metrics):
                name, sep, _ = key.partition(",")
                if sep and name == f"{metric}_stderr" and metrics[key] == "N/A":
                    metrics[key] = value


def _takes_task(fn) -> bool:
    import inspect

    try:
        return "task" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin
        return False


@functools.cache
def register_quality_metrics() -> None:
    """The quality metrics of spoken answers (``metrics.speech_quality``) as lm-eval metrics, so that a task's YAML
    names one in its ``metric_list`` like any other: registered as the first task of ours is built, not as lm-eval
    loads (lm-eval's own tests fail on a registered metric that is not one of its built-ins). They stay registered
    if the plugin steps aside: each reads only spoken answers, which only our wrappers make, and says so in one line
    on anything else."""
    from lm_eval.api import registry

    from lm_eval_audio.metrics.spoken_scores import mean_of_documents

    def per_document(metric, references=None, predictions=None, **kwargs):
        return speech_quality.value_of(predictions[0], metric)

    # lm-eval names a metric's aggregation in its warnings by looking the function up among the aggregations
    if speech_quality.AGGREGATION not in registry.aggregation_registry:
        registry.aggregation_registry.register(speech_quality.AGGREGATION, target=mean_of_documents)
    for metric in speech_quality.QUALITY:
        if metric in registry.metric_registry:
            continue
        registry.metric_registry.register(metric, target=functools.partial(per_document, metric))
        registry.metric_agg_registry.register(metric, target=mean_of_documents)
        registry.higher_is_better_registry.register(metric, target=True)


def audio_task_class(base):
    """The subclass of lm-eval's task class (``base``) that our tasks become."""

    class AudioTask(base):
        def start_scoring(self, judge, said: set) -> TaskScoring:
            """A fresh :class:`~lm_eval_audio.metrics.task_scoring.TaskScoring` for the run about to score this task
            (``judge``: the one the run resolved for it, or None; ``said``: the warnings its tasks give once)."""
            scoring = TaskScoring(self.task_name, dict(self.config.metadata or {}), judge=judge, said=said)
            self.__dict__["_lm_eval_audio_scoring"] = scoring
            return scoring

        def scoring(self) -> TaskScoring:
            """This task's :class:`~lm_eval_audio.metrics.task_scoring.TaskScoring` in the run under way (one without
            a judge where no run of ours started one)."""
            scoring = self.__dict__.get("_lm_eval_audio_scoring")
            return scoring if scoring is not None else self.start_scoring(None, set())

        scores_failed_items_wrong = True  # read by failed_scoring: this class guards its own results

        def _spoken(self) -> bool:
            """Whether the run answers this task in speech (``harness.preflight`` decided)."""
            return self.task_name in run_state.current().spoken

        def process_results(self, doc, results):
            results = scored_as_failed(self, doc, results)  # a failed multiple-choice document scored wrong
            if callable(self.config.process_results) and _takes_task(self.config.process_results):
                scores = self.config.process_results(doc, results, task=self.scoring())
            else:
                scores = super().process_results(doc, results)
            if self._spoken():  # how the speech strays from the text, how long and how fast it was said, how
                # it sounds
                scores = {**scores, **spoken_scores.per_document(self.task_name, results)}
                if self._rated():
                    scores = {**scores, **speech_quality.per_document(self._rated(), results, doc)}
            return scores

        def _rated(self) -> list[str]:
            """The quality metrics this task names, where the run answers it in speech."""
            spec = run_state.current().quality.get(self.task_name)
            return list(spec.metrics) if spec else []

        def aggregation(self):
            own = {metric: functools.partial(fn, task=self.scoring()) if _takes_task(fn) else fn
                   for metric, fn in super().aggregation().items()}
            if not self._spoken():
                return own
            rated = speech_quality.aggregations(self._rated()) if self._rated() else {}
            return {**own, **spoken_scores.aggregations(self.task_name), **rated}

        def higher_is_better(self):
            own = super().higher_is_better()
            if not self._spoken():
                return own
            rated = speech_quality.higher_is_better(self._rated()) if self._rated() else {}
            return {**own, **spoken_scores.higher_is_better(self.task_name), **rated}

        def apply_filters(self):
            if self._rated():  # each spoken answer rated, in batches, before the filters copy it
                from lm_eval_audio.model_wrappers.answer_quality import rate_task

                rate_task(self)
            out = super().apply_filters()
            if self._spoken():  # a filtered answer still says it was spoken (spoken_answer.SpokenAnswer.filtered)
                for instance in self.instances:
                    for key, value in instance.filtered_resps.items():
                        instance.filtered_resps[key] = carried_through_filters(instance.resps, value)
            return out

        def build_all_requests(self, *, limit=None, samples=None, rank=0, world_size=1, **kwargs):
            # The clips of the documents this run evaluates (the first --limit, this rank's share), fetched from
            # the Hub before lm-eval builds their requests: where a repository keeps one file per clip, only those
            # are downloaded. Clips of a local folder are not touched.
            from lm_eval_audio.benchmarks.hub_data import fetch_clips

            docs = self.doc_iterator(rank=rank, limit=limit, samples=samples, world_size=world_size)
            fetch_clips([ref for _, doc in docs for ref in (self.doc_to_audio(doc) or ())],
                        data_notes.of(getattr(self, "dataset", None)), self.task_name)
            return super().build_all_requests(limit=limit, samples=samples, rank=rank, world_size=world_size,
                                              **kwargs)

    AudioTask.__module__ = __name__
    return AudioTask


def audio_group_class(base):
    """The subclass of lm-eval's ``Group`` (``base``) that our groups become."""

    class _ChildrenAsTasks(base):
        """A stand-in of a group whose direct children count as its tasks, for lm-eval's ``Group.aggregate``.
        Children are aggregated before parents (bottom-up), so each subgroup's metrics are already in
        ``task_metrics`` under its name."""

        def get_all_tasks(self, recursive: bool = True):
            return [types.SimpleNamespace(task_name=name) for name in self.child_names]

    class AudioGroup(base):
        def aggregate(self, task_metrics):
            members = self.get_all_tasks()
            fill_stderrs(task_metrics, {task.task_name: task.scoring().stderrs for task in members
                                        if hasattr(task, "scoring")}, [task.task_name for task in members])
            if (self.metadata or {}).get("aggregate_over") != "subgroups":
                metrics = _whole_means(self.name, [t.task_name for t in members], task_metrics,
                                       super().aggregate(task_metrics))
                return _marked_partial(self, _with_group_score(self.name, members, task_metrics, metrics))
            view = _ChildrenAsTasks(name=self.name, alias=self.alias,
                                    aggregate_metric_list=self.aggregate_metric_list, metadata=self.metadata)
            for child in self:
                view.add(child)
            return _marked_partial(self, base.aggregate(view, task_metrics))

    AudioGroup.__module__ = __name__
    return AudioGroup


def _drop_absent(group) -> list[_Absent]:
    """Pop the stand-ins from ``group`` and from its subgroups built in place (inline ``group:`` entries, which
    lm-eval builds without ``build``); the stand-ins popped, each counted for the group that held it."""
    popped = []
    for name in list(group.child_names):
        child = group.get(name)
        if isinstance(child, _Absent):
            group.pop(name)
            popped.append(child)
            if not getattr(child.error, "expected_absent", False):
                run_state.current().add("group_absent_tasks", str(group.name), len(child.leaves))
        elif hasattr(child, "child_names"):
            inner = _drop_absent(child)
            popped += inner
            if inner and not len(child):
                group.pop(name)
    return popped


def take_notes(notes) -> None:
    """What a loader returned with its documents or its error (``benchmarks.data_notes``), into the run state:
    its notes for the results' ``lm_eval_audio_data``, and each of its warnings the first time in the run."""
    if notes is None:
        return
    state = run_state.current()
    for kind, entries in notes.entries.items():
        for key, value in entries.items():
            state.note(kind, key, value)
    for key, logger, message, args in notes.warnings:
        if state.first_time(key):
            logging.getLogger(logger).warning(message, *args)
    notes.entries, notes.warnings = {}, []


def _finished_group(group, AudioGroup):
    """A group just built: its stand-ins popped, and made an :class:`AudioGroup` if it is ours."""
    absent = _drop_absent(group)
    if absent and not len(group):
        # A group with no data at all is an error (or, inside a larger group, left out in turn).
        leaves = [leaf for a in absent for leaf in a.leaves]
        shown = "; ".join(map(str, leaves[:3])) + (f"; and {len(leaves) - 3} more" if len(leaves) > 3 else "")
        error = type(absent[0].error)(f"no task of this group has data ({len(leaves)} absent): {shown}")
        error.absent_tasks = leaves
        raise error
    if group.name in our_task_names() or (group.metadata or {}).get("aggregate_over"):
        group.__class__ = AudioGroup  # the same fields; our aggregate
    return group


def on_task_factory(module) -> None:
    groups_under_way = [0]  # how many groups are being built around the current build
    AudioGroup = audio_group_class(module.Group)
    task_classes: dict[type, type] = {}

    def make_build(original):
        def build(self, entry, *args, **kwargs):
            is_group = entry.kind == module.Kind.GROUP
            if not is_group and entry.name in our_task_names():
                register_quality_metrics()  # before the task's YAML names one
            in_a_group = groups_under_way[0] > 0
            groups_under_way[0] += is_group
            try:
                built = original(self, entry, *args, **kwargs)
                if is_group:
                    return _finished_group(built, AudioGroup)
                for task in built if isinstance(built, list) else [built]:  # a tag builds a list
                    take_notes(data_notes.of(getattr(task, "dataset", None)))
                    if isinstance(task, module.ConfigurableTask) and task.task_name in our_task_names():
                        if type(task) not in task_classes:
                            task_classes[type(task)] = audio_task_class(type(task))
                        task.__class__ = task_classes[type(task)]  # the same fields; our aggregation()
                return built
            except Exception as e:
                take_notes(data_notes.of(e))
                if not in_a_group or not getattr(e, "skippable_in_group", False):
                    raise
                # A task for rows the data may not have (``expected_absent``) is no loss to its group.
                log.log(logging.INFO if getattr(e, "expected_absent", False) else logging.WARNING,
                        "left out of its group: %s", e)
                return _Absent(e)
            finally:
                groups_under_way[0] -= is_group

        return build

    wrap(module.TaskFactory, "build", make_build)
