"""The plugin's extensions of lm-eval 0.4.13, one function per lm-eval module.

lm-eval 0.4.13 has no plugin hooks for what these do; each acts only on the plugin's own
models (``model_wrappers.registry.is_ours``), tasks (:func:`our_task_names`) and audio
references, and otherwise calls lm-eval's function with the same arguments:

* ``lm_eval.api.registry``: registers our models as lazy ``"module:Class"`` placeholders,
  after lm-eval's built-ins (``get_model`` only imports ``lm_eval.models`` into an EMPTY
  registry, so registering first would hide ``hf`` and the rest);
* ``lm_eval.tasks.manager``: puts our ``tasks/`` folder on every ``TaskManager``'s include
  path, before the user's ``--include_path`` so that a user's task of the same name wins; a
  task of ours that overrides one of lm-eval's own is an error (:class:`TaskNameClash`);
* ``lm_eval.api.model``: for our models' requests, makes the ``--use_cache`` key depend on the
  audio content and the ``audio=`` condition, keeps requests that failed for good out of the
  cache, and moves an unreadable cache file aside (with a warning) instead of failing the run;
* ``lm_eval.tasks._factory``: leaves out of a group a member task whose data is absent from a
  partial snapshot (only our loaders raise the errors marked ``skippable_in_group``);
* ``lm_eval.api.group``: lets a group average its subgroups instead of its leaf tasks (our
  YAMLs' ``metadata: {aggregate_over: subgroups}``: AIR-Bench's average of categories); marks a
  group that a partial snapshot left with fewer tasks than it lists, in its alias and results;
* ``lm_eval.evaluator_utils``: tells our tasks' aggregation functions which task they
  aggregate (the judge metrics) and lets them report their own standard errors;
* ``lm_eval.evaluator``: starts each run with a fresh run state; refuses a credential in our
  models' ``--model_args`` and, for runs of our models or tasks, in ``--metadata``, before
  lm-eval logs them; runs the judge preflight; puts what the run state holds into the results;
* ``lm_eval.loggers.evaluation_tracker``: writes the judge logs next to lm-eval's results;
  names a ``cascade`` run's results folder after its recognizer and LLM, and an ablated run's
  (``audio=none``, ...) after its condition;
* ``lm_eval.__main__``: prints the plugin's own errors (bad data, a missing judge, a
  credential in ``--model_args``) as one message and exit status 2, without lm-eval's
  traceback (``LM_EVAL_AUDIO_TRACEBACK=1`` keeps it).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import sys

from lm_eval_audio.harness.status import active
from lm_eval_audio.model_wrappers.registry import MODELS, is_ours, results_folder_name
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio")


class TaskNameClash(RuntimeError):
    """A task of the plugin has the name of one of lm-eval's own."""

    __module__ = "lm_eval_audio.harness.patches"


def _wrap(owner, name: str, make) -> None:
    """Replace ``owner.name`` by ``make(original)``, once; the wrapper steps aside (calls the
    original) once the plugin is disabled."""
    original = getattr(owner, name)
    if getattr(original, "_lm_eval_audio", False):
        return
    wrapper = make(original)

    @functools.wraps(original)
    def guarded(*args, **kwargs):
        return (wrapper if active() else original)(*args, **kwargs)

    guarded._lm_eval_audio = True
    setattr(owner, name, guarded)


@functools.lru_cache(maxsize=1)
def our_task_names() -> frozenset:
    """The task, group and tag names our YAML folder defines."""
    from pathlib import Path

    from lm_eval.tasks._index import TaskIndex

    from lm_eval_audio import tasks

    return frozenset(TaskIndex.build([Path(tasks.folder())]))


def _is_our_task(task) -> bool:
    name = getattr(task, "task_name", None) or getattr(getattr(task, "config", None), "task", None)
    return isinstance(name, str) and name in our_task_names()


# --- lm_eval.api.registry ---------------------------------------------------------------


def on_registry(module) -> None:
    import lm_eval.models  # noqa: F401  (registers the built-ins first; see module doc)

    for name, target in MODELS.items():
        if name not in module.model_registry:
            module.model_registry.register(name, target=target)


