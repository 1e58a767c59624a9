"""Confidence intervals and paired tests over per-document scores.

lm-eval bootstraps only its registered aggregations, and the benchmark averages (AIR-Bench's
category means of task means) are no aggregation at all. Here every statistic is a function
of per-task sums, and the bootstrap resamples documents within each task (a stratified
bootstrap): a task keeps its size in every replicate, as in the benchmark itself.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ITERATIONS = 10_000
SEED = 0
LEVEL = 0.95
_DRAWS_PER_CHUNK = 2_000_000  # resampled indices held at once (16 MB)


def resampled_sums(values: np.ndarray, iterations: int = ITERATIONS, seed: int = SEED) -> np.ndarray:
    """Sums of ``iterations`` resamples (with replacement, same size) of ``values``."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    rng = np.random.default_rng(seed)
    out = np.empty(iterations)
    rows = max(1, _DRAWS_PER_CHUNK // max(n, 1))
    for start in range(0, iterations, rows):
        stop = min(iterations, start + rows)
        out[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].sum(axis=1)
    return out


def interval(replicates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of bootstrap replicates."""
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def stratified(
    groups: dict[str, list[float]],
    statistics: dict[str, Callable[[dict[str, float], dict[str, int]], float]],
    iterations: int = ITERATIONS,
    seed: int = SEED,
) -> dict[str, tuple[float, tuple[float, float]]]:
    """Each ``statistic(sums, counts)`` on the data, and its 95% interval from resampling
    each group's values on its own; the resamples are drawn once and shared by all the
    statistics. ``groups``: group name -> its documents' scores."""
    counts = {g: len(v) for g, v in groups.items()}
    sums = {g: float(np.sum(v)) for g, v in groups.items()}
    replicates = {
        g: resampled_sums(np.asarray(v), iterations, seed + i) for i, (g, v) in enumerate(sorted(groups.items()))
    }
    draws = [{g: r[b] for g, r in replicates.items()} for b in range(iterations)]
    return {
        name: (statistic(sums, counts), interval(np.array([statistic(d, counts) for d in draws])))
        for name, statistic in statistics.items()
    }


def mean_interval(values: list[float], iterations: int = ITERATIONS, seed: int = SEED) -> tuple[float, float]:
    return interval(resampled_sums(np.asarray(values), iterations, seed) / len(values))


def paired(
    a: list[float], b: list[float], iterations: int = ITERATIONS, seed: int = SEED
) -> dict[str, float]:
    """Model A against model B on the same documents (``a[i]`` and ``b[i]`` score one document).

    * ``difference``: mean(A) - mean(B);
    * ``low`` / ``high``: its 95% paired bootstrap interval (documents resampled, pairs kept);
    * ``p_value``: two-sided sign-flip permutation test of "no difference" (each document's
      pair swapped at random), with the +1 correction, so never 0.
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    if n == 0:
        raise ValueError("no documents scored by both models")
    observed = float(d.mean())
    low, high = interval(resampled_sums(d, iterations, seed) / n)
    rng = np.random.default_rng(seed + 1)
    extreme = 0
    rows = max(1, _DRAWS_PER_CHUNK // n)
    for start in range(0, iterations, rows):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(rows, iterations - start), n))
        extreme += int((np.abs((signs * d).mean(axis=1)) >= abs(observed) - 1e-12).sum())
    return {"difference": observed, "low": low, "high": high, "p_value": (extreme + 1) / (iterations + 1), "n": n}
