"""How our models and tasks enter lm-eval, and how our groups aggregate: the patches of ``lm_eval.api.registry``,
``lm_eval.tasks.manager``, ``lm_eval.api.group``, ``lm_eval.tasks._factory`` and ``lm_eval.evaluator_utils``
(the module docstring of ``lm_eval_audio.harness.patches`` says what each does and why)."""

from __future__ import annotations

import logging
import os

from lm_eval_audio.harness import status, targets
from lm_eval_audio.harness.wrapping import is_our_task, wrap
from lm_eval_audio.model_wrappers.registry import MODELS
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio")


class TaskNameClash(RuntimeError):
    """A task of the plugin has the name of one of lm-eval's own."""

    __module__ = "lm_eval_audio.harness.task_patches"


# --- lm_eval.api.registry ---------------------------------------------------------------


def on_registry(module) -> None:
    import lm_eval.models  # noqa: F401  (registers the built-ins first; see module doc)

    registry = module.model_registry
    ours = [name for name in MODELS if name not in registry]
    for name in ours:
        registry.register(name, target=MODELS[name])
    # A target checked later (lm_eval.evaluator loads after the registry) may still disable the plugin: then
    # our models are absent from lm-eval's registry, not only announced as off. The registry has no public
    # removal; its private store is a checked target (harness/targets.py).
    status.on_disable(lambda: [registry._objs.pop(name, None) for name in ours])


# --- lm_eval.tasks.manager --------------------------------------------------------------


