"""Startup hook: makes plain ``lm_eval`` see the plugin's models and tasks.

lm-eval 0.4.13 reads no plugin entry points, so ``lm_eval_audio.pth`` (installed next
to the package in site-packages) calls :func:`install` in every interpreter of the
environment. That is why this module imports nothing heavy: it only puts a finder on
``sys.meta_path`` that waits for lm-eval's own modules to be imported, then

* registers our models as lazy ``"module:Class"`` placeholders, after lm-eval's
  built-ins (``get_model`` only imports ``lm_eval.models`` into an EMPTY registry, so
  registering first would hide ``hf`` and the rest);
* puts our ``tasks/`` folder on every ``TaskManager``'s include path, before the
  user's ``--include_path`` so that a user's task of the same name wins;
* makes lm-eval's request-cache key (``--use_cache``) depend on the audio content, keeps
  requests that failed for good (``lm_eval_audio.model_wrappers.failed_requests``) out of that cache, and
  moves an unreadable cache file aside (with a warning) instead of failing the run;
* leaves out of a group a member task whose data is absent from a partial snapshot
  (the loader raises an error marked ``skippable_in_group``), with a warning;
* lets a group average its subgroups instead of its leaf tasks
  (``metadata: {aggregate_over: subgroups}``: AIR-Bench's average of categories);
* tells aggregation functions which task they aggregate (for the judge metrics), and
  lets them report their own standard errors;
* refuses a credential in an audio model's ``--model_args`` before lm-eval logs them, and,
  before the model runs, a judged task with no judge configured; and writes
  the judge logs and settings next to lm-eval's results;
* prints the plugin's own errors (bad data, a missing judge, a credential in ``--model_args``)
  as one message and exit status 2, without lm-eval's traceback (``LM_EVAL_AUDIO_TRACEBACK=1``
  keeps it);
* names a ``cascade`` run's results folder after its recognizer and LLM, and an ablated
  run's (``audio=none``, ...) after its condition; records the condition in the results,
  in every logged sample and in the ``--use_cache`` key.

Set ``LM_EVAL_AUDIO_DISABLE_HOOK=1`` to switch all of this off.
"""

from __future__ import annotations

import os
import sys

# No importlib.abc: importing it pulls in importlib.resources, tempfile and typing (~8 ms
# at every interpreter start). The import system only needs the methods below.

MODELS = {
    "hf-audio": "lm_eval_audio.model_wrappers.hf_audio:HFAudioLM",
    "openai-audio": "lm_eval_audio.model_wrappers.openai_audio:OpenAIAudioLM",
    "cascade": "lm_eval_audio.model_wrappers.cascade:CascadeLM",
}

def tasks_dir() -> str:
    """The folder holding the plugin's YAML tasks.

    A wheel puts it at ``lm_eval_audio/tasks``; an editable install maps that name to
    the repository's top-level ``tasks/``. Asking the import system covers both.
    """
    import importlib.util

    spec = importlib.util.find_spec("lm_eval_audio.tasks")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("lm_eval_audio.tasks is not installed: reinstall the project with pip")
    return list(spec.submodule_search_locations)[0]


# --- what happens when lm-eval's modules load -------------------------------------


def _on_registry(module) -> None:
    import lm_eval.models  # noqa: F401  (registers the built-ins first; see module doc)

    for name, target in MODELS.items():
        if name not in module.model_registry:
            module.model_registry.register(name, target=target)


def _on_task_manager(module) -> None:
    cls = module.TaskManager
    if getattr(cls.__init__, "_lm_eval_audio", False):
        return
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        import inspect

        # Bind as the original would, so positional and keyword calls both keep working.
        bound = inspect.signature(original).bind(self, *args, **kwargs)
        bound.apply_defaults()
        if bound.arguments.get("include_defaults", True):
            bound.arguments["include_path"] = _with_our_tasks(bound.arguments.get("include_path"))
        original(*bound.args, **bound.kwargs)

    __init__._lm_eval_audio = True
    __init__.__wrapped__ = original
    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__


