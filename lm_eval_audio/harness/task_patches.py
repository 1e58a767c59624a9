"""How our models and tasks enter lm-eval: the patches of ``lm_eval.api.registry`` and ``lm_eval.tasks.manager``
(the module docstring of ``lm_eval_audio.harness.patches`` says what each does and why; how our tasks and
groups are built is ``harness.task_building``)."""

from __future__ import annotations

import logging
import os

from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.harness import status, targets
from lm_eval_audio.harness.wrapping import wrap
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


class _QuietCustomDatasetNote(logging.Filter):
    """lm-eval warns, for every task built with a ``custom_dataset`` function, once per run and condition, that
    custom kwargs can go in ``--metadata``: our tasks' loaders are such functions and read ``--metadata`` by design,
    so for them that is no warning (a dozen lines per run, repeated by each diagnose condition). Left as it is
    for every other task."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (targets.CUSTOM_KWARGS in message and message.partition(":")[0] in our_task_names())


def on_task_manager(module) -> None:
    import sys

    from lm_eval_audio.harness import task_index_cache

    # the index's YAML parses kept between runs (task_index_cache); lm_eval.tasks.manager imports the module
    task_index_cache.on_index_module(sys.modules["lm_eval.tasks._index"])
    task_log = logging.getLogger("lm_eval.api.task")
    if not any(isinstance(f, _QuietCustomDatasetNote) for f in task_log.filters):
        task_log.addFilter(_QuietCustomDatasetNote())

    def make(original):
        def __init__(self, *args, **kwargs):
            import inspect

            from lm_eval_audio import tasks
            from lm_eval_audio.harness import task_index_cache

            # A run reads its tasks through a new TaskManager (lm-eval's CLI makes one per run, simple_evaluate
            # one when given none): from Python, a new run begins; a command's run goes on (storage.run_state).
            run_state.fresh_unless_a_command()
            # Bind as the original would, so positional and keyword calls both keep working.
            bound = inspect.signature(original).bind(self, *args, **kwargs)
            bound.apply_defaults()
            if not bound.arguments.get("include_defaults", True):
                original(*bound.args, **bound.kwargs)
                task_index_cache.save()
                return
            ours = tasks.folder()
            bound.arguments["include_path"] = _with_our_tasks(bound.arguments.get("include_path"), ours)
            overrides = _Overrides()
            index_log = logging.getLogger("lm_eval.tasks._index")
            index_log.addFilter(overrides)
            try:
                original(*bound.args, **bound.kwargs)
            finally:
                index_log.removeFilter(overrides)
            task_index_cache.save()
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
