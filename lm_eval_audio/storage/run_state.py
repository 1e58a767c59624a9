"""Everything one evaluation keeps while it runs, in one object.

lm-eval calls into the plugin from places that cannot pass anything along: a task's
loader, a model wrapper's request loop, an aggregation function that only gets the list of
per-document items. What those places learn or need during a run lives on the
:class:`RunState` that :func:`current` returns, and nowhere else:

* ``data_notes``: what the run could not evaluate (missing folders, absent tasks, unusable
  clips, failed requests), noted by the loaders and the model wrappers; it becomes the
  results' ``lm_eval_audio_data``;
* ``requests_in_call`` and ``caching_condition``: the model call under way, as lm-eval's
  ``--use_cache`` layer sees it;
* ``judge_configured`` and ``smoke_test_judge``: what the judge preflight found, before the
  model runs;
* ``aggregating``, ``stderrs``, ``item_scores``: the task whose metrics are being aggregated,
  the standard errors our aggregations report, and the judge metrics' per-document scores;
* ``judge_records``, ``judge_summaries``, ``judge_verdicts``: the judge log, the judge
  settings and counts per task, and verdicts already reached in this run;
* ``transcripts``: the cascade's transcript of each document's clips, for its logged sample;
* ``submissions``: predictions of a test set without public answers, written beside the results.

How judge scores reach the results, in one place: an aggregation function (a task folder's
``utils.py``) asks the judge and puts its scores here; the startup hook's ``evaluate``
wrapper copies ``judge_summaries`` into the results (``lm_eval_audio_judge``), ``item_scores``
into each logged sample, and ``data_notes`` into ``lm_eval_audio_data``; it then
:func:`finish` es the state, and lm-eval's results writer, wrapped as well, writes the
finished state's ``judge_records`` as ``judge_log_<task>_<time>.jsonl`` next to the results.
``simple_evaluate`` starts every run with :func:`reset`, so nothing crosses from one run to
the next, in one process or several.
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
    caching_condition: str | None = None
    judge_configured: bool = False
    smoke_test_judge: bool = False
    aggregating: tuple[str | None, dict] = (None, {})
    stderrs: dict[str, float] = field(default_factory=dict)
    # task -> metric -> doc_id -> the item's own score (None: not scored, e.g. a judge failure)
    item_scores: dict[str, dict[str, dict[int, float | None]]] = field(default_factory=dict)
    judge_records: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    judge_summaries: dict[str, dict] = field(default_factory=dict)
    # Verdicts already reached in this run, by a key of the judged items: a task's several
    # metrics aggregate the same items, and the judge (and the log) must see them once.
    judge_verdicts: dict[str, object] = field(default_factory=dict)
    warned: set = field(default_factory=set)  # warnings given once per run (by key)
    # task -> doc_id -> what the cascade's recognizer heard in each clip: into the logged samples
    transcripts: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    # task -> predictions for a test set whose answers are withheld (lm_eval_audio.tasks.mmau.submissions)
    submissions: dict[str, list[dict]] = field(default_factory=dict)

    # --- what the run could not evaluate ------------------------------------------------
    def note(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {})[key] = value

    def append(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {}).setdefault(key, []).append(value)

    def add(self, kind: str, key: str, amount: int) -> None:
        entries = self.data_notes.setdefault(kind, {})
        entries[key] = entries.get(key, 0) + amount

    # --- aggregation ----------------------------------------------------------------------
    @property
    def task(self) -> str:
        """The task being aggregated (for the judge log and messages)."""
        return self.aggregating[0] or "unknown_task"

    @property
    def task_metadata(self) -> dict:
        return dict(self.aggregating[1] or {})

    def report_stderr(self, metric: str, value: float | None) -> None:
        """An aggregation's own standard error (None: not defined, lm-eval's "N/A"); lm-eval
        only bootstraps its registered aggregations."""
        if value is not None:
            self.stderrs[metric] = value

    def report_item_scores(self, metric: str, scores) -> None:
        """Per-document scores behind an aggregation that lm-eval only sees as one number (the
        judge metrics): ``(doc_id, score or None)`` pairs, written into each logged sample as
        ``item_scores``, for bootstrap intervals and the diagnostics."""
        self.item_scores.setdefault(self.task, {})[metric] = {
            int(doc_id): None if value is None else float(value) for doc_id, value in scores
        }

    # --- the judge log --------------------------------------------------------------------
    def write_judge_logs(self, folder: str, date_id: str) -> list[str]:
        def write(f, entries):
            for entry in sorted(entries, key=lambda e: (e.get("doc_id", 0), e.get("pass", ""))):
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")

        return _write_per_task(folder, self.judge_records, "judge_log_{task}_{date}.jsonl", date_id, write)

    def write_submissions(self, folder: str, date_id: str) -> list[str]:
        return _write_per_task(folder, self.submissions, "{task}_submission_{date}.json", date_id,
                               lambda f, items: json.dump(items, f, ensure_ascii=False, indent=1))


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


_current = RunState()
_finished: RunState | None = None


def current() -> RunState:
    return _current


def reset() -> RunState:
    """A fresh state for a new run (``simple_evaluate`` calls this first)."""
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
