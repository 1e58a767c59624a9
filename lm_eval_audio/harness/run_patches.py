"""What one evaluation of ours does around lm-eval's: the judge preflight, each task's scoring and the model's notes
into the results (``lm_eval.evaluator``), and the results folder's name and the files written beside the results
(``lm_eval.loggers.evaluation_tracker``); the module docstring of ``lm_eval_audio.harness.patches`` says what
each does and why.

What a task's aggregation produced travels on its :class:`~lm_eval_audio.metrics.task_scoring.TaskScoring`: the
``evaluate`` wrapper starts one per task, reads it once lm-eval has aggregated, and returns lm-eval's results as a
:class:`RunResults`, the same dict carrying the tasks' scorings, which lm-eval hands on to its results writer and its
printed table."""

from __future__ import annotations

import json
import logging
import os

from lm_eval_audio.harness.failed_scoring import failed_items_scored_wrong
from lm_eval_audio.harness.task_building import fill_stderrs
from lm_eval_audio.harness.wrapping import is_our_task, wrap
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.model_wrappers import reasoning
from lm_eval_audio.model_wrappers.run_notes import ModelNotes, notes_of
from lm_eval_audio.metrics.spoken_answer import spoken_of
from lm_eval_audio.model_wrappers.registry import MODELS, is_ours, results_folder_name
from lm_eval_audio.storage import run_state, strict_json

log = logging.getLogger("lm_eval.audio")


class RunResults(dict):
    """lm-eval's results of a run of ours, and what produced them: each task's ``scorings`` (null reasons, judge logs,
    test-set predictions) and ``naming`` (the model's own name for its results folder, its audio condition). The
    same dict to lm-eval, which adds its configuration to it and hands it to its results writer and its table."""

    def __init__(self, results: dict, scorings: dict[str, TaskScoring], naming: tuple | None) -> None:
        super().__init__(results)
        self.scorings, self.naming = scorings, naming

    def null_reasons(self) -> dict[str, dict[str, str]]:
        """task -> metric -> why its aggregation gave no number."""
        return {name: scoring.null_reasons for name, scoring in self.scorings.items() if scoring.null_reasons}


def null_reasons_of(results) -> dict[str, dict[str, str]]:
    """The null reasons a results dict carries (none for a run that is not ours)."""
    return results.null_reasons() if isinstance(results, RunResults) else {}


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

            judges, said = preflight(ours), set()  # each task's judge, resolved once in the run (or None)
            from lm_eval_audio.harness.spoken_preflight import decide

            spoken = decide(ours, lm)  # the tasks answered in speech, and their recognizers
            scorings = {name: task.start_scoring(judges.get(name), said) for name, task in ours.items()
                        if hasattr(task, "start_scoring")}
            mine = is_ours(lm)
            notes = notes_of(lm)  # None for a model that is not ours
            if notes is not None:
                notes.start_run()
            try:
                # with our model, a failed document is scored wrong, never right by lm-eval's argmax over -inf
                with failed_items_scored_wrong(tasks if mine else {}):
                    results = original(lm, task_dict, *args, **kwargs)
            finally:
                loader_notes = run_state.current().take_data_notes()
            if not isinstance(results, dict):  # a rank other than 0
                return results
            if notes is not None:
                reasoning.warn_unfinished(notes)
            # what the judges did and what the data lacked
            fill_stderrs(results.get("results") or {}, {name: s.stderrs for name, s in scorings.items()})
            if spoken:
                results["lm_eval_audio_spoken"] = _spoken_record(spoken)
            _record_run(results, loader_notes, scorings, notes,
                        getattr(lm, "audio_condition", None) if mine else None,
                        getattr(lm, "run_record", None) if mine else None)
            if results.get("samples"):
                # written as strict JSON, as the results are (null for NaN and infinities): lm-eval writes them as
                # they are here, and the analysis reads them back from the files
                results["samples"] = {task: [strict_json.finite_copy(sample) for sample in samples]
                                      for task, samples in results["samples"].items()}
            # for the results folder's name (on_evaluation_tracker), from the model's own settings
            naming = (getattr(lm, "results_name", None), getattr(lm, "audio_condition", None)) if mine else None
            return RunResults(results, scorings, naming)

        return evaluate

    wrap(module, "evaluate", make)


