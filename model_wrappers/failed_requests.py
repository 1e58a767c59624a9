"""Requests a model wrapper could not get answered, kept visible.

An API request that still fails after its retries, or a request whose clip cannot be
decoded (corrupt, cut short, NaN samples), does not stop the run: the wrapper answers it
with a :class:`FailedResponse` (an empty string to lm-eval's filters and metrics; a
:class:`FailedScore`, log-likelihood -inf, for a scored continuation) and :func:`record`
notes it, so the results JSON lists it under
``lm_eval_audio_data.failed_requests`` (and counts them per task under
``failed_request_counts``) and the log says how many. Its item is scored as the task scores
an empty answer; a multiple-choice item is scored wrong in every metric, whichever position its right answer
holds (``harness.failed_scoring``). A request whose clip the loader marked unavailable gets the same answer,
marked ``not_run`` (not counted here: the loader counted it). A call in which no request was answered stops the run
(:class:`EveryRequestFailed`; answers from ``--use_cache`` count as answered): a broken
endpoint, or clips none of which decode (say MP3 with no ffmpeg), would otherwise be a run of
empty answers scored 0. The startup hook keeps
these answers out of lm-eval's ``--use_cache`` database, so a re-run with the same cache
asks exactly the failed requests again.
"""

from __future__ import annotations

import logging

from lm_eval_audio.model_wrappers.run_notes import ModelNotes

log = logging.getLogger("lm_eval.audio")


class FailedResponse(str):
    """The empty answer given for a request that failed for good; ``error`` says why, ``not_run`` that its clip
    was marked unavailable by the loader (so the model was never asked)."""

    def __new__(cls, error: str, not_run: bool = False):
        obj = super().__new__(cls, "")
        obj.error, obj.not_run = error, not_run
        return obj

    def __reduce__(self):  # pickled by --use_cache's SqliteDict before the hook removes it
        return (FailedResponse, (self.error, self.not_run))


class FailedScore(tuple):
    """The log-likelihood ``(-inf, False)`` given for a request that failed for good (``error``, ``not_run`` as
    :class:`FailedResponse`'s)."""

    def __new__(cls, error: str, not_run: bool = False):
        obj = super().__new__(cls, (float("-inf"), False))
        obj.error, obj.not_run = error, not_run
        return obj

    def __reduce__(self):
        return (FailedScore, (self.error, self.not_run))


class EveryRequestFailed(ValueError):
    """No request of a model call was answered; the message gives the first reason."""


_DOC = "/doc "  # failed_requests keys: ``<task>/doc <doc_id>``


def failed_documents(results: dict) -> dict[str, set[str]]:
    """Per task, the documents (their ``doc_id`` as written) whose request failed for good, read back from a
    run's results (``lm_eval_audio_data.failed_requests``, keyed as :func:`record` writes them)."""
    failed = (results.get("lm_eval_audio_data") or {}).get("failed_requests") or {}
    per_task: dict[str, set[str]] = {}
    for key in failed:
        task, _, doc = key.rpartition(_DOC)
        per_task.setdefault(task, set()).add(doc)
    return per_task


def is_failed(answer) -> bool:
    """An answer the model did not give: its request failed for good, or its clip was unavailable."""
    return isinstance(answer, (FailedResponse, FailedScore))


def holds_failure(answer) -> bool:
    """A failed answer, or a list of answers with one (a generation task's repeats, a conversation's rounds)."""
    return is_failed(answer) or (isinstance(answer, list) and any(map(is_failed, answer)))


def counted_failure(answer) -> bool:
    """A failure :func:`record` counted (not a clip the loader had already marked unavailable)."""
    return is_failed(answer) and not answer.not_run


def not_run(reason: str, kind: str):
    """The answer for a request whose clip the loader marked unavailable (``reason``): the model is not asked, the
    loader has counted it, and the task scores it as a failed item (wrong)."""
    return FailedResponse(reason, not_run=True) if kind == "generate_until" else FailedScore(reason, not_run=True)


def record(notes: ModelNotes, who: str, request, error: str, kind: str = "generate_until"):
    """Note the failure, in the wrapper's ``notes``, under ``task/doc N`` (a list: a document's repeats may fail more than
    once) and count it per task; the answer to give (by request ``kind``)."""
    task = getattr(request, "task_name", None) or "unknown_task"
    notes.append("failed_requests", f"{task}{_DOC}{getattr(request, 'doc_id', None)}", f"{who}: {error}")
    notes.add("failed_request_counts", task, 1)
    answer = FailedResponse(error) if kind == "generate_until" else FailedScore(error)
    answer.item = (task, getattr(request, "doc_id", None))  # a multiple-choice item fails once per choice
    return answer


def stop_if_every_request_failed(who: str, answers: list, requests_in_call: int | None, unavailable: int = 0) -> list:
    """:class:`EveryRequestFailed` where no request of the call (``requests_in_call``, where ``--use_cache`` or a
    split of the call answered some elsewhere) was answered; else the counted failures among ``answers``."""
    failed = [a for a in answers if counted_failure(a)]
    if failed and len(failed) + unavailable == max(len(answers), requests_in_call or 0):
        raise EveryRequestFailed(
            f"{who}: every request failed ({len(failed)}), first: {failed[0].error}; nothing to score"
        )
    return failed


def summarize(notes: ModelNotes, who: str, answers: list, unavailable: list[str] = ()) -> None:
    """Warn of the failed answers, or stop when no request was answered (requests that
    ``--use_cache`` answered count as answered: the startup hook sets the call's full request
    count as the wrapper's ``notes.requests_in_call``, so a re-run whose remaining requests fail again still
    finishes). ``unavailable`` holds the loader's reason for each request not run because its
    clip was marked unavailable (answered empty, log-likelihood -inf, without the model)."""
    if unavailable:
        log.warning("%s: %d request(s) have clips the loader marked unavailable; not run (answered empty, "
                    "log-likelihood -inf); first: %s", who, len(unavailable), sorted(unavailable)[0])
    failed = stop_if_every_request_failed(who, answers, notes.requests_in_call, len(unavailable))
    if failed:
        items = len({getattr(a, "item", id(a)) for a in failed})
        log.warning(
            "%s: %d item(s) failed for good (%d of %d request(s): an endpoint error after the retries, or audio that "
            "cannot be decoded) and were answered empty (listed in the results under "
            "lm_eval_audio_data.failed_requests, counted per task as failed_items in the printed counts table; with "
            "--use_cache a re-run asks only these again); first: %s",
            who, items, len(failed), len(answers), failed[0].error,
        )
