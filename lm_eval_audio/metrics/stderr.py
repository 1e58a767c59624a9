"""The standard error of a mean, as lm-eval computes it, for the aggregations lm-eval does not
bootstrap (the judge metrics, METEOR)."""

from __future__ import annotations

import math

from lm_eval.api.metrics import mean_stderr as _lm_eval_mean_stderr


def mean_stderr(values: list[float]) -> float | None:
    """lm-eval's ``mean_stderr``; None below two values, where it is not defined (lm-eval's
    pooled group stderr divides by the summed n - 1)."""
    values = list(values)
    return None if len(values) < 2 else _lm_eval_mean_stderr(values)


def proportion_stderr(p: float, n: int) -> float | None:
    """The standard error of an accuracy ``p`` over ``n`` 0/1 scores (the sample variance's n - 1, as
    ``mean_stderr`` of those scores gives); None below two."""
    return math.sqrt(p * (1 - p) / (n - 1)) if n > 1 else None
