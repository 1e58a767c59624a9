"""Reading what ``lm_eval --output_path ... --log_samples`` wrote: one run's results and
the per-document scores behind them.

lm-eval writes ``results_<date>.json`` and, with ``--log_samples``, one
``samples_<task>_<date>.jsonl`` per task beside it. A sample line holds the per-document
value of each metric that lm-eval averages (``exact_match: 1.0``); for the judge metrics,
whose aggregation is the judge, the startup hook adds the judged value under
``item_scores`` (``lm_eval_audio.metrics.task_scoring.TaskScoring.report_item_scores``).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_audio.storage import jsonl


class ResultsError(ValueError):
    """A results file or sample log that cannot be used; the message names it."""


def item_value(sample: dict, metric: str) -> float | None:
    """One document's score for ``metric``: a number, or None where it was not scored
    (a judge failure). Raises KeyError when the sample carries no per-document value."""
    scores = sample.get("item_scores") or {}
    if metric in scores:
        value = scores[metric]
    elif metric in sample:
        value = sample[metric]
    else:
        raise KeyError(metric)
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return None if math.isnan(float(value)) else float(value)
    raise KeyError(metric)  # an item dict of a judge metric with no judged value recorded


def failed_docs(results: dict, task: str) -> set[int]:
    """The documents of ``task`` whose request failed for good in this run: an endpoint error
    after the retries, an undecodable clip (``lm_eval_audio_data.failed_requests``, keyed
    ``task/doc N``). Their score is the task's score of an empty answer, not the model's."""
    from lm_eval_audio.model_wrappers.failed_requests import failed_documents

    return {int(doc) for doc in failed_documents(results).get(task, ()) if doc.isdigit()}


def reported_value(task_results: dict, metric: str):
    """What lm-eval reported for ``metric`` in one task's results (``"metric,filter"`` keys;
    the first filter), as it is: a number, NaN (written as null since strict JSON), "N/A"; None if the task has
    no such metric."""
    for key, value in task_results.items():
        if key.partition(",")[0] == metric:
            return float("nan") if value is None else value
    return None


def first_filter(samples: list[dict]) -> list[dict]:
    """A task's samples under its first filter (lm-eval logs one line per document and filter)."""
    if not samples:
        return []
    name = samples[0].get("filter", "none")
    return [s for s in samples if s.get("filter", "none") == name]


def item_scores(samples: list[dict], metric: str) -> dict[int, float | None] | None:
    """doc_id -> score over a task's samples (first filter only); None if there are none."""
    try:
        out = {int(sample["doc_id"]): item_value(sample, metric) for sample in first_filter(samples)}
    except KeyError:
        return None
    return out or None


