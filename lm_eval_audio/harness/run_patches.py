"""What one evaluation of ours does around lm-eval's: the ``--use_cache`` keys (``lm_eval.api.model``), the run
state, credentials refused and the judge preflight (``lm_eval.evaluator``), and the files written beside the
results (``lm_eval.loggers.evaluation_tracker``); the module docstring of ``lm_eval_audio.harness.patches`` says
what each does and why."""

from __future__ import annotations

import logging

from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.harness.wrapping import is_our_task, wrap
from lm_eval_audio.model_wrappers.registry import MODELS, is_ours, results_folder_name
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio")


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

    wrap(module, "hash_args", make_hash)

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

    wrap(module.CachingLM, "__getattr__", make_getattr)

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

    wrap(module.CachingLM, "__init__", make_init)


# --- lm_eval.evaluator ------------------------------------------------------------------


def on_evaluator(module) -> None:
    def make(original):
        def evaluate(lm, task_dict, *args, **kwargs):
            if isinstance(task_dict, dict) and "tasks" in task_dict:
                tasks = task_dict["tasks"] or {}
            else:  # the legacy nested form that get_task_dict() returns, as lm-eval itself reads it
                from lm_eval.evaluator_utils import _handle_back_comp

                tasks = _handle_back_comp(task_dict)[1] if isinstance(task_dict, dict) else {}
            ours = {name: task for name, task in tasks.items() if is_our_task(task)}
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

    wrap(module, "evaluate", make)

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

    wrap(module, "simple_evaluate", make_simple)


def _runs_ours(model, tasks) -> bool:
    if (isinstance(model, str) and model in MODELS) or is_ours(model):
        return True
    names = tasks.split(",") if isinstance(tasks, str) else list(tasks or ())
    return any(isinstance(n, str) and n in our_task_names() or is_our_task(n) for n in names)


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

    wrap(module.EvaluationTracker, "save_results_aggregated", make)

    def make_naming(original):
        def log_experiment_args(self, model_source, model_args, *args, **kwargs):
            original(self, model_source, model_args, *args, **kwargs)
            if model_source in MODELS:
                from lm_eval.utils import sanitize_model_name

                self.model_name = results_folder_name(model_source, model_args, self.model_name)
                self.model_name_sanitized = sanitize_model_name(self.model_name)

        return log_experiment_args

    wrap(module.GeneralConfigTracker, "log_experiment_args", make_naming)
