"""What lm-eval's building of a run's tasks notes, from the ``TaskManager`` that reads them to the run's results.

A loader returns its notes with its documents (``benchmarks.data_notes``), and the seam takes them into the
:class:`RunState` that :func:`current` returns as lm-eval builds each task (``harness.task_building``): missing
folders, unusable clips, tasks left out of their group. The tasks are built before the run's ``evaluate`` begins
(lm-eval's CLI builds them through its ``TaskManager``), so what they note is kept here until ``evaluate`` ends
and writes it into the results' ``lm_eval_audio_data`` (``harness.run_patches``).

Only the seam imports this module: a new ``TaskManager`` starts with :func:`reset` (``harness.task_patches``), the
tasks' building notes (``harness.task_building``), and ``evaluate`` ends with :func:`finish`
(``harness.run_patches``). What a task's scoring produces travels on its own object
(``metrics.task_scoring.TaskScoring``); what a model notes, on the model (``model_wrappers.run_notes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_audio.storage.notes_by_kind import NotesByKind


@dataclass
class RunState(NotesByKind):
    """The loaders' notes of one run (``data_notes``) and the warnings given once in it."""


_current = RunState()


def current() -> RunState:
    return _current


def reset() -> RunState:
    """A fresh state for a new run (each new ``TaskManager`` calls this first)."""
    global _current
    _current = RunState()
    return _current


def finish() -> RunState:
    """End the run: its state is returned for the results, and the next run starts fresh."""
    finished = _current
    reset()
    return finished
