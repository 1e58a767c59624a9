"""Results as strict JSON: a number that is not one (NaN, ±infinity) written as ``null``, with the reason beside it.

Python's ``json`` writes NaN as the bare token ``NaN``, which is not JSON: ``jq``, JavaScript and every strict
parser refuse the whole file. lm-eval writes its results and samples that way, and a metric with nothing to
average is NaN. The startup hook hands lm-eval's writers a copy made here instead (the printed table, made from
the run's own dict, still says NaN). Each ``null`` put in a results file gets its reason under
``lm_eval_audio_null_reasons``, keyed by its path (``results.<task>.<metric>,<filter>``): the reason the metric's
aggregation gave (``TaskScoring.not_a_number``) where it gave one.
"""

from __future__ import annotations

import math

REASONS_KEY = "lm_eval_audio_null_reasons"
NO_REASON_GIVEN = "not a number: nothing was scored for it (the run's log says why)"


def finite_copy(value, path: tuple = (), found: list | None = None):
    """``value`` with every float that is NaN or infinite (at any depth) made None; each one's path appended to
    ``found``."""
    if isinstance(value, float) and not math.isfinite(value):
        if found is not None:
            found.append(path)
        return None
    if isinstance(value, dict):
        return {k: finite_copy(v, (*path, str(k)), found) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_copy(v, (*path, str(i)), found) for i, v in enumerate(value)]
    return value


def strict_results(results: dict, reasons: dict[str, dict[str, str]]) -> dict:
    """A copy of a run's results to write: nulls for NaN and infinities, each null's reason beside it.
    ``reasons``: task -> metric -> why its aggregation gave no number."""
    found: list[tuple] = []
    clean = finite_copy(results, found=found)
    if found:
        members = results.get("group_subtasks") or {}
        clean[REASONS_KEY] = {".".join(path): reason_for(path, reasons, members) for path in found}
    return clean


def reason_for(path: tuple, reasons: dict[str, dict[str, str]], members: dict[str, list[str]]) -> str:
    """Why the number at ``path`` (``("results", task, "metric,filter")``) is not one: its aggregation's reason, or a
    group's first member's that gave one."""
    if len(path) == 3 and path[0] in ("results", "groups"):
        metric = path[2].partition(",")[0]
        if metric.endswith("_stderr"):
            return f"no standard error could be taken of {metric.removesuffix('_stderr')}"
        if metric in reasons.get(path[1], {}):
            return reasons[path[1]][metric]
        # a group's number is its members': the first member's reason where one gave it
        given = [(m, reasons[m][metric]) for m in members.get(path[1], ()) if metric in reasons.get(m, {})]
        if given:
            return f"from {given[0][0]}: {given[0][1]}"
    return NO_REASON_GIVEN