def _with_our_tasks(include_path):
    ours = tasks_dir()
    if include_path is None or include_path == "":
        return [ours]
    user = list(include_path) if isinstance(include_path, (list, tuple)) else [include_path]
    return [ours] + [p for p in user if os.path.abspath(str(p)) != os.path.abspath(ours)]


def _on_api_model(module) -> None:
    if getattr(module.hash_args, "_lm_eval_audio", False):
        return
    original = module.hash_args

    def hash_args(attr, args):
        from lm_eval_audio.audio.refs import cache_key_args

        key_args = cache_key_args(args)
        if _caching_condition[0] not in (None, "full"):
            # What the model heard is part of the answer's key (model_args audio=...).
            key_args = [*key_args, {"lm_eval_audio_condition": _caching_condition[0]}]
        return original(attr, key_args)

    hash_args._lm_eval_audio = True
    hash_args.__wrapped__ = original
    module.hash_args = hash_args

    def make(original_getattr):
        def __getattr__(self, attr):
            fn = original_getattr(self, attr)
            if attr not in ("loglikelihood", "loglikelihood_rolling", "generate_until"):
                return fn

            def run(requests):
                from lm_eval_audio.model_wrappers import failed_requests

                condition = getattr(self.lm, "audio_condition", None)
                _caching_condition[0] = None if condition is None else str(condition)
                failed_requests.requests_in_call(len(requests))
                try:
                    answers = fn(requests)
                    # A failed request is not an answer: keep it out of the cache so a re-run asks again.
                    for request, answer in zip(requests, answers):
                        if failed_requests.is_failed(answer):
                            self.dbdict.pop(module.hash_args(attr, request.args), None)
                finally:
                    _caching_condition[0] = None
                    failed_requests.requests_in_call(None)
                self.dbdict.commit()
                return answers

            return run

        return __getattr__

    _wrap(module.CachingLM, "__getattr__", make)

    def make_init(original):
        def __init__(self, lm, cache_db, *args, **kwargs):
            from lm_eval_audio.storage.text_store import set_aside_unreadable, sqlite_problem

            # Checked first: SqliteDict would open a damaged file and fail at the first lookup.
            problem = sqlite_problem(cache_db)
            if problem is not None:
                set_aside_unreadable(cache_db, "the --use_cache database", problem)
            original(self, lm, cache_db, *args, **kwargs)

        return __init__

    _wrap(module.CachingLM, "__init__", make_init)


# The audio condition of the model whose requests CachingLM is keying (set around each call).
_caching_condition: list = [None]


def _wrap(owner, name: str, make) -> None:
    """Replace ``owner.name`` by ``make(original)``, once."""
    original = getattr(owner, name)
    if getattr(original, "_lm_eval_audio", False):
        return
    wrapper = make(original)
    wrapper._lm_eval_audio = True
    wrapper.__wrapped__ = original
    wrapper.__doc__ = original.__doc__
    setattr(owner, name, wrapper)


def _on_group(module) -> None:
    def make(original):
        def aggregate(self, task_metrics):
            if (self.metadata or {}).get("aggregate_over") != "subgroups":
                return original(self, task_metrics)
            import types

            # Children are aggregated before parents (bottom-up), so each subgroup's
            # metrics are already in task_metrics under its name: let lm-eval's own
            # arithmetic average those instead of the leaf tasks.
            children = [types.SimpleNamespace(task_name=getattr(c, "task_name", None) or c.name) for c in self]
            self.get_all_tasks = lambda recursive=True: children
            try:
                return original(self, task_metrics)
            finally:
                del self.get_all_tasks

        return aggregate

    _wrap(module.Group, "aggregate", make)


_ABSENT = object()


def _on_task_factory(module) -> None:
    skipped: list[list[Exception]] = []  # per group being built, innermost last

    def make_build(original):
        def build(self, *args, **kwargs):
            try:
                return original(self, *args, **kwargs)
            except Exception as e:
                if not skipped or not getattr(e, "skippable_in_group", False):
                    raise
                import logging

                logging.getLogger("lm_eval.audio").warning("left out of its group: %s", e)
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

    _wrap(module.TaskFactory, "build", make_build)
    _wrap(module.TaskFactory, "_build_group_members", make_members)


