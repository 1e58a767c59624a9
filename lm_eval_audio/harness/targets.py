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
    # every way of starting a run reaches Run._execute(args), which parses it with from_cli(namespace) first: the
    # checks parse it the same way, and read these fields of the configuration (a module named before ":" is
    # imported for its targets)
    "lm_eval._cli.run": [
        ("Run._execute", ("args",)),
        ("lm_eval.config.evaluate_config:EvaluatorConfig.from_cli", ("namespace",)),
        *((f"lm_eval.config.evaluate_config:EvaluatorConfig.{name}", ())
          for name in ("model", "tasks", "model_args", "metadata", "include_path", "limit", "use_cache",
                       "predict_only", "device", "gen_kwargs")),
    ],
    # register our models; on disable, take them out of its store (it has no public removal)
    "lm_eval.api.registry": [("model_registry.register", ("aliases", "target")), ("model_registry._objs", ())],
    "lm_eval.tasks.manager": [
        ("TaskManager.__init__", ("include_path", "include_defaults")),
        # Its index reports a task that overrides another (one of ours over lm-eval's is a clash).
        ("TaskIndex.build", ("paths",)),
    ],
    # harness/request_cache.py: a subclass of CachingLM (and of its CacheHook) in its place
    "lm_eval.api.model": [
        ("hash_args", ("attr", "args")),
        ("CachingLM.__init__", ("lm", "cache_db")),
        ("CachingLM.__getattr__", ("attr",)),
        ("CachingLM.get_cache_hook", ()),
        ("CacheHook.__init__", ("cachinglm",)),
        ("CacheHook.add_partial", ("attr", "req", "res")),
        ("LM.set_cache_hook", ("cache_hook",)),
        ("eval_logger.info", ()),  # request_cache logs lm-eval's own cache lines on it
    ],
    "lm_eval.tasks._factory": [
        ("TaskFactory.build", ("entry",)),
        ("Kind.GROUP", ()),
        # harness/groups.py: our groups subclass lm-eval's Group and use its public API
        ("Group.add", ("item",)), ("Group.pop", ("name",)), ("Group.get", ("name",)), ("Group.child_names", ()),
        ("Group.aggregate", ("task_metrics",)), ("Group.get_all_tasks", ("recursive",)),
        ("Group.__init__", ("name", "alias", "aggregate_metric_list", "metadata")),
        # our tasks subclass ConfigurableTask: each aggregation function, given the task's Scoring
        ("ConfigurableTask.aggregation", ()), ("ConfigurableTask.task_name", ()),
        # the clips of the documents a run evaluates, fetched before their requests are built
        ("ConfigurableTask.build_all_requests", ("limit", "samples", "rank", "world_size")),
        ("ConfigurableTask.doc_iterator", ("rank", "limit", "world_size", "samples")),
        ("ConfigurableTask.doc_to_audio", ("doc",)),
        # harness/failed_scoring.py: a failed multiple-choice document's right choices, read as lm-eval reads them
        ("ConfigurableTask.process_results", ("doc", "results")), ("ConfigurableTask.OUTPUT_TYPE", ()),
        ("ConfigurableTask.doc_to_choice", ("doc",)), ("ConfigurableTask.doc_to_target", ("doc",)),
        ("ConfigurableTask.doc_to_text", ("doc",)),
    ],
    "lm_eval.evaluator": [
        ("evaluate", ("lm", "task_dict")),
        ("_handle_back_comp", ("nested_dict",)),  # run_patches reads the legacy task dict as lm-eval does
        # harness/log_redaction.py: the logger of "Initializing <model> model, with arguments: ..."
        ("eval_logger.addFilter", ("filter",)),
    ],
    "lm_eval.loggers.evaluation_tracker": [
        ("EvaluationTracker.save_results_aggregated", ("results", "samples")),
        ("EvaluationTracker.save_results_samples", ("task_name", "samples")),  # diagnose and rejudge write through it
        # diagnose names each condition's run from lm-eval's own default name
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
UNKNOWN_MODEL = "but no model for this name found!"  # cli_patches: a misspelled --model (the names follow)
NO_DOCS = "task.build_requests() did not find any docs!"  # cli_patches: --limit 0
CUSTOM_KWARGS = "Custom kwargs can be passed to `--metadata`"  # task_patches: quiet for our tasks
TEXTS: dict[str, list[tuple[str, str, str]]] = {
    "lm_eval.tasks._factory": [
        ("lm_eval.api.task", "the right choices of a failed document (failed_scoring)",
         "gold = self.doc_to_text(doc)"),
        ("lm_eval.api.task", "the right choices of a failed document (failed_scoring)", "self.multiple_input = "),
        ("lm_eval.api.task", "the choice a failed document is scored by (failed_scoring)", "pred = np.argmax(lls)"),
    ],
    "lm_eval.tasks.manager": [
        ("lm_eval.tasks._index", "the TaskNameClash check (task_patches)", LOG_OVERRIDE),
        ("lm_eval.tasks.manager", "the misspelled-task message (cli_patches)", UNKNOWN_SPEC),
        ("lm_eval.api.task", "the custom-dataset warning quieted for our tasks (task_patches)", CUSTOM_KWARGS),
    ],
    "lm_eval.evaluator": [
        ("lm_eval.evaluator", "the audio-task-on-a-text-model message (cli_patches)", NOT_MULTIMODAL),
        ("lm_eval.evaluator", "the log line whose credentials log_redaction masks", "with arguments: "),
    ],
    "lm_eval.api.model": [
        ("lm_eval.api.model", "the cache our models' answers go into (request_cache)",
         "self.dbdict = SqliteDict(cache_db, autocommit=True)"),
        ("lm_eval.api.model", "the cache our wrappers' partial answers go into (request_cache)",
         "self.dbdict = cachinglm.dbdict"),
        ("lm_eval.api.model", "the cache file named in the log (request_cache)", "self.cache_db: str = cache_db"),
        ("lm_eval.evaluator", "the class --use_cache wraps a model in, looked up at each run (request_cache)",
         "lm_eval.api.model.CachingLM("),
    ],
    "lm_eval.loggers.evaluation_tracker": [
        ("lm_eval.loggers.evaluation_tracker", "the judge logs' file names (run_patches)", "self.date_id = "),
        ("lm_eval.loggers.evaluation_tracker", "the results folder's name, set before the save (run_patches)",
         "self.general_config_tracker.model_name_sanitized"),
        ("lm_eval.loggers.evaluation_tracker", "the model's source and lm-eval's name for it, read to name the "
         "folder (run_patches)", "self.model_source = model_source"),
    ],
    "lm_eval._cli.run": [("lm_eval.config.evaluate_config", "the misspelled-tasks message (cli_patches)",
                          TASKS_NOT_FOUND),
                         ("lm_eval._cli.run", "the parsed configuration the checks read (cli_patches)",
                          "cfg = EvaluatorConfig.from_cli(args)"),
                         ("lm_eval.config.evaluate_config", "--metadata read with --model_args under it (cli_patches)",
                          "self.metadata = self.model_args | self.metadata"),
                         ("lm_eval.api.registry", "the misspelled-model message (cli_patches)", UNKNOWN_MODEL),
                         ("lm_eval.api.task", "the no-documents message of --limit 0 (cli_patches)", NO_DOCS)],
}
# Parameters a patch reads by position: (attribute, position counting self, name).
POSITIONS: dict[str, list[tuple[str, int, str]]] = {
    "lm_eval.tasks._factory": [("TaskFactory.build", 1, "entry")],
}


def _source(name: str) -> str:
    import importlib

    module = sys.modules.get(name) or importlib.import_module(name)
    return inspect.getsource(module)


def _resolve(module, dotted: str):
    """``dotted`` on ``module``, or, written ``other.module:dotted``, on that module."""
    if ":" in dotted:
        import importlib

        name, _, dotted = dotted.partition(":")
        module = sys.modules.get(name) or importlib.import_module(name)
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
        except (AttributeError, ImportError):
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