# --- lm_eval.tasks.manager --------------------------------------------------------------


class _Overrides(logging.Filter):
    """Collects the index's "Task '%s' from %s overrides existing task from %s" reports."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple] = []

    def filter(self, record):
        if record.getMessage().startswith("Task '") and "overrides existing task" in record.getMessage():
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

    _wrap(module.TaskManager, "__init__", make)


def _with_our_tasks(include_path, ours: str):
    if include_path is None or include_path == "":
        return [ours]
    user = list(include_path) if isinstance(include_path, (list, tuple)) else [include_path]
    return [ours] + [p for p in user if os.path.abspath(str(p)) != os.path.abspath(ours)]


# --- lm_eval.api.model ------------------------------------------------------------------


def on_api_model(module) -> None:
    def make_hash(original):
        def hash_args(attr, args):
            state = run_state.current()
            if state.caching_condition is None:  # not one of our models' calls
                return original(attr, args)
            from lm_eval_audio.audio.refs import cache_key_args

            key_args = cache_key_args(args)
            if state.caching_condition != "full":
                # What the model heard is part of the answer's key (model_args audio=...).
                key_args = [*key_args, {"lm_eval_audio_condition": state.caching_condition}]
            return original(attr, key_args)

        return hash_args

    _wrap(module, "hash_args", make_hash)

    def make_getattr(original_getattr):
        def __getattr__(self, attr):
            fn = original_getattr(self, attr)
            if attr not in ("loglikelihood", "loglikelihood_rolling", "generate_until") or not is_ours(self.lm):
                return fn

            def run(requests):
                from lm_eval_audio.model_wrappers import failed_requests

                state = run_state.current()
                state.caching_condition = str(getattr(self.lm, "audio_condition", None) or "full")
                state.requests_in_call = len(requests)
                try:
                    answers = fn(requests)
                    # A failed request is not an answer: keep it out of the cache so a re-run asks again.
                    for request, answer in zip(requests, answers):
                        if failed_requests.is_failed(answer):
                            self.dbdict.pop(module.hash_args(attr, request.args), None)
                finally:
                    state.caching_condition = None
                    state.requests_in_call = None
                self.dbdict.commit()
                return answers

            return run

        return __getattr__

    _wrap(module.CachingLM, "__getattr__", make_getattr)

    def make_init(original):
        def __init__(self, lm, cache_db, *args, **kwargs):
            if is_ours(lm):
                from lm_eval_audio.storage.text_store import set_aside_unreadable, sqlite_problem

                # Checked first: SqliteDict would open a damaged file and fail at the first lookup.
                problem = sqlite_problem(cache_db)
                if problem is not None:
                    set_aside_unreadable(cache_db, "the --use_cache database", problem)
            original(self, lm, cache_db, *args, **kwargs)

        return __init__

    _wrap(module.CachingLM, "__init__", make_init)


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

    _wrap(module.Group, "aggregate", make)


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

    _wrap(module.TaskFactory, "build", make_build)
    _wrap(module.TaskFactory, "_build_group_members", make_members)


# --- lm_eval.evaluator_utils ------------------------------------------------------------


def on_evaluator_utils(module) -> None:
    def make(original):
        def _compute_task_aggregations(task, raw_metrics, *args, **kwargs):
            if not _is_our_task(task):
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

    _wrap(module, "_compute_task_aggregations", make)


def _fill_stderrs(agg_metrics: dict, stderrs: dict) -> None:
    """Put the standard errors our aggregations reported where lm-eval wrote "N/A"."""
    for metric, value in stderrs.items():
        for key in list(agg_metrics):
            name, sep, _ = key.partition(",")
            if sep and name == f"{metric}_stderr" and agg_metrics[key] == "N/A":
                agg_metrics[key] = value


# --- lm_eval.evaluator ------------------------------------------------------------------


def on_evaluator(module) -> None:
    def make(original):
        def evaluate(lm, task_dict, *args, **kwargs):
            if isinstance(task_dict, dict) and "tasks" in task_dict:
                tasks = task_dict["tasks"] or {}
            else:  # the legacy nested form that get_task_dict() returns, as lm-eval itself reads it
                from lm_eval.evaluator_utils import _handle_back_comp

                tasks = _handle_back_comp(task_dict)[1] if isinstance(task_dict, dict) else {}
            ours = {name: task for name, task in tasks.items() if _is_our_task(task)}
            if not ours and not is_ours(lm):
                return original(lm, task_dict, *args, **kwargs)
            from lm_eval_audio.harness.preflight import preflight

            preflight(ours)
            try:
                results = original(lm, task_dict, *args, **kwargs)
            finally:
                state = run_state.finish()
            if isinstance(results, dict):  # rank 0: what the judges did and what the data lacked
                _record_run(results, state, getattr(lm, "audio_condition", None) if is_ours(lm) else None,
                            getattr(lm, "run_record", None) if is_ours(lm) else None)
            return results

        return evaluate

    _wrap(module, "evaluate", make)

    def make_simple(original):
        def simple_evaluate(*args, **kwargs):
            import inspect

            from lm_eval_audio.endpoints.model_args import refuse_secrets

            run_state.reset()
            bound = inspect.signature(original).bind_partial(*args, **kwargs).arguments
            model, given = bound.get("model"), bound.get("model_args")
            if isinstance(model, str) and model in MODELS and given:
                # Before lm-eval logs the arguments ("Initializing ... with arguments: {...}").
                from lm_eval.utils import simple_parse_args_string

                given = simple_parse_args_string(given) if isinstance(given, str) else dict(given)
                refuse_secrets(model, given, given.get("api_key_env") or given.get("llm_api_key_env"))
            if isinstance(bound.get("metadata"), dict) and _runs_ours(model, bound.get("tasks")):
                # The judge's settings travel in --metadata, into the results.
                refuse_secrets("lm-eval-audio", bound["metadata"], where="metadata")
            return original(*args, **kwargs)

        return simple_evaluate

    _wrap(module, "simple_evaluate", make_simple)


def _runs_ours(model, tasks) -> bool:
    if (isinstance(model, str) and model in MODELS) or is_ours(model):
        return True
    names = tasks.split(",") if isinstance(tasks, str) else list(tasks or ())
    return any(isinstance(n, str) and n in our_task_names() or _is_our_task(n) for n in names)


def _record_run(results: dict, state: run_state.RunState, condition, model_record: dict | None = None) -> None:
    """What the run state holds, into the results: the judge settings and counts
    (``lm_eval_audio_judge``), what the data lacked (``lm_eval_audio_data``), the audio
    condition, what the model says about how it ran (``lm_eval_audio_model``: family, decoding
    settings), and the judge metrics' per-document scores in each logged sample."""
    if model_record:
        results["lm_eval_audio_model"] = dict(model_record)
    if state.judge_summaries:
        results["lm_eval_audio_judge"] = dict(state.judge_summaries)
    if state.data_notes:
        results["lm_eval_audio_data"] = {kind: dict(entries) for kind, entries in state.data_notes.items()}
    samples_by_task = results.get("samples") or {}
    if condition is not None:
        results["lm_eval_audio_condition"] = str(condition)
        for samples in samples_by_task.values():
            for sample in samples:
                sample["audio_condition"] = str(condition)
    for task, samples in samples_by_task.items():
        heard = state.transcripts.get(task, {})
        for sample in samples:
            if sample.get("doc_id") in heard:  # why a cascade answered as it did, beside the answer
                sample["transcripts"] = heard[sample["doc_id"]]
        by_metric = state.item_scores.get(task, {})
        if not by_metric:
            continue
        if len({s.get("filter") for s in samples}) > 1:
            # The aggregation ran once per filter and kept the last one's scores: which is unknown here.
            log.warning("%s: several filters; the judge metrics' per-document scores are not written into its "
                        "samples", task)
            continue
        for sample in samples:
            scores = {metric: values.get(sample["doc_id"]) for metric, values in by_metric.items()}
            sample["item_scores"] = scores
            # Each judged score under its metric's name too, in place of the item that lm-eval logged there
            # (the document again, which the aggregation needed to ask the judge).
            sample.update(scores)