@dataclass
class Run:
    """One ``results_<date>.json`` and, loaded on demand, its sample logs."""

    path: Path
    results: dict
    _samples: dict[str, list[dict]] = field(default_factory=dict)
    # task -> the older results files of the same model (its folder) that also hold it, not read for it (``find``)
    not_read: dict[str, list[Path]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The model as lm-eval named its results folder (with ``__audio-<condition>``)."""
        return str(self.results.get("model_name") or self.path.parent.name)

    @property
    def date_id(self) -> str:
        return self.path.stem[len("results_"):]

    def tasks(self) -> dict[str, dict]:
        return self.results.get("results", {})

    def metric(self, task: str, metric: str) -> float | None:
        """The aggregated value lm-eval reported (first filter), or None."""
        value = reported_value(self.tasks().get(task, {}), metric)
        if isinstance(value, (int, float)) and not math.isnan(value):
            return float(value)
        return None

    def samples(self, task: str) -> list[dict]:
        if task not in self._samples:
            path = self.path.parent / f"samples_{task}_{self.date_id}.jsonl"
            if not path.exists():
                self._samples[task] = []
            else:
                self._samples[task] = [s for _, s in jsonl.records(path, ResultsError, "; was the run cut off?")]
        return self._samples[task]


def load(path: str | os.PathLike) -> Run:
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such results file") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not a JSON results file ({e})") from None
    if not isinstance(results, dict) or "results" not in results:
        raise ResultsError(f"{path}: has no 'results' section; pass the results_<date>.json that lm_eval wrote")
    return Run(path, results)


def find(paths: list[str]) -> list[list[Run]]:
    """The models to report, each as the runs that hold its tasks, newest first.

    A file is one model. A folder gives one model per folder below it that holds results
    (lm-eval's folder per model): its newest run, and older runs only for the tasks no
    newer run has (``airbench_foundation`` run on Monday, ``airbench_chat`` on Tuesday). The run a task is read
    from records the older files that hold it too (``Run.not_read``), for the report to say so."""
    models = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            models.append([load(path)])
            continue
        if not path.is_dir():
            raise ResultsError(f"{path}: no such file or folder")
        by_folder: dict[Path, list[Path]] = {}
        for found in sorted(path.rglob("results_*.json")):
            by_folder.setdefault(found.parent, []).append(found)
        if not by_folder:
            raise ResultsError(f"{path}: no results_*.json below this folder; run lm_eval with --output_path first")
        for folder in sorted(by_folder):
            runs, covered = [], {}  # task -> the run it is read from
            for file in reversed(by_folder[folder]):  # names sort by date
                run = load(file)
                for task in set(run.tasks()) & set(covered):
                    covered[task].not_read.setdefault(task, []).append(run.path)
                if set(run.tasks()) - set(covered):
                    runs.append(run)
                    covered.update({task: run for task in run.tasks() if task not in covered})
            models.append(runs)
    return models


def condition_of(run: Run) -> str | None:
    """The audio condition a run was ablated under (``audio=none``, ``audio=fragment:2:1``; diagnose's text in place
    of the clips), or None for a run of the model as it is."""
    condition = run.results.get("lm_eval_audio_condition")
    if condition and condition != "full":
        return f"audio={condition}"
    return "the clips' text in place of the clips" if "text-instead-of-audio" in run.path.parts else None


def apart_from_conditions(model_runs: list[list[Run]]) -> tuple[list[list[Run]], dict[str, list[str]]]:
    """The models to report, a model's runs under ablated audio (a ``diagnose`` run's conditions) left out of them,
    and per model the conditions it was also run under. A condition run whose model is not among the rest stays a
    model of its own."""
    as_is = [runs for runs in model_runs if condition_of(runs[0]) is None]
    names = {runs[0].name for runs in as_is}
    conditions: dict[str, list[str]] = {}
    for runs in model_runs:
        condition = condition_of(runs[0])
        if condition is None:
            continue
        base = re.sub(r"__audio-[^/]*$", "", runs[0].name)
        if base in names:
            conditions.setdefault(base, []).append(condition)
        else:
            as_is.append(runs)
    return as_is, {name: sorted(found) for name, found in conditions.items()}


def metrics_to_try(results: dict, task: str, wanted: list[str] | None,
                   chosen_by_user: bool) -> tuple[list[str], str | None]:
    """The metrics the task's score is looked for in, first found wins: ``wanted`` (``--metric``), or by default the
    headline metrics of the task's benchmark (its folder's ``benchmark.py``) and then the generic ones; without the
    judge metrics when the bundled smoke-test judge gave them (unless the user named them), and a note saying so."""
    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.judges.smoke_test_judge import judged_by_it

    wanted = list(wanted) if wanted else list(registry.headline_metrics(task))
    if chosen_by_user or not judged_by_it(results, task):
        return wanted, None
    judged = registry.judge_metrics()
    kept = [m for m in wanted if m not in judged]
    reported = results.get("results", {}).get(task, {})
    skipped = [m for m in wanted if m in judged and reported_value(reported, m) is not None]
    if not skipped:
        return kept, None
    return kept, (f"{', '.join(skipped)} skipped: judged by the bundled smoke-test judge, which checks the pipeline, "
                  "not the answers (name them with --metric to use them anyway)")


def choose_metric(task: str, reported: dict, samples: list[dict], wanted: list[str]) -> tuple[str | None, str | None]:
    """The task's score (first of ``wanted`` with a number and per-document values), or
    None and why not."""
    reasons = []
    for metric in wanted:
        value = reported_value(reported, metric)
        if value is None:
            continue
        if not isinstance(value, (int, float)) or math.isnan(value):
            reasons.append(f"{metric} is NaN (nothing was scored; see the run's log)")
            continue
        per_doc = item_scores(samples, metric)
        if per_doc is None or all(v is None for v in per_doc.values()):
            reasons.append(f"{metric} has no per-document scores in the sample log")
            continue
        return metric, None
    return None, "; ".join(reasons) or f"reports none of {', '.join(wanted)} (choose one with --metric)"


def error_rate_metrics() -> frozenset[str]:
    """The corpus error rates the speech tasks report (``wer``, ``cer``: the metrics of the text normalization
    rules), fractions of the reference's words or characters."""
    from lm_eval_audio.metrics.text_normalizers import RULES

    return frozenset(rule.metric for rule in RULES.values())