def _on_evaluator_utils(module) -> None:
    def make(original):
        def _compute_task_aggregations(task, raw_metrics, *args, **kwargs):
            from lm_eval_audio.harness import aggregation_context

            with aggregation_context.aggregating(task.task_name, getattr(task.config, "metadata", None)):
                agg_metrics, sample_len = original(task, raw_metrics, *args, **kwargs)
                aggregation_context.fill_stderrs(agg_metrics)
            return agg_metrics, sample_len

        return _compute_task_aggregations

    _wrap(module, "_compute_task_aggregations", make)


def _on_evaluator(module) -> None:
    def make(original):
        def evaluate(lm, task_dict, *args, **kwargs):
            from lm_eval_audio.storage import run_state as run_report
            from lm_eval_audio.judges import judge_log
            from lm_eval_audio.judges.judge_config import preflight

            if isinstance(task_dict, dict) and "tasks" in task_dict:
                tasks = task_dict["tasks"]
            else:  # the legacy nested form that get_task_dict() returns, as lm-eval itself reads it
                from lm_eval.evaluator_utils import _handle_back_comp

                tasks = _handle_back_comp(task_dict)[1] if isinstance(task_dict, dict) else {}
            preflight(tasks or {})
            judge_log.reset()
            results = original(lm, task_dict, *args, **kwargs)
            data_notes = run_report.take()
            if isinstance(results, dict):  # rank 0: what the judges did and what the data lacked
                if judge_log.summaries():
                    results["lm_eval_audio_judge"] = judge_log.summaries()
                if data_notes:
                    results["lm_eval_audio_data"] = data_notes
                _record_condition(results, getattr(lm, "audio_condition", None))
                _record_item_scores(results)
            return results

        return evaluate

    _wrap(module, "evaluate", make)

    def make_simple(original):
        def simple_evaluate(*args, **kwargs):
            import inspect

            from lm_eval_audio.endpoints.model_args import refuse_secrets

            bound = inspect.signature(original).bind_partial(*args, **kwargs).arguments
            model, given = bound.get("model"), bound.get("model_args")
            if isinstance(model, str) and model in MODELS and given:
                # Before lm-eval logs the arguments ("Initializing ... with arguments: {...}").
                from lm_eval.utils import simple_parse_args_string

                given = simple_parse_args_string(given) if isinstance(given, str) else dict(given)
                refuse_secrets(model, given, given.get("api_key_env") or given.get("llm_api_key_env"))
            if isinstance(bound.get("metadata"), dict):  # the judge's settings travel there, into the results
                refuse_secrets("lm-eval-audio", bound["metadata"], where="metadata")
            return original(*args, **kwargs)

        return simple_evaluate

    _wrap(module, "simple_evaluate", make_simple)


def _record_condition(results: dict, condition) -> None:
    """What the model heard (``audio=``), in the results and in every sample's log line."""
    if condition is None:
        return  # not one of our wrappers
    results["lm_eval_audio_condition"] = str(condition)
    for samples in (results.get("samples") or {}).values():
        for sample in samples:
            sample["audio_condition"] = str(condition)


def _record_item_scores(results: dict) -> None:
    """The judge metrics' per-document scores, into each logged sample (``item_scores``)."""
    from lm_eval_audio.harness import aggregation_context

    scores = aggregation_context.take_item_scores()
    for task, samples in (results.get("samples") or {}).items():
        by_metric = scores.get(task, {})
        if by_metric and len({s.get("filter") for s in samples}) > 1:
            # The aggregation ran once per filter and kept the last one's scores: which is unknown here.
            import logging

            logging.getLogger("lm_eval.audio").warning(
                "%s: several filters; the judge metrics' per-document scores are not written into its samples", task)
            continue
        for sample in samples if by_metric else ():
            sample["item_scores"] = {metric: values.get(sample["doc_id"]) for metric, values in by_metric.items()}


