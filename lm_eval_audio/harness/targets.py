"""What each patch relies on in lm-eval, checked before the patch is applied.

One entry per attribute of lm-eval's that a patch reads (a patched callable, a private name, a helper of lm-eval's
modules, a field lm-eval sets in ``__init__``, a message it raises, an argument passed by position), in one of :data:`TARGETS` (the attribute, dotted below the module, and the
parameters it is called with by name), :data:`POSITIONS` (the parameters it is called with by position) and
:data:`TEXTS` (the text of lm-eval's source it relies on: a message, a log line, a field set in ``__init__``, which no
class attribute shows). Each is filed under the watched module (``startup.WATCHED``) whose loading checks it; an
attribute of another lm-eval module is written ``other.module:dotted``. The startup hook checks a module's entries
when lm-eval loads it and disables the plugin on the first problem; the tests check them all against the installed
lm-eval, and that no module outside ``harness/`` uses a private lm-eval name (``tests/test_lm_eval_private_names.py``).
What the code outside the patches reads of lm-eval is in the ``ELSEWHERE_*`` tables, checked by the tests only.
"""

from __future__ import annotations

import inspect
import sys

# module -> [(attribute, parameters the patch relies on)]
TARGETS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    # every way of starting a run reaches Run._execute(args), which parses it with from_cli(namespace) first: the
    # checks parse it with it, once, hand lm-eval that configuration (cli_patches.parsed_once, from_cli a classmethod)
    # and read these fields of it (a module named before ":" is imported for its targets)
    "lm_eval._cli.run": [
        ("Run._execute", ("args",)),
        ("lm_eval.config.evaluate_config:EvaluatorConfig.from_cli", ("namespace",)),
        *((f"lm_eval.config.evaluate_config:EvaluatorConfig.{name}", ())
          for name in ("model", "tasks", "model_args", "metadata", "include_path", "limit", "use_cache",
                       "predict_only", "device", "gen_kwargs")),
    ],
    # register our models; on disable, take them out of its store (it has no public removal); and, as the first
    # task of ours is built (harness/task_building.register_quality_metrics), our metrics
    "lm_eval.api.registry": [
        ("model_registry.register", ("aliases", "target")), ("model_registry._objs", ()),
        ("model_registry.__contains__", ()),
        # the quality metrics of spoken answers, named in a task's metric_list like any other
        ("metric_registry.register", ("aliases", "target")), ("metric_registry.__contains__", ()),
        ("metric_agg_registry.register", ("aliases", "target")),
        ("aggregation_registry.register", ("aliases", "target")), ("aggregation_registry.__contains__", ()),
        ("higher_is_better_registry.register", ("aliases", "target")),
    ],
    "lm_eval.tasks.manager": [
        ("TaskManager.__init__", ("include_path", "include_defaults")),
        # Its index reports a task that overrides another (one of ours over lm-eval's is a clash).
        ("TaskIndex.build", ("paths",)),
        # harness/task_index_cache.py: the YAML parses the index makes, kept between runs (the name build calls)
        ("lm_eval.tasks._index:load_yaml", ("path", "resolve_func", "recursive", "_seen")),
        ("TaskManager.all_tasks", ()),  # cli_patches: the names a misspelled task is matched against
        # benchmarks/registry.py: our task names and their YAML files, as lm-eval's index finds them (the index's
        # entries: what TaskFactory.build gets, read by harness/task_building.py), and a YAML file as written
        ("lm_eval.tasks._index:Entry.__init__", ("name", "kind", "yaml_path")),
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
        # a group of ours read and changed through Group's own interface (harness/task_building.py; its fields are
        # Group.__init__'s parameters, above: a dataclass)
        ("Group.__iter__", ()), ("Group.__len__", ()),
        # harness/preflight.py: --predict_only is the one metric "bypass" lm-eval gives each task
        ("ConfigurableTask.override_metric", ("metric_name",)), ("ConfigurableTask.higher_is_better", ()),
        # harness/task_building.py: a task answered in speech keeps its answers spoken through its filters
        ("ConfigurableTask.apply_filters", ()), ("ConfigurableTask.instances", ()),
    ],
    "lm_eval.evaluator": [
        ("evaluate", ("lm", "task_dict")),
        # run_patches reads the legacy task dict as lm-eval does
        ("lm_eval.evaluator_utils:_handle_back_comp", ("nested_dict",)),
        # harness/log_redaction.py: the logger of "Initializing <model> model, with arguments: ..."
        ("eval_logger.addFilter", ("filter",)),
    ],
    "lm_eval.loggers.evaluation_tracker": [
        ("EvaluationTracker.save_results_aggregated", ("results", "samples")),
        # the fields that name the results folder: run_patches and harness/tracker_naming.py set them
        ("GeneralConfigTracker.model_source", ()), ("GeneralConfigTracker.model_name", ()),
        ("GeneralConfigTracker.model_name_sanitized", ()),
    ],
    "lm_eval.utils": [
        ("make_table", ("result_dict", "column")),
        ("sanitize_model_name", ("model_name",)),  # the results folder's name (run_patches, tracker_naming)
        ("simple_parse_args_string", ("args_string",)),  # --model_args read as lm-eval reads them (cli, diagnose)
    ],
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
        ("lm_eval.api.task", "the documents each task of ours takes notes from (task_building)", "self.dataset = "),
        ("lm_eval.api.task", "the --predict_only check (preflight): higher_is_better() lists the task's metrics",
         "return self._higher_is_better"),
    ],
    "lm_eval.tasks.manager": [
        ("lm_eval.tasks._index", "the TaskNameClash check (task_patches)", LOG_OVERRIDE),
        ("lm_eval.tasks.manager", "the misspelled-task message (cli_patches)", UNKNOWN_SPEC),
        ("lm_eval.api.task", "the custom-dataset warning quieted for our tasks (task_patches)", CUSTOM_KWARGS),
        # the loggers task_patches filters are these modules' own
        ("lm_eval.tasks._index", "the logger of the TaskNameClash check (task_patches)",
         "log = logging.getLogger(__name__)"),
        ("lm_eval.tasks._index", "the override line's arguments: the name, the new file, the one it overrides",
         "\"Task '%s' from %s overrides existing task from %s\""),
        ("lm_eval.api.task", "the logger of the custom-dataset warning (task_patches)",
         "eval_logger = logging.getLogger(__name__)"),
    ],
    "lm_eval.evaluator": [
        ("lm_eval.evaluator", "the audio-task-on-a-text-model message (cli_patches)", NOT_MULTIMODAL),
        ("lm_eval.evaluator", "the log line whose credentials log_redaction masks", "with arguments: "),
        ("lm_eval.evaluator", "the --predict_only check (preflight)", 'override_metric(metric_name="bypass")'),
        ("lm_eval.evaluator_utils", "the legacy task dict's tasks, its second half (run_patches)",
         "return groups, tasks"),
    ],
    "lm_eval.api.model": [
        ("lm_eval.api.model", "the cache our models' answers go into (request_cache)",
         "self.dbdict = SqliteDict(cache_db, autocommit=True)"),
        ("lm_eval.api.model", "the cache our wrappers' partial answers go into (request_cache)",
         "self.dbdict = cachinglm.dbdict"),
        ("lm_eval.api.model", "the cache file named in the log (request_cache)", "self.cache_db: str = cache_db"),
        ("lm_eval.evaluator", "the class --use_cache wraps a model in, looked up at each run (request_cache)",
         "lm_eval.api.model.CachingLM("),
        ("lm_eval.api.model", "the model a CachingLM wraps (request_cache)", "self.lm: LM = lm"),
        ("lm_eval.api.model", "the cache hook our models store partial answers on (model_wrappers, request_cache)",
         "self.cache_hook = cache_hook"),
    ],
    "lm_eval.loggers.evaluation_tracker": [
        ("lm_eval.loggers.evaluation_tracker", "the judge logs' file names (run_patches)", "self.date_id = "),
        ("lm_eval.loggers.evaluation_tracker", "the results folder's name, set before the save (run_patches)",
         "self.general_config_tracker.model_name_sanitized"),
        ("lm_eval.loggers.evaluation_tracker", "the model's source and lm-eval's name for it, read to name the "
         "folder (run_patches)", "self.model_source = model_source"),
        ("lm_eval.loggers.evaluation_tracker", "the run's configuration, named by run_patches and tracker_naming",
         "self.general_config_tracker = GeneralConfigTracker()"),
        ("lm_eval.loggers.evaluation_tracker", "the folder the judge logs go into (run_patches)",
         "self.output_path = output_path"),
    ],
    "lm_eval._cli.run": [("lm_eval.config.evaluate_config", "the misspelled-tasks message (cli_patches)",
                          TASKS_NOT_FOUND),
                         ("lm_eval._cli.run", "the parse parsed_once answers with the configuration the checks "
                          "parsed (cli_patches)", "cfg = EvaluatorConfig.from_cli(args)"),
                         ("lm_eval.config.evaluate_config", "--metadata read with --model_args under it (cli_patches)",
                          "self.metadata = self.model_args | self.metadata"),
                         ("lm_eval.api.registry", "the misspelled-model message (cli_patches)", UNKNOWN_MODEL),
                         ("lm_eval.api.task", "the no-documents message of --limit 0 (cli_patches)", NO_DOCS)],
}
# Parameters passed or read by position: (attribute, position, name). The position is the parameter's in the
# signature as ``inspect`` reads it off the attribute: counting self for a method looked up on its class, from 0
# for a function, a staticmethod and a classmethod (bound to its class).
POSITIONS: dict[str, list[tuple[str, int, str]]] = {
    "lm_eval._cli.run": [("Run._execute", 0, "args"),
                         ("lm_eval.config.evaluate_config:EvaluatorConfig.from_cli", 0, "namespace")],
    "lm_eval.api.model": [
        ("hash_args", 0, "attr"), ("hash_args", 1, "args"),
        ("CachingLM.__init__", 1, "lm"), ("CachingLM.__init__", 2, "cache_db"),
        ("CacheHook.__init__", 1, "cachinglm"),
        ("CacheHook.add_partial", 1, "attr"), ("CacheHook.add_partial", 2, "req"), ("CacheHook.add_partial", 3, "res"),
    ],
    "lm_eval.tasks._factory": [
        ("TaskFactory.build", 1, "entry"),
        ("ConfigurableTask.process_results", 1, "doc"), ("ConfigurableTask.process_results", 2, "results"),
        *((f"ConfigurableTask.{name}", 1, "doc")
          for name in ("doc_to_text", "doc_to_target", "doc_to_choice", "doc_to_audio")),
        ("Group.add", 1, "item"), ("Group.pop", 1, "name"), ("Group.get", 1, "name"),
        ("Group.aggregate", 1, "task_metrics"),
    ],
    "lm_eval.evaluator": [("evaluate", 0, "lm"), ("evaluate", 1, "task_dict"),
                          ("lm_eval.evaluator_utils:_handle_back_comp", 0, "nested_dict")],
    "lm_eval.loggers.evaluation_tracker": [("EvaluationTracker.save_results_aggregated", 1, "results"),
                                           ("EvaluationTracker.save_results_aggregated", 2, "samples")],
    "lm_eval.utils": [("make_table", 0, "result_dict"), ("make_table", 1, "column"),
                      ("sanitize_model_name", 0, "model_name"), ("simple_parse_args_string", 0, "args_string")],
}


