"""What an aggregation function may know about the task it is aggregating.

lm-eval calls a task's aggregation functions with the list of per-document items and
nothing else. The judge metrics also need the task's name (for the judge log) and its
``--metadata`` (for the judge settings), and want to report their own standard error.
The startup hook wraps lm-eval's ``_compute_task_aggregations`` to fill this in.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lm_eval_audio.judges.judge_config import JudgeConfig

_state: dict = {"task": None, "metadata": {}}
_stderrs: dict[str, float] = {}
# task -> metric -> doc_id -> the item's own score (None: not scored, e.g. a judge failure)
_item_scores: dict[str, dict[str, dict[int, float | None]]] = {}


def current_task() -> str:
    return _state["task"] or "unknown_task"


def current_metadata() -> dict:
    return dict(_state["metadata"] or {})


@contextlib.contextmanager
def aggregating(task_name: str, metadata: dict | None):
    previous = dict(_state)
    _state.update(task=task_name, metadata=dict(metadata or {}))
    _stderrs.clear()
    try:
        yield
    finally:
        _state.update(previous)


def report_stderr(metric: str, value: float | None) -> None:
    """An aggregation's own standard error (None: not defined, lm-eval's "N/A"); lm-eval
    only bootstraps its registered aggregations."""
    if value is not None:
        _stderrs[metric] = value


def report_item_scores(metric: str, scores) -> None:
    """Per-document scores behind an aggregation that lm-eval only sees as one number (the
    judge metrics): ``(doc_id, score or None)`` pairs. The startup hook writes them into
    each logged sample as ``item_scores``, for bootstrap intervals and the diagnostics."""
    _item_scores.setdefault(current_task(), {})[metric] = {
        int(doc_id): None if value is None else float(value) for doc_id, value in scores
    }


def take_item_scores() -> dict[str, dict[str, dict[int, float | None]]]:
    scores = dict(_item_scores)
    _item_scores.clear()
    return scores


def mean_stderr(values: list[float]) -> float | None:
    """Standard error of a mean; None below two values (lm-eval's pooled group stderr
    divides by the summed n - 1)."""
    n = len(values)
    if n < 2:
        return None
    mu = sum(values) / n
    return math.sqrt(sum((v - mu) ** 2 for v in values) / (n - 1) / n)


def judge() -> "JudgeConfig":
    """The judge configured for the task being aggregated; raises naming the task if none is."""
    from lm_eval_audio.judges import judge_config

    config = judge_config.for_task(current_metadata())
    if config is None:
        raise judge_config.JudgeConfigError(
            f"{current_task()} is scored by an LLM judge and none is configured: " + judge_config.HOW_TO_CONFIGURE
        )
    return config


def fill_stderrs(agg_metrics: dict) -> None:
    """Put the reported standard errors where lm-eval wrote "N/A" for our metrics."""
    for metric, value in _stderrs.items():
        for key in list(agg_metrics):
            name, sep, filter_key = key.partition(",")
            if sep and name == f"{metric}_stderr" and agg_metrics[key] == "N/A":
                agg_metrics[key] = value
    _stderrs.clear()
