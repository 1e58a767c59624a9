"""Requests a model wrapper could not get answered, kept visible.

An API request that still fails after its retries does not stop the run: the wrapper
answers it with a :class:`FailedResponse` (an empty string to lm-eval's filters and
metrics) and :func:`record` notes it, so the results JSON lists it under
``lm_eval_audio_data.failed_requests`` (and counts them per task under
``failed_request_counts``) and the log says how many. Its item is scored as the task scores
an empty answer (usually wrong). The startup hook keeps
these answers out of lm-eval's ``--use_cache`` database, so a re-run with the same cache
asks exactly the failed requests again.
"""

from __future__ import annotations

import logging

from lm_eval_audio import run_report

log = logging.getLogger("lm_eval.audio")


class FailedResponse(str):
    """The empty answer given for a request that failed for good; ``error`` says why."""

    def __new__(cls, error: str):
        obj = super().__new__(cls, "")
        obj.error = error
        return obj

    def __reduce__(self):  # pickled by --use_cache's SqliteDict before the hook removes it
        return (FailedResponse, (self.error,))


def record(who: str, request, error: str) -> FailedResponse:
    """Note the failure under ``task/doc N`` (a list: a document's repeats may fail more than
    once) and count it per task."""
    task = getattr(request, "task_name", None) or "unknown_task"
    run_report.append("failed_requests", f"{task}/doc {getattr(request, 'doc_id', None)}", f"{who}: {error}")
    run_report.add("failed_request_counts", task, 1)
    return FailedResponse(error)


def summarize(who: str, answers: list) -> None:
    failed = [a for a in answers if isinstance(a, FailedResponse)]
    if failed:
        log.warning(
            "%s: %d of %d request(s) failed after their retries and were answered empty (listed in the results "
            "under lm_eval_audio_data.failed_requests; with --use_cache a re-run asks only these again); first: %s",
            who, len(failed), len(answers), failed[0].error,
        )