class _Overrides(logging.Filter):
    """Collects the index's "Task '%s' from %s overrides existing task from %s" reports."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple] = []

    def filter(self, record):
        if record.getMessage().startswith("Task '") and targets.LOG_OVERRIDE in record.getMessage():
            self.seen.append(tuple(record.args or ()))
        return True


def on_task_manager(module) -> None:
    def make(original):
        def __init__(self, *args, **kwargs):
            import inspect

            from lm_eval_audio import tasks

            # Bind as the original would, so positional and keyword calls both keep working.
            bound = inspect.signature(original).bind(self, *args, **kwargs)
            bound.apply_defaults()
            if not bound.arguments.get("include_defaults", True):
                return original(*bound.args, **bound.kwargs)
            ours = tasks.folder()
            bound.arguments["include_path"] = _with_our_tasks(bound.arguments.get("include_path"), ours)
            overrides = _Overrides()
            index_log = logging.getLogger("lm_eval.tasks._index")
            index_log.addFilter(overrides)
            try:
                original(*bound.args, **bound.kwargs)
            finally:
                index_log.removeFilter(overrides)
            # The defaults are indexed first and ours right after them: whatever ours overrides is lm-eval's.
            clashes = [(name, new, old) for name, new, old in (a for a in overrides.seen if len(a) == 3)
                       if str(new).startswith(os.path.join(ours, ""))]
            if clashes:
                name, new, old = clashes[0]
                raise TaskNameClash(
                    f"lm-eval defines a task named {name!r} ({old}), and so does lm-eval-audio ({new})"
                    + (f", and {len(clashes) - 1} more" if len(clashes) > 1 else "")
                    + ": the two cannot be told apart. Install the lm-eval version this lm-eval-audio supports, or an "
                    "lm-eval-audio that supports yours"
                )

        return __init__

    wrap(module.TaskManager, "__init__", make)


def _with_our_tasks(include_path, ours: str):
    if include_path is None or include_path == "":
        return [ours]
    user = list(include_path) if isinstance(include_path, (list, tuple)) else [include_path]
    return [ours] + [p for p in user if os.path.abspath(str(p)) != os.path.abspath(ours)]


# --- lm_eval.api.group ------------------------------------------------------------------


def _absent_members(group) -> int:
    """How many leaf tasks of ``group`` and its subgroups were left out for want of data (recorded as the
    groups were built, :func:`on_task_factory`)."""
    counts = run_state.current().data_notes.get("group_absent_tasks", {})
    own = counts.get(group.name, 0)
    return own + sum(_absent_members(child) for child in group if hasattr(child, "get_all_tasks"))


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


def on_group(module) -> None:
    def make(original):
        def aggregate(self, task_metrics):
            if (getattr(self, "metadata", None) or {}).get("aggregate_over") != "subgroups":
                return _marked_partial(self, original(self, task_metrics))
            import types

            # Children are aggregated before parents (bottom-up), so each subgroup's
            # metrics are already in task_metrics under its name: let lm-eval's own
            # arithmetic average those instead of the leaf tasks.
            children = [types.SimpleNamespace(task_name=getattr(c, "task_name", None) or c.name) for c in self]
            self.get_all_tasks = lambda recursive=True: children
            try:
                metrics = original(self, task_metrics)
            finally:
                del self.get_all_tasks
            return _marked_partial(self, metrics)

        return aggregate

    wrap(module.Group, "aggregate", make)


# --- lm_eval.tasks._factory -------------------------------------------------------------

_ABSENT = object()


def on_task_factory(module) -> None:
    skipped: list[list[Exception]] = []  # per group being built, innermost last

    def make_build(original):
        def build(self, *args, **kwargs):
            try:
                return original(self, *args, **kwargs)
            except Exception as e:
                if not skipped or not getattr(e, "skippable_in_group", False):
                    raise
                log.warning("left out of its group: %s", e)
                skipped[-1].append(e)
                return _ABSENT

        return build

    def make_members(original):
        def _build_group_members(self, *args, **kwargs):
            skipped.append([])
            try:
                members = original(self, *args, **kwargs)
            finally:
                absent = skipped.pop()
            if not absent:
                return members
            group_name = kwargs.get("group_name", args[1] if len(args) > 1 else None)
            leaves = sum(len(getattr(e, "absent_tasks", [e])) for e in absent)
            run_state.current().add("group_absent_tasks", str(group_name), leaves)
            kept = [m for m in members if m is not _ABSENT]
            if members and not kept:
                # A group with no data at all is an error (or, inside a larger group, left out in turn).
                leaves = [leaf for e in absent for leaf in getattr(e, "absent_tasks", [e])]
                shown = "; ".join(map(str, leaves[:3])) + (f"; and {len(leaves) - 3} more" if len(leaves) > 3 else "")
                error = type(absent[0])(f"no task of this group has data ({len(leaves)} absent): {shown}")
                error.absent_tasks = leaves
                raise error
            return kept

        return _build_group_members

    wrap(module.TaskFactory, "build", make_build)
    wrap(module.TaskFactory, "_build_group_members", make_members)


# --- lm_eval.evaluator_utils ------------------------------------------------------------


def on_evaluator_utils(module) -> None:
    def make(original):
        def _compute_task_aggregations(task, raw_metrics, *args, **kwargs):
            if not is_our_task(task):
                return original(task, raw_metrics, *args, **kwargs)
            state = run_state.current()
            previous = state.aggregating
            state.aggregating = (task.task_name, dict(getattr(task.config, "metadata", None) or {}))
            state.stderrs.clear()
            try:
                agg_metrics, sample_len = original(task, raw_metrics, *args, **kwargs)
                _fill_stderrs(agg_metrics, state.stderrs)
            finally:
                state.aggregating = previous
                state.stderrs.clear()
            return agg_metrics, sample_len

        return _compute_task_aggregations

    wrap(module, "_compute_task_aggregations", make)


def _fill_stderrs(agg_metrics: dict, stderrs: dict) -> None:
    """Put the standard errors our aggregations reported where lm-eval wrote "N/A"."""
    for metric, value in stderrs.items():
        for key in list(agg_metrics):
            name, sep, _ = key.partition(",")
            if sep and name == f"{metric}_stderr" and agg_metrics[key] == "N/A":
                agg_metrics[key] = value