# The couplings of the code outside the patches (the model wrappers, the benchmark folders, the diagnose, judge and
# download commands, the metrics) to lm-eval, in the same three forms, filed under the module that holds each. None is
# a patch's: a change here breaks the feature that reads it, not lm-eval's runs, so the startup hook does not check
# them (it would step the whole plugin aside for one feature); the tests check them against the installed lm-eval,
# which the lock pins (tests/test_harness_targets.py).
ELSEWHERE_TARGETS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "lm_eval.api.registry": [
        ("get_model", ("model_name",)),  # diagnose builds the model itself, once for every condition
    ],
    "lm_eval.models.utils": [
        # model_wrappers/request_parts.py: a task's generation_kwargs read as lm-eval's own models read them
        ("normalize_gen_kwargs", ("gen_kwargs", "default_max_gen_toks")),
    ],
    "lm_eval.tasks.manager": [("TaskManager.load", ("task_list",))],  # data_download: the tasks, as a run builds them
    # benchmarks/registry.py: our task names and their YAML files, as lm-eval's index finds them, and a YAML as written
    "lm_eval.tasks._index": [("TaskIndex.build", ("paths",))],
    "lm_eval.tasks._yaml_loader": [("load_yaml", ("path", "resolve_func"))],
    "lm_eval.api.model": [("LM.create_from_arg_string", ("arg_string", "additional_config"))],  # diagnose's models
    # model_wrappers: our models build requests (cascade's LLM requests) and copy them (text_backbone's text-only
    # requests, dataclasses.replace(arguments=)); rejudge reads their fields
    "lm_eval.api.instance": [("Instance.__init__",
                              ("request_type", "doc", "arguments", "idx", "metadata", "task_name", "doc_id", "repeats"))],
    "lm_eval.api.metrics": [("mean_stderr", ())],  # metrics/stderr.py: the stderr of our aggregations, as lm-eval's
    # data_download: the documents a run evaluates under --limit, as lm-eval counts them
    "lm_eval.evaluator_utils": [("get_sample_size", ("task", "limit"))],
    "lm_eval.loggers.evaluation_tracker": [
        ("EvaluationTracker.save_results_samples", ("task_name", "samples")),  # diagnose and rejudge write through it
        # diagnose names each condition's run from lm-eval's own default name (harness/tracker_naming.py)
        ("GeneralConfigTracker._get_model_name", ("model_args",)),
    ],
    "lm_eval.utils": [
        ("setup_logging", ("verbosity",)),  # diagnose logs as lm_eval does
        # model_wrappers/hf_scoring.py: loglikelihood_rolling's windows, cut as lm-eval's own models cut them
        ("get_rolling_token_windows", ("token_list", "prefix_token", "max_seq_len", "context_len")),
        ("make_disjoint_window", ("pair",)),
    ],
}
ELSEWHERE_POSITIONS: dict[str, list[tuple[str, int, str]]] = {
    "lm_eval.models.utils": [("normalize_gen_kwargs", 0, "gen_kwargs")],
    "lm_eval.tasks.manager": [("TaskManager.load", 1, "task_list")],
    "lm_eval.tasks._index": [("TaskIndex.build", 0, "paths")],
    "lm_eval.tasks._yaml_loader": [("load_yaml", 0, "path")],
    "lm_eval.api.model": [("LM.create_from_arg_string", 0, "arg_string"),
                          ("LM.create_from_arg_string", 1, "additional_config")],
    "lm_eval.api.instance": [("Instance.__init__", 1, "request_type"), ("Instance.__init__", 2, "doc"),
                             ("Instance.__init__", 3, "arguments")],
    "lm_eval.api.metrics": [("mean_stderr", 0, "arr")],
    "lm_eval.evaluator_utils": [("get_sample_size", 0, "task"), ("get_sample_size", 1, "limit")],
    "lm_eval.utils": [("setup_logging", 0, "verbosity"), ("make_disjoint_window", 0, "pair")],
}
ELSEWHERE_TEXTS: dict[str, list[tuple[str, str, str]]] = {
    # a benchmark folder's IFEval subset, scored by lm-eval's IFEval code (read, not imported: about 1 s)
    "lm_eval.tasks.ifeval.utils": [
        ("lm_eval.tasks.ifeval.utils", "the IFEval items a benchmark folder's scoring builds", "class InputExample:"),
        ("lm_eval.tasks.ifeval.utils", "the IFEval checks a benchmark folder calls (the item, then the response)",
         "def test_instruction_following_strict("),
        ("lm_eval.tasks.ifeval.utils", "the IFEval checks a benchmark folder calls (the item, then the response)",
         "def test_instruction_following_loose("),
        ("lm_eval.tasks.ifeval.utils", "the IFEval results a benchmark folder's scoring reads",
         "follow_instruction_list: list[bool]"),
    ],
    "lm_eval.tasks.ifeval.instructions_registry": [
        ("lm_eval.tasks.ifeval.instructions_registry", "the instruction ids a benchmark folder's loader checks",
         "INSTRUCTION_DICT = {"),
    ],
    "lm_eval.evaluator": [
        ("lm_eval.evaluator", "the flag our models and diagnose's take audio tasks by (MULTIMODAL = True)",
         'getattr(lm, "MULTIMODAL", False)'),
    ],
    "lm_eval.api.instance": [
        ("lm_eval.api.instance", "the task, document and repeats of cascade's LLM requests (model_wrappers)",
         "self.task_name, self.doc_id, self.repeats = self.metadata"),
    ],
    "lm_eval.utils": [
        ("lm_eval.utils", "our loggers (lm_eval.audio.*) print through lm-eval's, below it",
         'lm_eval_logger = logging.getLogger("lm_eval")'),
    ],
}


