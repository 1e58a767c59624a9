"""What each patch relies on in lm-eval, checked before the patch is applied.

One entry per patched attribute: the module, the attribute (dotted below the module) and
the parameters the patch binds by name. The startup hook checks a module's entries when
lm-eval loads it and disables the plugin on the first problem; the tests check them all
against the installed lm-eval.
"""

from __future__ import annotations

import inspect

# module -> [(attribute, parameters the patch relies on)]
TARGETS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "lm_eval.__main__": [("cli_evaluate", ())],
    "lm_eval.api.registry": [("model_registry.register", ("aliases", "target"))],
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
    ],
    "lm_eval.utils": [("make_table", ("result_dict", "column"))],
}


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
    return found
