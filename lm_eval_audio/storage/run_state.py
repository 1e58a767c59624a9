"""The run under way: one object, made once as a command starts, that carries what the run's parts tell each other.

A command makes its :class:`Run` as it starts (lm-eval's ``Run._execute``, wrapped by ``harness.cli_patches``;
``lm-eval-audio download``; ``lm-eval-audio diagnose``) and :func:`started` makes it the current one for the rest of
the command, in this context (a context variable: a second command in the same process, as the tests run them, has
its own, and it ends with the command). From Python (``simple_evaluate`` with no command), each new ``TaskManager``
starts a run of its own (:func:`fresh_unless_a_command`).

What it carries, each written in one place and read where it is needed:

* ``command``: what ``lm_eval`` was given, as lm-eval parsed it (``harness.cli_patches.RunCommand``; None from Python),
  for the error messages and checks; ``failure``: an error said once lm-eval has printed its table;
* ``asked`` and ``downloading``: the tasks the command named and whether it is ``download``, for what a data error
  says to do (``benchmarks.hub_access``); ``plan``: what ``download --dry_run`` would fetch (``benchmarks.hub_data``);
* ``judges``: each task's judge, resolved once (``harness.preflight``): a ``JudgeConfig``, :data:`SMOKE_TEST_JUDGE`
  where the bundled judge stands in, or None where the task has no judge;
* ``spoken``, ``recognizers`` and ``answers_root``: the tasks answered in speech, each with the settings of its
  recognizer of answers, and the folder their answers go in, beside the results (``harness.spoken_preflight``); each
  recognizer loaded once (``model_wrappers.answer_recognizer``);
* ``data_notes``: what the loaders noted as lm-eval built the tasks (``harness.task_building``), written into the
  results of the ``evaluate`` that ends (:meth:`Run.take_data_notes`); ``said``: the warnings given once in the
  command (``first_time``).

What a task's scoring produces travels on its own object (``metrics.task_scoring.TaskScoring``); what a model notes,
on the model (``model_wrappers.run_notes``); which files a clip came from, with the loader's notes
(``benchmarks.data_notes``).
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from lm_eval_audio.storage.notes_by_kind import NotesByKind

SMOKE_TEST_JUDGE = "smoke-test judge"  # a task judged by the bundled judge, started as the run's evaluate begins


@dataclass
class Run(NotesByKind):
    command: object = None
    asked: tuple[str, ...] = ()
    downloading: bool = False
    plan: list | None = None
    judges: dict = field(default_factory=dict)
    failure: Exception | None = None
    spoken: dict = field(default_factory=dict)  # task answered in speech -> its recognizer's settings
    recognizers: dict = field(default_factory=dict)  # those settings -> the recognizer loaded for them
    answers_root: str | None = None  # spoken_answers/ in the folder lm-eval writes the results into
    quality: dict = field(default_factory=dict)  # task answered in speech -> the quality metrics it names, settings
    raters: dict = field(default_factory=dict)  # a rater's key -> the rater loaded for it
    by_command: bool = False  # made by a command (set by :func:`started`), not for one simple_evaluate from Python

    def take_data_notes(self) -> dict:
        """The loaders' notes of the ``evaluate`` that ends, for its results; the next one starts with none."""
        notes, self.data_notes = self.data_notes, {}
        return notes


_RUN: ContextVar[Run] = ContextVar("lm_eval_audio_run")


def current() -> Run:
    """The run under way in this context (one made from Python, where no command made one)."""
    run = _RUN.get(None)
    if run is None:
        run = Run()
        _RUN.set(run)
    return run


def started(run: Run) -> Token:
    """``run``, a command's, is the run under way until :func:`ended` with the token returned."""
    run.by_command = True
    return _RUN.set(run)


def ended(token: Token) -> None:
    _RUN.reset(token)


def fresh() -> Run:
    """A new run for this context, not a command's (from Python: one ``simple_evaluate``)."""
    run = Run()
    _RUN.set(run)
    return run


def fresh_unless_a_command() -> None:
    """A new ``TaskManager``: the run a command started goes on; from Python, a new run begins (what an earlier
    ``simple_evaluate`` noted is gone before this one's loaders note anything)."""
    run = _RUN.get(None)
    if run is None or not run.by_command:
        fresh()