def _on_evaluation_tracker(module) -> None:
    def make(original):
        def save_results_aggregated(self, results, samples=None):
            original(self, results, samples)
            if self.output_path and getattr(self, "date_id", None):
                import logging
                from pathlib import Path

                from lm_eval_audio.judges import judge_log

                path = Path(self.output_path)
                folder = path.parent if path.suffix == ".json" else path / str(
                    self.general_config_tracker.model_name_sanitized
                )
                for written in judge_log.write(str(folder), self.date_id):
                    logging.getLogger("lm_eval.audio.judge").info("judge log written to %s", written)

        return save_results_aggregated

    _wrap(module.EvaluationTracker, "save_results_aggregated", make)

    def make_naming(original):
        def log_experiment_args(self, model_source, model_args, *args, **kwargs):
            original(self, model_source, model_args, *args, **kwargs)
            if model_source in MODELS:
                from lm_eval.utils import sanitize_model_name

                self.model_name = results_folder_name(model_source, model_args, self.model_name)
                self.model_name_sanitized = sanitize_model_name(self.model_name)

        return log_experiment_args

    _wrap(module.GeneralConfigTracker, "log_experiment_args", make_naming)


def results_folder_name(model_source: str, model_args, name: str) -> str:
    """The results folder's name: a ``cascade`` run's after its recognizer and LLM (lm-eval
    would take the first "model=" it finds, asr_model's value, or with no arguments pick
    one at random); an ablated run's with its condition, ``<name>__audio-none``."""
    from lm_eval.utils import simple_parse_args_string

    args = simple_parse_args_string(model_args) if isinstance(model_args, str) else dict(model_args or {})
    if model_source == "cascade":
        from lm_eval_audio.model_wrappers.cascade import results_name

        name = results_name(args)
    if "audio" in args:
        from lm_eval_audio.audio.conditions import parse

        condition = parse(args["audio"], model_source)
        if condition.kind != "full":
            name = f"{name}__audio-{condition.label.replace(':', '-')}"
    return name


def _on_cli(module) -> None:
    def make(original):
        def cli_evaluate(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            except Exception as e:
                # The plugin's own errors (bad data, a missing judge, an unreadable clip, a credential in
                # model_args) name the file or setting and the fix: the message is what a user needs.
                if not type(e).__module__.startswith("lm_eval_audio") or os.environ.get("LM_EVAL_AUDIO_TRACEBACK"):
                    raise
                sys.stderr.write(f"lm_eval: error: {e}\n(LM_EVAL_AUDIO_TRACEBACK=1 shows where it was raised)\n")
                raise SystemExit(2) from None

        return cli_evaluate

    _wrap(module, "cli_evaluate", make)


_AFTER_IMPORT = {
    "lm_eval.__main__": _on_cli,
    "lm_eval.api.registry": _on_registry,
    "lm_eval.tasks.manager": _on_task_manager,
    "lm_eval.api.model": _on_api_model,
    "lm_eval.api.group": _on_group,
    "lm_eval.tasks._factory": _on_task_factory,
    "lm_eval.evaluator_utils": _on_evaluator_utils,
    "lm_eval.evaluator": _on_evaluator,
    "lm_eval.loggers.evaluation_tracker": _on_evaluation_tracker,
}


class _RunAfterExec:
    def __init__(self, loader, callback):
        self._loader = loader
        self._callback = callback

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._callback(module)

    def __getattr__(self, name):  # get_source, get_code, ... for tracebacks and pdb
        return getattr(self._loader, name)


class _LmEvalWatcher:
    """Finds nothing itself; wraps the real loader of the few modules we act on."""

    def find_spec(self, fullname, path=None, target=None):
        callback = _AFTER_IMPORT.get(fullname)
        if callback is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RunAfterExec(spec.loader, callback)
                return spec
        return None


def install() -> None:
    """Called from ``lm_eval_audio.pth`` at interpreter start."""
    if os.environ.get("LM_EVAL_AUDIO_DISABLE_HOOK"):
        return
    if any(isinstance(f, _LmEvalWatcher) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _LmEvalWatcher())
    # lm-eval modules imported before this call (the CLI calling install() again) are
    # patched directly; each callback is idempotent.
    for name, callback in _AFTER_IMPORT.items():
        module = sys.modules.get(name)
        if module is not None:
            callback(module)
