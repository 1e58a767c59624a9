"""What each patch relies on in lm-eval, checked before the patch is applied.

One entry per patched attribute: the module, the attribute (dotted below the module) and
the parameters the patch binds by name. The startup hook checks a module's entries when
lm-eval loads it and disables the plugin on the first problem; the tests check them all
against the installed lm-eval.
"""

from __future__ import annotations

import inspect
import sys

# module -> [(attribute, parameters the patch relies on)]
TARGETS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "lm_eval.__main__": [("cli_evaluate", ())],
    # register our models; on disable, take them out of its store (it has no public removal)
    "lm_eval.api.registry": [("model_registry.register", ("aliases", "target")), ("model_registry._objs", ())],
    "lm_eval.tasks.manager": [
        ("TaskManager.__init__", ("include_path", "include_defaults")),
        # Its index reports a task that overrides another (one of ours over lm-eval's is a clash).
        ("TaskIndex.build", ("paths",)),
    ],
    "lm_eval.api.model": [
        ("hash_args", ("attr", "args")),
        ("CachingLM.__init__", ("lm", "cache_db")),
        ("CachingLM.__getattr__", ("attr",)),
    ],
    "lm_eval.api.group": [("Group.aggregate", ("task_metrics",)), ("Group.get_all_tasks", ("recursive",))],
    "lm_eval.tasks._factory": [("TaskFactory.build", ()), ("TaskFactory._build_group_members", ())],
    "lm_eval.evaluator_utils": [
        ("_compute_task_aggregations", ("task", "raw_metrics")),
        ("_handle_back_comp", ("nested_dict",)),
    ],
    "lm_eval.evaluator": [
        ("evaluate", ("lm", "task_dict")),
        ("simple_evaluate", ("model", "model_args", "tasks", "metadata")),
    ],
    "lm_eval.loggers.evaluation_tracker": [
        ("EvaluationTracker.save_results_aggregated", ("results", "samples")),
        ("GeneralConfigTracker.log_experiment_args", ("model_source", "model_args")),
        # diagnose names each condition's run as lm-eval's CLI would
        ("GeneralConfigTracker._get_model_name", ("model_args",)),
    ],
    "lm_eval.utils": [("make_table", ("result_dict", "column"))],
}


# The couplings that are no attribute: text of lm-eval's the patches match or read, checked in the source of
# the module that holds it: watched module -> [(module holding the text, what relies on it, the text)].
LOG_OVERRIDE = "overrides existing task from"  # TaskIndex's log line task_patches reads for TaskNameClash
UNKNOWN_SPEC = "is not a registered task/group/tag name"  # cli_patches: a misspelled task, as a KeyError
TASKS_NOT_FOUND = "Tasks not found: "  # cli_patches: misspelled tasks, as a ValueError
NOT_MULTIMODAL = "which require multimodal input"  # cli_patches: an audio task on a text model
TEXTS: dict[str, list[tuple[str, str, str]]] = {
    "lm_eval.tasks.manager": [
        ("lm_eval.tasks._index", "the TaskNameClash check (task_patches)", LOG_OVERRIDE),
        ("lm_eval.tasks.manager", "the misspelled-task message (cli_patches)", UNKNOWN_SPEC),
    ],
    "lm_eval.evaluator": [("lm_eval.evaluator", "the audio-task-on-a-text-model message (cli_patches)",
                           NOT_MULTIMODAL)],
    "lm_eval.api.model": [("lm_eval.api.model", "dropping a failed answer from --use_cache (run_patches)",
                           "self.dbdict = ")],
    "lm_eval.loggers.evaluation_tracker": [("lm_eval.loggers.evaluation_tracker",
                                            "the judge logs' file names (run_patches)", "self.date_id = ")],
    "lm_eval.__main__": [("lm_eval.config.evaluate_config", "the misspelled-tasks message (cli_patches)",
                          TASKS_NOT_FOUND)],
}
# Parameters a patch reads by position: (attribute, position counting self, name).
POSITIONS: dict[str, list[tuple[str, int, str]]] = {
    "lm_eval.tasks._factory": [("TaskFactory._build_group_members", 2, "group_name")],
}


def _source(name: str) -> str:
    import importlib

    module = sys.modules.get(name) or importlib.import_module(name)
    return inspect.getsource(module)


def _resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def problems(module_name: str, module) -> list[str]:
    """What is missing or changed among ``module_name``'s targets, one line each."""
    found = []
    for dotted, params in TARGETS.get(module_name, ()):
        where = f"{module_name}.{dotted}"
        try:
            obj = _resolve(module, dotted)
        except AttributeError:
            found.append(f"{where} is missing")
            continue
        if not params:
            continue
        try:
            names = set(inspect.signature(inspect.unwrap(obj)).parameters)
        except (TypeError, ValueError):
            found.append(f"{where} has no readable signature")
            continue
        lost = [p for p in params if p not in names]
        if lost:
            found.append(f"{where} no longer takes {', '.join(lost)}")
    for dotted, position, name in POSITIONS.get(module_name, ()):
        try:
            params = list(inspect.signature(inspect.unwrap(_resolve(module, dotted))).parameters)
        except (AttributeError, TypeError, ValueError):
            found.append(f"{module_name}.{dotted} is missing")
            continue
        if len(params) <= position or params[position] != name:
            found.append(f"{module_name}.{dotted} no longer takes {name} in position {position}")
    for holder, user, text in TEXTS.get(module_name, ()):
        try:
            source = _source(holder)
        except (ImportError, OSError, TypeError):
            found.append(f"{holder}'s source cannot be read, to check the text {text!r} that {user} relies on")
            continue
        if text not in source:
            found.append(f"{holder} no longer says {text!r}, which {user} relies on")
    return found