# --- lm_eval.loggers.evaluation_tracker -------------------------------------------------


def on_evaluation_tracker(module) -> None:
    def make(original):
        def save_results_aggregated(self, results, samples=None):
            original(self, results, samples)
            state = run_state.finished()
            if state is None or not (state.judge_records or state.submissions) or not (
                    self.output_path and getattr(self, "date_id", None)):
                return
            from pathlib import Path

            path = Path(self.output_path)
            folder = path.parent if path.suffix == ".json" else path / str(
                self.general_config_tracker.model_name_sanitized
            )
            for written in state.write_judge_logs(str(folder), self.date_id):
                logging.getLogger("lm_eval.audio.judge").info("judge log written to %s", written)
            for written in state.write_submissions(str(folder), self.date_id):
                logging.getLogger("lm_eval.audio").info("predictions for the official evaluation written to %s",
                                                        written)

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


# --- lm_eval.__main__ -------------------------------------------------------------------


def _raised_by_plugin(e: BaseException) -> bool:
    """The plugin's own errors (bad data, a missing judge, an unreadable clip, a wrong model argument) name
    the file or setting and the fix: its exception classes, and a ValueError raised in its own code."""
    if type(e).__module__.startswith("lm_eval_audio"):
        return True
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return (isinstance(e, ValueError) and tb is not None
            and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("lm_eval_audio"))