def higher_is_better(results: dict, task: str, metric: str) -> bool:
    """Whether a higher ``metric`` is better for ``task``, as lm-eval recorded it (the results' ``higher_is_better``
    map); where it recorded nothing, every metric but an error rate is."""
    said = ((results.get("higher_is_better") or {}).get(task) or {}).get(metric)
    return said if isinstance(said, bool) else metric not in error_rate_metrics()


def edit_counts(sample: dict, metric: str) -> tuple[int, int] | None:
    """One document's (errors, reference units) of a corpus error rate, recounted from the logged document
    (``reference`` and ``scoring``, the rule) and answer as ``metrics.speech_to_text`` counted them; None for a
    document whose clip could not be played (left out of the rate). Raises KeyError when the sample does not say."""
    from lm_eval_audio.metrics import error_rates
    from lm_eval_audio.metrics.text_normalizers import RULES

    doc = sample.get("doc") or {}
    rule = RULES.get(doc.get("scoring"))
    answers = sample.get("filtered_resps")
    if rule is None or rule.metric != metric or not isinstance(doc.get("reference"), str) or not answers:
        raise KeyError(metric)
    if doc.get("audio_problem"):
        return None
    counted = error_rates.counts(doc["reference"], str(answers[0]), rule)
    return counted.errors, counted.length


@dataclass
class TaskScore:
    """What ``report`` reads a task of one run by (``score_task``)."""

    metric: str | None  # None: nothing to read (``why`` says so)
    reported: float | None = None  # the number lm-eval reported for it
    values: dict = field(default_factory=dict)  # document key -> score (None: unscored); a corpus error rate's errors
    units: dict | None = None  # a corpus error rate's reference units per document: its value is errors over units
    higher_is_better: bool = True
    percent: bool = False  # an error rate: a fraction, printed as %
    why: str | None = None  # why it has no per-document score, or none at all


def _reported_metrics(reported: dict) -> list[str]:
    from lm_eval_audio.benchmarks import registry

    counts = registry.count_metrics()
    names = (key.partition(",")[0] for key in reported if "," in key)
    return list(dict.fromkeys(n for n in names if not n.endswith("_stderr") and n not in counts))


def score_task(run: Run, task: str, samples: list[dict], metrics: list[str], key) -> TaskScore:
    """The first of ``metrics`` with per-document values (``key(sample)`` keys them): a score per document, or a
    corpus error rate's errors and reference units recounted per document (``edit_counts``), which must give the
    rate lm-eval reported. Failing that, the first that lm-eval reported a number for, without them."""
    reported = run.tasks().get(task, {})
    reasons, fallback = [], None
    for metric in metrics:
        value = run.metric(task, metric)
        direction = {"higher_is_better": higher_is_better(run.results, task, metric),
                     "percent": metric in error_rate_metrics()}
        found, why = choose_metric(task, reported, samples, [metric])
        if found:
            return TaskScore(metric, value, {key(s): item_value(s, metric) for s in samples}, **direction)
        if value is not None and metric in error_rate_metrics():
            try:
                counted = {key(s): edit_counts(s, metric) for s in samples}
            except KeyError:
                why = f"{metric} is corpus-level, and the sample log has no reference and answer to recount it from"
            else:
                kept = [c for c in counted.values() if c is not None]
                total = sum(c[1] for c in kept)
                if total and abs(sum(c[0] for c in kept) / total - value) < 1e-9:
                    return TaskScore(metric, value, {k: c and c[0] for k, c in counted.items()},
                                     {k: c and c[1] for k, c in counted.items()}, **direction)
                why = (f"{metric} recounted from the logged answers is not the {value:.4f} reported (was it scored "
                       "by another version of the normalization rule?)")
        if reported_value(reported, metric) is not None:
            reasons.append(why)
        if value is not None and fallback is None:
            fallback = TaskScore(metric, value, **direction)
    if fallback is not None:
        fallback.why = "; ".join(reasons) + "; its reported value is shown, with no interval"
        return fallback
    if reasons:
        return TaskScore(None, why="; ".join(reasons))
    others = [f"{m}{'' if higher_is_better(run.results, task, m) else ' (lower is better)'}"
              for m in _reported_metrics(reported)]
    return TaskScore(None, why=f"reports none of {', '.join(metrics)}" + (
        f"; it reports {', '.join(others)}: choose with --metric {_reported_metrics(reported)[0]}" if others
        else " (choose one with --metric)"))
