"""What one evaluation of ours does around lm-eval's: the judge preflight and the run state into the results
(``lm_eval.evaluator``), and the results folder's name and the files written beside the results
(``lm_eval.loggers.evaluation_tracker``); the module docstring of ``lm_eval_audio.harness.patches`` says what
each does and why."""

from __future__ import annotations

import logging

from lm_eval_audio.harness.failed_scoring import failed_items_scored_wrong
from lm_eval_audio.harness.task_building import fill_stderrs
from lm_eval_audio.harness.wrapping import is_our_task, wrap
from lm_eval_audio.model_wrappers import reasoning
from lm_eval_audio.model_wrappers.registry import MODELS, is_ours, results_folder_name
from lm_eval_audio.storage import run_state, strict_json

log = logging.getLogger("lm_eval.audio")


# --- lm_eval.evaluator ------------------------------------------------------------------


def on_evaluator(module) -> None:
    from lm_eval_audio.harness import log_redaction

    log_redaction.install(module.eval_logger)

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
            if is_ours(lm):  # for the results folder's name (on_evaluation_tracker), from the model's own settings
                run_state.current().results_naming = (getattr(lm, "results_name", None),
                                                      getattr(lm, "audio_condition", None))
            try:
                # with our model, a failed document is scored wrong, never right by lm-eval's argmax over -inf
                with failed_items_scored_wrong(tasks if is_ours(lm) else {}):
                    results = original(lm, task_dict, *args, **kwargs)
            finally:
                state = run_state.finish()
            if isinstance(results, dict):  # rank 0: what the judges did and what the data lacked
                fill_stderrs(results.get("results") or {}, state.stderrs)  # a task in no group of ours
                _record_run(results, state, getattr(lm, "audio_condition", None) if is_ours(lm) else None,
                            getattr(lm, "run_record", None) if is_ours(lm) else None)
            return results

        return evaluate

    wrap(module, "evaluate", make)


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
        breakdowns = results["lm_eval_audio_data"].get("official_breakdown")
        if breakdowns and results.get("group_subtasks"):  # the official scripts' lines over each whole group
            from lm_eval_audio.benchmarks.choice_layout import pooled_by_group

            breakdowns.update(pooled_by_group(breakdowns, results["group_subtasks"]))
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
            traces = reasoning.traces_of(sample.get("resps"))
            if traces:  # a thinking model's trace, kept beside the answer it was cut from
                sample["reasoning"] = [trace for trace, _ in traces]
                sample["reasoning_finished"] = [finished for _, finished in traces]
        by_metric = state.item_scores.get(task, {})
        if by_metric and len({s.get("filter") for s in samples}) > 1:
            # The aggregation ran once per filter and kept the last one's scores: which is unknown here.
            log.warning("%s: several filters; the judge metrics' per-document scores are not written into its "
                        "samples", task)
            by_metric = {}
        metrics = {key.partition(",")[0] for key in (results.get("results") or {}).get(task, {})}
        for sample in samples:
            scores = {metric: values.get(sample["doc_id"]) for metric, values in by_metric.items()}
            if scores:
                sample["item_scores"] = scores
            # Each metric's field a number: the item's own score in place of the item lm-eval logged there (the
            # document again, which an aggregation needed to ask the judge), null where it has none.
            for metric in metrics | set(scores):
                if metric in scores or isinstance(sample.get(metric), (dict, list)):
                    sample[metric] = scores.get(metric)


# --- lm_eval.loggers.evaluation_tracker -------------------------------------------------


def on_evaluation_tracker(module) -> None:
    def make(original):
        def save_results_aggregated(self, results, samples=None):
            state = run_state.finished()
            config = self.general_config_tracker
            if state is not None and state.results_naming and config.model_source in MODELS:
                # lm-eval's name (from pretrained=, model=, ...) made ours, once: a cascade's after its recognizer
                # and LLM, an ablated run's with its condition.
                from lm_eval.utils import sanitize_model_name

                config.model_name = results_folder_name(config.model_name or "", *state.results_naming)
                config.model_name_sanitized = sanitize_model_name(config.model_name)
                state.results_naming = None
            original(self, strict_json.strict_results(results, state.null_reasons if state else {}), samples)
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

    def make_samples_writer(original):
        def save_results_samples(self, task_name, samples):
            return original(self, task_name, [strict_json.finite_copy(sample) for sample in samples])

        return save_results_samples

    wrap(module.EvaluationTracker, "save_results_samples", make_samples_writer)