def _data_notes(*sources: dict) -> dict:
    """The results' ``lm_eval_audio_data``: kind -> entries, from the loaders, the model and the tasks' scorings."""
    merged: dict[str, dict] = {}
    for source in sources:
        for kind, entries in source.items():
            merged.setdefault(kind, {}).update(entries)
    return merged


def _record_run(results: dict, loader_notes: dict, scorings: dict[str, TaskScoring], notes: ModelNotes | None,
                condition, model_record: dict | None = None) -> None:
    """What the run found, into the results: the judge settings and counts (``lm_eval_audio_judge``), what the data
    lacked and the model could not answer (``lm_eval_audio_data``), the audio condition, what the model says about
    how it ran (``lm_eval_audio_model``: family, decoding settings), and the judge metrics' per-document scores in
    each logged sample."""
    if model_record:
        results["lm_eval_audio_model"] = dict(model_record)
    summaries = {name: s.judge_summary for name, s in scorings.items() if s.judge_summary is not None}
    if summaries:
        results["lm_eval_audio_judge"] = summaries
    data = _data_notes(loader_notes, notes.data_notes if notes else {}, *(s.data_notes for s in scorings.values()))
    if data:
        results["lm_eval_audio_data"] = data
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
        heard = notes.transcripts.get(task, {}) if notes else {}
        for sample in samples:
            if sample.get("doc_id") in heard:  # why a cascade answered as it did, beside the answer
                sample["transcripts"] = heard[sample["doc_id"]]
            said = spoken_of(sample.get("resps"))
            if said:  # the files of what the model said, its text and what the recognizer heard
                sample["spoken_answer"] = [answer.record() for answer in said]
            traces = reasoning.traces_of(sample.get("resps"))
            if traces:  # a thinking model's trace, kept beside the answer it was cut from
                sample["reasoning"] = [trace for trace, _ in traces]
                sample["reasoning_finished"] = [finished for _, finished in traces]
        by_metric = scorings[task].item_scores if task in scorings else {}
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


def _spoken_record(spoken: dict) -> dict:
    """The results' ``lm_eval_audio_spoken``: for each task answered in speech, its recognizer and how the spoken
    metrics compare the transcript with the text, and the raters of the quality metrics it names."""
    from lm_eval_audio.metrics import spoken_scores, text_normalizers
    from lm_eval_audio.model_wrappers import answer_quality

    out = {}
    for task, spec in spoken.items():
        rule, metric, _ = spoken_scores.by_language(spec.language)
        out[task] = {"recognizer": spec.record(), "scored": "the transcript of the spoken answer, by the task's own "
                                                            "scoring",
                     metric: text_normalizers.rule_named(rule).says + " (transcript against the model's own text, "
                     "per answer, averaged: the text-speech consistency)"}
        quality = answer_quality.record(task)
        if quality:  # the raters of the quality metrics it names: each model, its revision or digests, its rate
            out[task]["quality"] = quality
    return out


# --- lm_eval.loggers.evaluation_tracker -------------------------------------------------


def _write_judge_log(f, entries: list[dict]) -> None:
    for entry in sorted(entries, key=lambda e: (e.get("doc_id", 0), e.get("pass", ""))):
        f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _write_submission(f, items: list[dict]) -> None:
    json.dump(items, f, ensure_ascii=False, indent=1)


# The files written beside the results: (what, file name, writer, its logger)
_BESIDE = (("judge log", "judge_log_{task}_{date}.jsonl", _write_judge_log, "lm_eval.audio.judge"),
           ("predictions for the official evaluation", "{task}_submission_{date}.json", _write_submission,
            "lm_eval.audio"))


def _write_beside(folder: str, files: tuple[dict, dict], date_id: str) -> None:
    """The judge logs and the test-set predictions (``files``, each task -> entries) in ``folder``; a file that cannot
    be written there is written to a folder of the system's temporary one instead, and a warning says where."""
    import tempfile

    def write(where: str, file_name: str, writer, entries) -> str:
        os.makedirs(where, exist_ok=True)
        path = os.path.join(where, file_name)
        with open(path, "w", encoding="utf-8") as f:
            writer(f, entries)
        return path

    elsewhere = None
    for (what, name, writer, logger), by_task in zip(_BESIDE, files):
        for task, entries in sorted(by_task.items()):
            file_name = name.format(task=task, date=date_id)
            try:
                logging.getLogger(logger).info("%s written to %s", what, write(folder, file_name, writer, entries))
            except OSError as e:
                try:
                    elsewhere = elsewhere or tempfile.mkdtemp(prefix="lm_eval_results_")
                    path = write(elsewhere, file_name, writer, entries)
                except OSError as again:
                    logging.getLogger(logger).warning("%s of %s could not be written to %s (%s) nor to the temporary "
                                                      "folder (%s)", what, task, folder, e.strerror or e,
                                                      again.strerror or again)
                    continue
                logging.getLogger(logger).warning("%s of %s could not be written to %s (%s): written to %s instead",
                                                  what, task, folder, e.strerror or e, path)


