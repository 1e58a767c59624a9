"""Everything one evaluation keeps while it runs, in one object.

What the run learns as it goes lives on the :class:`RunState` that :func:`current` returns, and nowhere else.
It is written where what it carries is produced and read by the seam (``lm_eval_audio.harness``); loaders
and scoring functions do not import this module: a loader returns its notes with its documents
(``benchmarks.data_notes``), and a scoring function gets its task's :class:`TaskScoring` handed in
(``harness.task_building``).

* ``data_notes``: what the run could not evaluate (missing folders, absent tasks, unusable
  clips, failed requests), from the loaders' notes and the model wrappers; it becomes the
  results' ``lm_eval_audio_data``;
* ``requests_in_call``: how many requests the model call under way has (``--use_cache`` hands the model only
  those it has no answer for);
* ``judge_configured`` and ``smoke_test_judge``: what the judge preflight found, before the
  model runs;
* ``stderrs``, ``item_scores``, ``null_reasons``: the standard errors our aggregations report, the judge
  metrics' per-document scores, and why an aggregation gave no number, per task;
* ``judge_records``, ``judge_summaries``: the judge log, and the judge settings and counts per task;
* ``transcripts``: the cascade's transcript of each document's clips, for its logged sample;
* ``submissions``: predictions of a test set without public answers, written beside the results;
* ``results_naming``: what the results folder is named after (the model's own name for it, its condition).

How judge scores reach the results, in one place: an aggregation function (a task folder's
``utils.py``) asks the judge and puts its scores here through its ``TaskScoring``; the startup hook's
``evaluate`` wrapper copies ``judge_summaries`` into the results (``lm_eval_audio_judge``), ``item_scores``
into each logged sample, and ``data_notes`` into ``lm_eval_audio_data``; it then
:func:`finish` es the state, and lm-eval's results writer, wrapped as well, writes the
finished state's ``judge_records`` as ``judge_log_<task>_<time>.jsonl`` next to the results.
A new ``TaskManager`` (one per run: lm-eval's CLI makes one, ``simple_evaluate`` one when given
none) starts with :func:`reset`, and ``evaluate`` ends with :func:`finish`, so nothing crosses from
one run to the next, in one process or several.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class RunState:
    data_notes: dict[str, dict] = field(default_factory=dict)
    requests_in_call: int | None = None
    judge_configured: bool = False
    smoke_test_judge: bool = False
    # task -> metric -> the standard error its aggregation reported (lm-eval only has its own aggregations')
    stderrs: dict[str, dict[str, float]] = field(default_factory=dict)
    # task -> metric -> why its aggregation gave no number (written beside the null in the results)
    null_reasons: dict[str, dict[str, str]] = field(default_factory=dict)
    # task -> metric -> doc_id -> the item's own score (None: not scored, e.g. a judge failure)
    item_scores: dict[str, dict[str, dict[int, float | None]]] = field(default_factory=dict)
    judge_records: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    judge_summaries: dict[str, dict] = field(default_factory=dict)
    warned: set = field(default_factory=set)  # warnings given once per run (by key)
    # task -> doc_id -> what the cascade's recognizer heard in each clip: into the logged samples
    transcripts: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    # task -> predictions for a test set whose answers are withheld (lm_eval_audio.tasks.mmau.submissions)
    submissions: dict[str, list[dict]] = field(default_factory=dict)
    # (the model's results_name, its audio condition): what the results folder is named after
    results_naming: tuple | None = None

    # --- what the run could not evaluate ------------------------------------------------
    def note(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {})[key] = value

    def append(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {}).setdefault(key, []).append(value)

    def add(self, kind: str, key: str, amount: int) -> None:
        entries = self.data_notes.setdefault(kind, {})
        entries[key] = entries.get(key, 0) + amount

    def first_time(self, key) -> bool:
        """True the first time ``key`` is asked about in this run: for warnings given once per run."""
        if key in self.warned:
            return False
        self.warned.add(key)
        return True

    @staticmethod
    def first_time_in_process(key) -> bool:
        """True the first time ``key`` is asked about in this process: for a situation that stays the same from one
        run to the next (``diagnose`` runs each condition as a run of its own), said once."""
        if key in _said_in_process:
            return False
        _said_in_process.add(key)
        return True

    # --- the judge log --------------------------------------------------------------------
    def write_judge_logs(self, folder: str, date_id: str) -> list[str]:
        def write(f, entries):
            for entry in sorted(entries, key=lambda e: (e.get("doc_id", 0), e.get("pass", ""))):
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")

        return _write_per_task(folder, self.judge_records, "judge_log_{task}_{date}.jsonl", date_id, write)

    def write_submissions(self, folder: str, date_id: str) -> list[str]:
        return _write_per_task(folder, self.submissions, "{task}_submission_{date}.json", date_id,
                               lambda f, items: json.dump(items, f, ensure_ascii=False, indent=1))


@dataclass
class TaskScoring:
    """One task's scoring in one run, handed to each of the task's ``process_results`` and aggregation functions
    that takes a ``task`` parameter (``lm_eval_audio.harness.task_building``): the task's name, its metadata (the
    judge's settings among them), whether the run has a judge, and where what the scoring finds goes."""

    name: str
    metadata: dict
    state: RunState
    # Verdicts reached in this step, by judge and the judged items (the same objects): a task's several metrics
    # aggregate the same items, and the judge (and its log) must see them once.
    verdicts: dict[tuple, object] = field(default_factory=dict)

    @property
    def judged(self) -> bool:
        """Whether the run has a judge (the preflight found one): the judge metrics are reported only then."""
        return self.state.judge_configured

    def note(self, kind: str, key: str, value) -> None:
        self.state.note(kind, key, value)

    def note_for_task(self, kind: str, key: str, value) -> None:
        """``lm_eval_audio_data.<kind>.<task>.<key>`` in the results (a breakdown of one metric, say)."""
        self.state.data_notes.setdefault(kind, {}).setdefault(self.name, {})[key] = value

    def first_time(self, key) -> bool:
        return self.state.first_time(key)

    def first_time_in_process(self, key) -> bool:
        return self.state.first_time_in_process(key)

    def report_stderr(self, metric: str, value: float | None) -> None:
        """An aggregation's own standard error (None: not defined, lm-eval's "N/A"); lm-eval
        only bootstraps its registered aggregations."""
        if value is not None:
            self.state.stderrs.setdefault(self.name, {})[metric] = value

    def report_item_scores(self, metric: str, scores) -> None:
        """Per-document scores behind an aggregation that lm-eval only sees as one number (the
        judge metrics): ``(doc_id, score or None)`` pairs, written into each logged sample as
        ``item_scores``, for bootstrap intervals and the diagnostics."""
        self.state.item_scores.setdefault(self.name, {})[metric] = {
            int(doc_id): None if value is None else float(value) for doc_id, value in scores
        }

    def not_a_number(self, metric: str, reason: str, said: bool = False) -> float:
        """The aggregation's NaN, its reason logged (unless ``said`` already) and kept for the results (``null``
        there, the reason under ``lm_eval_audio_null_reasons``)."""
        import logging

        self.state.null_reasons.setdefault(self.name, {})[metric] = reason
        if not said:
            logging.getLogger("lm_eval.audio").warning("%s: %s is NaN: %s", self.name, metric, reason)
        return float("nan")

    def submit(self, predictions: list[dict]) -> None:
        """Predictions of a test set whose answers are withheld, written beside the results."""
        self.state.submissions[self.name] = predictions

    def remembered(self, kind: str, items: list, judge):
        """``judge()``'s verdicts on ``items``, reached once per aggregation step: a task's several metrics
        aggregate the same item objects."""
        key = (kind, tuple(map(id, items)))
        if key not in self.verdicts:
            self.verdicts[key] = judge()
        return self.verdicts[key]


def _write_per_task(folder: str, by_task: dict, name: str, date_id: str, write) -> list[str]:
    """One file per task in ``folder``, named by ``name``; the paths written."""
    written = []
    os.makedirs(folder, exist_ok=True)
    for task, entries in sorted(by_task.items()):
        path = os.path.join(folder, name.format(task=task, date=date_id))
        with open(path, "w", encoding="utf-8") as f:
            write(f, entries)
        written.append(path)
    return written


_said_in_process: set = set()
_current = RunState()
_finished: RunState | None = None


def current() -> RunState:
    return _current


def new_command() -> None:
    """A command starts (``lm_eval``, ``lm-eval-audio diagnose``): what was said once in its process is said again.
    One process runs one command, except in the tests, which run several in one."""
    _said_in_process.clear()


def reset() -> RunState:
    """A fresh state for a new run (each new ``TaskManager`` calls this first)."""
    global _current
    _current = RunState()
    return _current


def finish() -> RunState:
    """End the run: its state is kept as :func:`finished` until its judge logs are written,
    and the next run starts fresh."""
    global _finished
    _finished = _current
    reset()
    return _finished


def finished() -> RunState | None:
    return _finished
