"""One task's scoring in one run: what its ``process_results`` and aggregation functions produce, kept on the
object they are handed, from where it is computed to where the results are written.

The task's functions that take a ``task`` parameter get its :class:`TaskScoring` (``harness.task_building``); what
they report (standard errors, per-document scores, why a metric is NaN, notes for the results, the judge's log and
summary, test-set predictions) stays on it. The startup hook's ``evaluate`` wrapper reads each task's object once
lm-eval has aggregated, writes its numbers into the results and hands it on, with the results, to the writer of the
files beside them (``harness.run_patches``). Nothing goes through a process-wide state."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lm_eval_audio.storage import run_state
from lm_eval_audio.storage.notes_by_kind import NotesByKind

log = logging.getLogger("lm_eval.audio")


@dataclass
class TaskScoring(NotesByKind):
    """``name`` and ``metadata`` (the judge's settings among them) are the task's; ``judge``: the judge the run
    resolved for it once (``harness.preflight``: a ``judges.judge_config.JudgeConfig``, or None: its judge metrics are
    reported only where it has one); ``said``: the warnings given once in this run (shared by the run's tasks);
    ``data_notes``: into the results' ``lm_eval_audio_data``."""

    name: str
    metadata: dict = field(default_factory=dict)
    judge: object = None
    # metric -> the standard error its aggregation reported (lm-eval only has its own aggregations')
    stderrs: dict[str, float] = field(default_factory=dict)
    # metric -> why its aggregation gave no number (written beside the null in the results)
    null_reasons: dict[str, str] = field(default_factory=dict)
    # metric -> doc_id -> the item's own score (None: not scored, e.g. a judge failure)
    item_scores: dict[str, dict[int, float | None]] = field(default_factory=dict)
    # the judge's log (one entry per request) and its settings and counts
    judge_records: list[dict] = field(default_factory=list)
    judge_summary: dict | None = None
    # predictions for a test set whose answers are withheld (written beside the results)
    submission: list[dict] | None = None
    # Verdicts reached in this step, by judge and the judged items (the same objects): a task's several metrics
    # aggregate the same items, and the judge (and its log) must see them once.
    verdicts: dict[tuple, object] = field(default_factory=dict)

    @property
    def judged(self) -> bool:
        """Whether this task has a judge in the run."""
        return self.judge is not None

    def note_for_task(self, kind: str, key: str, value) -> None:
        """``lm_eval_audio_data.<kind>.<task>.<key>`` in the results (a breakdown of one metric, say)."""
        self.data_notes.setdefault(kind, {}).setdefault(self.name, {})[key] = value

    @staticmethod
    def first_time_in_command(key) -> bool:
        """True the first time ``key`` comes up in the command under way (``diagnose`` runs each condition as a run
        of its own; a situation that stays the same from one to the next is said once)."""
        return run_state.current().first_time(key)

    def report_stderr(self, metric: str, value: float | None) -> None:
        """An aggregation's own standard error (None: not defined, lm-eval's "N/A"); lm-eval
        only bootstraps its registered aggregations."""
        if value is not None:
            self.stderrs[metric] = value

    def report_item_scores(self, metric: str, scores) -> None:
        """Per-document scores behind an aggregation that lm-eval only sees as one number (the
        judge metrics): ``(doc_id, score or None)`` pairs, written into each logged sample as
        ``item_scores``, for bootstrap intervals and the diagnostics."""
        self.item_scores[metric] = {int(doc_id): None if value is None else float(value) for doc_id, value in scores}

    def not_a_number(self, metric: str, reason: str, said: bool = False) -> float:
        """The aggregation's NaN, its reason logged (unless ``said`` already) and kept for the results (``null``
        there, the reason under ``lm_eval_audio_null_reasons``)."""
        self.null_reasons[metric] = reason
        if not said:
            log.warning("%s: %s is NaN: %s", self.name, metric, reason)
        return float("nan")

    def submit(self, predictions: list[dict]) -> None:
        """Predictions of a test set whose answers are withheld, written beside the results."""
        self.submission = predictions

    def remembered(self, kind: str, items: list, judge):
        """``judge()``'s verdicts on ``items``, reached once per aggregation step: a task's several metrics
        aggregate the same item objects."""
        key = (kind, tuple(map(id, items)))
        if key not in self.verdicts:
            self.verdicts[key] = judge()
        return self.verdicts[key]