def on_evaluation_tracker(module) -> None:
    def make(original):
        def save_results_aggregated(self, results, samples=None):
            config = self.general_config_tracker
            naming = results.naming if isinstance(results, RunResults) else None
            if naming and config.model_source in MODELS:
                # lm-eval's name (from pretrained=, model=, ...) made ours, once: a cascade's after its recognizer
                # and LLM, an ablated run's with its condition.
                from lm_eval_audio.harness.tracker_naming import folder_name

                config.model_name = results_folder_name(config.model_name or "", *naming)
                config.model_name_sanitized = folder_name(config.model_name)
                results.naming = None
            ours = isinstance(results, RunResults)
            if ours:
                self.date_id = None  # set by lm-eval as it writes: how a write it could not make is told
            strict = strict_json.strict_results(results, null_reasons_of(results))
            original(self, strict, samples)
            scorings = results.scorings if isinstance(results, RunResults) else {}
            files = ({name: s.judge_records for name, s in scorings.items() if s.judge_records},
                     {name: s.submission for name, s in scorings.items() if s.submission is not None})
            folder_of_model = str(self.general_config_tracker.model_name_sanitized)
            if ours and self.output_path and not _written(self, folder_of_model):
                from lm_eval_audio.harness.cli_patches import fail_after_the_run

                error = _save_elsewhere(self.output_path, folder_of_model, strict, samples, files)
                if not fail_after_the_run(error):  # lm_eval prints its table first, then says it and exits 2
                    raise error
                return
            if not any(files) or not (self.output_path and getattr(self, "date_id", None)):
                return
            from lm_eval_audio.harness.tracker_naming import results_folder

            _write_beside(str(results_folder(self.output_path, folder_of_model)), files, self.date_id)

        return save_results_aggregated

    wrap(module.EvaluationTracker, "save_results_aggregated", make)


def _written(tracker, folder_of_model: str) -> bool:
    """Whether lm-eval wrote the results file (its warning "Could not save results aggregated" is all it says)."""
    from lm_eval_audio.harness.tracker_naming import results_file

    date_id = getattr(tracker, "date_id", None)
    return bool(date_id) and results_file(tracker.output_path, folder_of_model, date_id).is_file()


def _save_elsewhere(output_path: str, folder_of_model: str, results: dict, samples: dict | None,
                    files: tuple[dict, dict]) -> ResultsNotSaved:
    """The run's files lm-eval could not write, under a new folder of the system's temporary one, named and laid out
    as lm-eval lays them out (``report``, ``diagnose`` and ``judge`` read them there); the error that says where."""
    import tempfile
    from datetime import datetime

    from lm_eval.utils import handle_non_serializable

    date_id = datetime.now().isoformat().replace(":", "-")
    root = tempfile.mkdtemp(prefix="lm_eval_results_")  # in the place of --output_path
    folder = os.path.join(root, folder_of_model)
    os.makedirs(folder, exist_ok=True)

    def dumped(value) -> str:  # ASCII: a lone surrogate in an answer is kept, not an error
        return json.dumps(value, default=handle_non_serializable, ensure_ascii=True)

    with open(os.path.join(folder, f"results_{date_id}.json"), "w", encoding="utf-8") as f:
        f.write(dumped(results))
    for task, task_samples in (samples or {}).items():
        with open(os.path.join(folder, f"samples_{task}_{date_id}.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(dumped(sample) + "\n" for sample in task_samples)
    _write_beside(folder, files, date_id)
    return ResultsNotSaved(output_path, root)


class ResultsNotSaved(OSError):
    """lm-eval could not write the results to ``--output_path`` after the run (the disk filled, the folder went):
    they are saved elsewhere, and the command fails saying where."""

    def __init__(self, output_path: str, elsewhere: str) -> None:
        super().__init__(f"the results could not be written to --output_path {output_path} (lm-eval's log says why); "
                         f"they are saved in {elsewhere} instead, with the samples, judge logs and predictions")
