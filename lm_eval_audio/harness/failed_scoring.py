"""A document whose request failed for good is scored wrong, never right by accident.

Our wrappers answer a failed request with a marker (``model_wrappers.failed_requests``): the empty string, or the
log-likelihood ``(-inf, False)``. lm-eval scores a multiple-choice document by ``argmax`` over its choices'
log-likelihoods, and the argmax of all ``-inf`` is the first choice: a failed document whose right answer is its
first choice would be scored right (and numpy warns of ``-inf - -inf`` on the way). Only multiple-choice tasks need
anything: our tasks' own class reads their results through :func:`scored_as_failed` (``harness.task_building``),
and while one of our models runs, each of lm-eval's own multiple-choice tasks (a text task such as ARC run with
hf-audio) has its ``process_results`` wrapped (per task object, for that run only: :func:`scored_wrong`); no other
task is touched. A multiple-choice document with a failed choice is handed log-likelihoods under which every right choice has
``-inf`` and every other choice the same finite value, so every reading lm-eval makes of them (``acc``,
``acc_norm``, ``acc_bytes``, ``exact_match``, ``f1``/``mcc`` pairs, ``brier_score``, ``acc_mutual_info``) is
wrong, at any position of the right answer. A generated answer that failed is the empty string, which the
task's own metric scores (every scorer of this plugin scores it wrong); a single continuation's failed score is
``(-inf, False)``: ``acc`` 0 and an infinite perplexity. The samples keep what the model returned.
"""

from __future__ import annotations

from lm_eval_audio.model_wrappers.failed_requests import holds_failure

# What each wrong choice of a failed document gets: 0, so that argmax never lands on a right choice, whatever length
# normalization lm-eval applies (0 over a length is 0; over an empty choice's 0, NaN, which argmax picks first, as it
# picks any NaN over -inf), and no -inf minus -inf arises.
_WRONG_CHOICE = (0.0, False)


def _right_choices(task, doc, choices: list) -> set[int]:
    """The indexes of the right choices, read as lm-eval's ``ConfigurableTask.process_results`` reads them."""
    gold = task.doc_to_text(doc) if task.multiple_input else task.doc_to_target(doc)
    golds = gold if isinstance(gold, list) else [gold]
    return {choices.index(g) if isinstance(g, str) and g in choices else g for g in golds}


def wrong_choice_scores(task, doc, results: list) -> list:
    """The log-likelihoods a failed multiple-choice document is scored with: ``-inf`` for each right choice, the
    same finite value for every other (and 0 for the unconditional half of ``acc_mutual_info``)."""
    choices = task.doc_to_choice(doc)
    right = _right_choices(task, doc, choices)
    if all(i in right for i in range(len(choices))):  # nothing to be wrong with: every choice is right
        right = set()
    conditional = [(float("-inf"), False) if i in right else _WRONG_CHOICE for i in range(len(choices))]
    return conditional + [(0.0, False)] * (len(results) - len(choices))


def scored_as_failed(task, doc, results: list) -> list:
    """``results`` as ``task`` is to score them: a multiple-choice document with a failed choice gets
    :func:`wrong_choice_scores`; anything else is returned as it is."""
    if getattr(task, "OUTPUT_TYPE", None) == "multiple_choice" and any(map(holds_failure, results)):
        return wrong_choice_scores(task, doc, list(results))
    return results


def scored_wrong(task, process_results):
    """``process_results`` of ``task`` (bound), with a failed document scored wrong (the module's docstring)."""

    def guarded(doc, results):
        return process_results(doc, scored_as_failed(task, doc, results))

    guarded.lm_eval_audio_failed_scoring = True
    return guarded


class failed_items_scored_wrong:
    """For the run of one of our models over ``tasks`` (name -> task): the ``process_results`` of each multiple-choice
    task that does not read its results through :func:`scored_as_failed` itself (lm-eval's own) wrapped by
    :func:`scored_wrong` on the task object, and unwrapped after, so a task object used again by another run
    (``diagnose``) is wrapped once."""

    def __init__(self, tasks: dict) -> None:
        self.tasks = [t for t in tasks.values() if hasattr(t, "process_results")
                      and getattr(t, "OUTPUT_TYPE", None) == "multiple_choice"
                      and not getattr(t, "scores_failed_items_wrong", False)]
        self.before: dict[int, object] = {}  # what each task object held as its own process_results, if anything

    def __enter__(self):
        for task in self.tasks:
            if not getattr(task.process_results, "lm_eval_audio_failed_scoring", False):
                self.before[id(task)] = task.__dict__.get("process_results", _NONE)
                task.process_results = scored_wrong(task, task.process_results)
        return self

    def __exit__(self, *exc) -> None:
        for task in self.tasks:
            if id(task) not in self.before:
                continue  # wrapped by an enclosing run: its to undo
            before = self.before[id(task)]
            if before is _NONE:
                task.__dict__.pop("process_results", None)
            else:
                task.process_results = before


_NONE = object()
