"""What lm-eval's task index costs a new process, its YAML parses kept (harness/task_index_cache.py) against parsed
anew (the baseline, ``LM_EVAL_AUDIO_TASK_INDEX=`` empty), in the same run.

    .venv/bin/python bench/bench_task_index.py [--runs 5]

Each run is a new Python process that imports lm-eval (the hook with it) and times one ``TaskManager()``: lm-eval's
own tasks and ours indexed. The two settings alternate; the kept parses are filled by one run before the timed ones
(a cache in a folder of its own, not the user's). Prints each setting's median and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PROBE = ("import time; from lm_eval.tasks import TaskManager; started = time.perf_counter(); "
         "manager = TaskManager(); print(time.perf_counter() - started, len(manager.all_tasks))")


def one(cache: str) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                         env={**os.environ, "LM_EVAL_AUDIO_TASK_INDEX": cache}).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        kept_file = os.path.join(folder, "task_index.pickle")
        one(kept_file)  # fills it
        timings: dict[str, list[float]] = {"parsed anew": [], "kept parses": []}
        counts = set()
        for _ in range(args.runs):
            for label, cache in (("parsed anew", ""), ("kept parses", kept_file)):
                seconds, tasks = one(cache)
                timings[label].append(seconds)
                counts.add(tasks)
        size = os.path.getsize(kept_file)
    assert len(counts) == 1, f"the two indexes differ in size: {counts}"
    for label, values in timings.items():
        print(f"{label:12s} median {statistics.median(values):6.2f} s  (min {min(values):.2f}, max {max(values):.2f})")
    ratio = statistics.median(timings["parsed anew"]) / statistics.median(timings["kept parses"])
    print(f"{counts.pop()} names indexed either way; the kept parses ({size / 1e6:.1f} MB) index {ratio:.1f}x faster")


if __name__ == "__main__":
    main()