def _source(name: str) -> str:
    """The source of module ``name``: read off the module where it is loaded, else from its file without running it
    (lm-eval's IFEval code takes a second to import)."""
    module = sys.modules.get(name)
    if module is not None:
        return inspect.getsource(module)
    import importlib.util

    spec = importlib.util.find_spec(name)
    source = spec.loader.get_source(name) if spec is not None and spec.loader is not None else None
    if source is None:
        raise ImportError(f"no source of {name}")
    return source


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


def _where(module_name: str, dotted: str) -> str:
    """How a problem names an entry: ``module.attribute``, with the module that holds it."""
    holder, sep, dotted = dotted.rpartition(":")
    return f"{holder if sep else module_name}.{dotted}"


def problems(module_name: str, module, tables=None) -> list[str]:
    """What is missing or changed among ``module_name``'s targets, one line each; ``tables``: (targets, positions,
    texts), the patches' (:data:`TARGETS`, :data:`POSITIONS`, :data:`TEXTS`) unless told."""
    targets, positions, texts = tables or (TARGETS, POSITIONS, TEXTS)
    found = []
    for dotted, params in targets.get(module_name, ()):
        where = _where(module_name, dotted)
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
    for dotted, position, name in positions.get(module_name, ()):
        try:
            params = list(inspect.signature(inspect.unwrap(_resolve(module, dotted))).parameters)
        except (AttributeError, ImportError, TypeError, ValueError):
            found.append(f"{_where(module_name, dotted)} is missing")
            continue
        if len(params) <= position or params[position] != name:
            found.append(f"{_where(module_name, dotted)} no longer takes {name} in position {position}")
    for holder, user, text in texts.get(module_name, ()):
        try:
            source = _source(holder)
        except (ImportError, OSError, TypeError):
            found.append(f"{holder}'s source cannot be read, to check the text {text!r} that {user} relies on")
            continue
        if text not in source:
            found.append(f"{holder} no longer says {text!r}, which {user} relies on")
    return found