def _argv_value(flag: str) -> str | None:
    argv = sys.argv
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def _unknown_tasks_message(specs: list[str]) -> str:
    import difflib

    from lm_eval.tasks import TaskManager

    names = TaskManager(include_path=_argv_value("--include_path")).all_tasks
    parts = []
    for spec in specs:
        close = difflib.get_close_matches(spec, names, 5, 0.6)
        parts.append(f"unknown task {spec!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return "; ".join(parts) + " (`lm_eval ls tasks` lists every task; --include_path adds a folder of YAMLs)"


def user_error_message(e: BaseException) -> str | None:
    """One line for an error a user can fix, or None for one that needs its traceback (a bug)."""
    if _raised_by_plugin(e):
        return str(e)
    text = str(e)
    # lm-eval 0.4.13's own messages for the two commonest mistakes, with what to do instead
    unknown = re.search(r"Spec '(.+?)' is not a registered task/group/tag name", text)
    if isinstance(e, KeyError) and unknown:
        return _unknown_tasks_message([unknown.group(1)])
    if isinstance(e, ValueError) and text.startswith("Tasks not found: "):
        return _unknown_tasks_message(text.removeprefix("Tasks not found: ").split(", "))
    multimodal = re.search(r"Attempted to run tasks: (\[.*?\]) which require multimodal input", text)
    if isinstance(e, ValueError) and multimodal:
        return (f"tasks {multimodal.group(1)} carry audio, and --model {_argv_value('--model') or '?'} reads text only: "
                "use --model hf-audio (a transformers audio LM), cascade (ASR, then a text LLM) or openai-audio "
                "(an OpenAI-compatible endpoint serving an audio model)")
    return None


def check_data_first() -> None:
    """The benchmark data a run names are there, checked before lm-eval loads the model (it builds the tasks, and
    reads their data, only after): each benchmark folder's ``check_data`` gets the run's tasks of its own, so an
    unset or empty data folder is reported at once, not after the model has loaded."""
    import json

    from lm_eval_audio.benchmarks import registry

    tasks = [t.strip() for t in (_argv_value("--tasks") or "").split(",") if t.strip()]
    try:
        metadata = json.loads(_argv_value("--metadata") or "{}")
    except ValueError:
        return  # lm-eval reports a malformed --metadata itself
    if not isinstance(metadata, dict) or not tasks:
        return
    # Names of ours only: a misspelled name is lm-eval's "not found", with suggestions.
    for benchmark, names in registry.by_benchmark(tasks, _argv_value("--include_path") or ()).items():
        if benchmark.check_data is not None:
            benchmark.check_data(names, metadata)


def on_cli(module) -> None:
    def make(original):
        def cli_evaluate(*args, **kwargs):
            try:
                command = sys.argv[1] if len(sys.argv) > 1 else ""
                if (command == "run" or command.startswith("--")) and not {"-h", "--help"} & set(sys.argv):
                    check_data_first()
                return original(*args, **kwargs)
            except Exception as e:
                message = None if os.environ.get("LM_EVAL_AUDIO_TRACEBACK") else user_error_message(e)
                if message is None:
                    raise
                sys.stderr.write(f"lm_eval: error: {message}\n(LM_EVAL_AUDIO_TRACEBACK=1 shows where it was raised)\n")
                raise SystemExit(2) from None

        return cli_evaluate

    _wrap(module, "cli_evaluate", make)


# --- lm_eval.utils -----------------------------------------------------------------------

def table_view(result_dict: dict, column: str) -> tuple[dict, dict[str, dict[str, int]]]:
    """What lm-eval's printed table shows for our tasks, and their counts apart: ``{shown name: {count metric:
    items}}``, ``failed_items`` (the documents whose request failed for good) included. Rates are named as
    such, without ↑/↓. Only the printed copy changes; the results JSON keeps every number where it was."""
    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.model_wrappers.failed_requests import failed_documents

    rows = result_dict.get(column)
    if not isinstance(rows, dict):
        return result_dict, {}
    ours, groups = our_task_names(), set(result_dict.get("group_subtasks") or {})
    failed = failed_documents(result_dict)  # documents: a multiple-choice item once, however many choices failed
    view, counts = {}, {}
    count_metrics, rate_metrics = registry.count_metrics(), registry.rate_metrics()
    arrows = {k: dict(v) for k, v in (result_dict.get("higher_is_better") or {}).items()}
    for task, metrics in rows.items():
        if task not in ours or not isinstance(metrics, dict):
            view[task] = metrics
            continue
        metrics = dict(metrics)
        counted = {} if task in groups else {"failed_items": len(failed.get(task, ()))}
        for key, value in list(metrics.items()):
            name = key.partition(",")[0]
            if name.removesuffix("_stderr") in count_metrics:
                value = metrics.pop(key)
                if name in count_metrics and isinstance(value, (int, float)) and value == value:
                    counted[name] = int(value)
            elif isinstance(value, float) and value != value:
                metrics[key] = "NaN"  # as lm-eval prints it in a column of numbers
            elif name in rate_metrics and isinstance(value, (int, float)) and not isinstance(value, bool):
                metrics[key] = f"{value:.4f} ({rate_metrics[name]})"
                arrows.setdefault(task, {})[name] = None
        view[task] = metrics
        if counted:
            counts[str(metrics.get("alias", task)).strip(" -")] = counted
    return {**result_dict, column: view, "higher_is_better": arrows}, counts


def counts_table(counts: dict[str, dict[str, int]]) -> str:
    from lm_eval_audio.benchmarks import registry

    names = [m for m in registry.count_metrics() if any(m in c for c in counts.values())]
    lines = ["Counts per task (items, not scores):", "|Task|" + "|".join(names) + "|",
             "|---|" + "---:|" * len(names)]
    lines += [f"|{task}|" + "|".join(str(c[m]) if m in c else "–" for m in names) + "|" for task, c in counts.items()]
    return "\n".join(lines) + "\n"


def on_utils(module) -> None:
    def make(original):
        def make_table(result_dict, column: str = "results", *args, **kwargs):
            view, counts = table_view(result_dict, column)
            table = original(view, column, *args, **kwargs)
            return table + "\n" + counts_table(counts) if counts else table

        return make_table

    _wrap(module, "make_table", make)


PATCHES = {
    "lm_eval.__main__": on_cli,
    "lm_eval.api.registry": on_registry,
    "lm_eval.tasks.manager": on_task_manager,
    "lm_eval.api.model": on_api_model,
    "lm_eval.api.group": on_group,
    "lm_eval.tasks._factory": on_task_factory,
    "lm_eval.evaluator_utils": on_evaluator_utils,
    "lm_eval.evaluator": on_evaluator,
    "lm_eval.loggers.evaluation_tracker": on_evaluation_tracker,
    "lm_eval.utils": on_utils,
}
