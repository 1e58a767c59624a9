"""What the startup hook costs every Python process of the environment.

    .venv/bin/python bench/bench_startup_hook.py [--runs 20]

Runs `python -X importtime -c pass` repeatedly and, per run, sums the cumulative
import time of the modules the hook's .pth line imports (lm_eval_audio and
lm_eval_audio.harness.startup, with anything they pull in) and of ALL start-up imports (the
baseline). Also checks that the hook imports neither torch nor transformers.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys


def one_run() -> tuple[int, int, int, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, check=True
    )
    hook_us = total_us = editable_us = 0
    modules = set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, raw_name = line.split("|")
        name = raw_name.strip()
        modules.add(name)
        if len(raw_name) - len(raw_name.lstrip()) == 1:
            total_us += int(cumulative)  # top-level imports add up to the whole start-up
        if name == "lm_eval_audio.harness.startup":  # imported by our .pth; lm_eval_audio is its child
            hook_us += int(cumulative)
        if name.startswith("__editable__"):
            editable_us += int(cumulative)
    return hook_us, total_us, editable_us, modules


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    hooks, totals, editables = [], [], []
    for _ in range(args.runs):
        hook_us, total_us, editable_us, modules = one_run()
        hooks.append(hook_us)
        totals.append(total_us)
        editables.append(editable_us)
    assert "lm_eval_audio.harness.startup" in modules, "the hook did not run: is the project installed?"
    heavy = sorted(m for m in modules if m.split(".")[0] in {"torch", "transformers", "lm_eval", "numpy"})
    hook_ms = statistics.median(hooks) / 1000
    total_ms = statistics.median(totals) / 1000
    print(f"python: {sys.version.split()[0]}  runs: {args.runs}")
    print(f"hook imports (lm_eval_audio, lm_eval_audio.harness.startup): median {hook_ms:.2f} ms (min {min(hooks)/1000:.2f}, max {max(hooks)/1000:.2f})")
    print(f"all start-up imports: median {total_ms:.2f} ms")
    print(f"hook share of start-up import time: {hook_ms / total_ms:.1%}")
    if max(editables):
        print(
            f"(setuptools' own editable-install finder, not part of the hook, absent from wheel installs: "
            f"median {statistics.median(editables) / 1000:.2f} ms)"
        )
    print(f"heavy modules imported at start-up: {heavy or 'none'}")


if __name__ == "__main__":
    main()
