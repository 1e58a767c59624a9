"""Reading what ``lm_eval --output_path ... --log_samples`` wrote: one run's results and
the per-document scores behind them.

lm-eval writes ``results_<date>.json`` and, with ``--log_samples``, one
``samples_<task>_<date>.jsonl`` per task beside it. A sample line holds the per-document
value of each metric that lm-eval averages (``exact_match: 1.0``); for the judge metrics,
whose aggregation is the judge, the startup hook adds the judged value under
``item_scores`` (``lm_eval_audio.aggregation_context.report_item_scores``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path


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


def item_scores(samples: list[dict], metric: str) -> dict[int, float | None] | None:
    """doc_id -> score over a task's samples (first filter only); None if there are none."""
    if not samples:
        return None
    first_filter = samples[0].get("filter", "none")
    out: dict[int, float | None] = {}
    try:
        for sample in samples:
            if sample.get("filter", "none") == first_filter:
                out[int(sample["doc_id"])] = item_value(sample, metric)
    except KeyError:
        return None
    return out


@dataclass
class Run:
    """One ``results_<date>.json`` and, loaded on demand, its sample logs."""

    path: Path
    results: dict
    _samples: dict[str, list[dict]] = field(default_factory=dict)

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
        for key, value in self.tasks().get(task, {}).items():
            name, _, _ = key.partition(",")
            if name == metric and isinstance(value, (int, float)):
                return None if math.isnan(value) else float(value)
        return None

    def samples(self, task: str) -> list[dict]:
        if task not in self._samples:
            path = self.path.parent / f"samples_{task}_{self.date_id}.jsonl"
            if not path.exists():
                self._samples[task] = []
            else:
                with open(path, encoding="utf-8") as f:
                    self._samples[task] = [json.loads(line) for line in f if line.strip()]
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


def find(paths: list[str]) -> list[Run]:
    """Runs named by files, or by folders (the newest ``results_*.json`` of each folder below)."""
    runs = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            runs.append(load(path))
            continue
        if not path.is_dir():
            raise ResultsError(f"{path}: no such file or folder")
        newest: dict[Path, Path] = {}
        for found in sorted(path.rglob("results_*.json")):
            newest[found.parent] = found  # names sort by date
        if not newest:
            raise ResultsError(f"{path}: no results_*.json below this folder; run lm_eval with --output_path first")
        runs.extend(load(p) for p in sorted(newest.values()))
    return runs
