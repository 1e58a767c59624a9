"""lm-eval's own tests, with the plugin installed, must come out exactly as without it.

    .venv/bin/python scripts/lm_eval_own_tests.py [--keep DIR]

Fetches the source distribution of the installed lm-eval from PyPI (its ``tests/`` are not in
the wheel; kept in ``~/.cache/lm_eval_audio/lm_eval_sdist``), copies its tests into a scratch
folder so that ``import lm_eval`` is the installed package, and runs the test files below twice
against it, side by side in two copies: once with the startup hook off (``LM_EVAL_AUDIO_DISABLE_HOOK=1``) and
once with it on. Exits 1 when any test's outcome differs between the two runs, or when a test of MUST_PASS
fails with the hook on. Tests that fail with the hook off as well are listed, not counted against
the plugin: here that is lm-eval's evaluator tests that download models from the Hugging Face Hub
(no network on this machine) and task-manager tests whose fixtures do not load outside lm-eval's
source tree, each the same with and without the plugin.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

# lm-eval's tests of the code the plugin patches: aggregation, evaluator utilities, the multimodal
# request-cache keys, the task manager and index, groups, the registry, the evaluator. (test_requests_caching.py
# imports a module of lm-eval's scripts/ that the installed package does not have.)
TEST_FILES = [
    "tests/test_aggregation_pipeline.py",
    "tests/test_evaluator_utils.py",
    "tests/test_multimodal_cache_keys.py",
    "tests/test_task_manager.py",
    "tests/test_group.py",
    "tests/test_registry.py",
    "tests/test_evaluator.py",
]
# Files every test of which must pass with the hook on: the aggregation pipeline, the evaluator
# utilities and the multimodal cache keys the plugin's patches sit beside, and groups and the registry.
MUST_PASS = ["test_aggregation_pipeline", "test_evaluator_utils", "test_multimodal_cache_keys", "test_group",
             "test_registry"]


def sdist_tests(version: str) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lm_eval_audio" / "lm_eval_sdist"
    unpacked = cache / f"lm_eval-{version}"
    if not (unpacked / "tests").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        archive = cache / f"lm_eval-{version}.tar.gz"
        if not archive.is_file():
            for attempt in range(4):
                proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                                       ":all:", f"lm-eval=={version}", "-d", str(cache)])
                if proc.returncode == 0 and archive.is_file():
                    break
                time.sleep(15 * (attempt + 1))
            else:
                raise SystemExit(f"could not download the lm-eval {version} source distribution from PyPI")
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")
    return unpacked / "tests"


def start(scratch: Path, hook: bool, junit: Path) -> Callable[[], dict[str, str]]:
    """lm-eval's tests started in ``scratch``, with the hook on or off; the returned call waits for them and gives
    each test's outcome. The two runs go side by side, each in a copy of its own (tests write beside themselves)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.pop("LM_EVAL_AUDIO_DISABLE_HOOK", None)
    if not hook:
        env["LM_EVAL_AUDIO_DISABLE_HOOK"] = "1"
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(scratch),
            f"--junitxml={junit}", *TEST_FILES]
    started = time.time()
    proc = subprocess.Popen(args, cwd=scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def outcomes() -> dict[str, str]:
        stdout, stderr = proc.communicate()
        tail = [line for line in stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
        print(f"hook {'on ' if hook else 'off'}: {tail[0]} ({time.time() - started:.0f} s)", flush=True)
        found = {}
        for case in (ET.parse(junit).getroot().iter("testcase") if junit.is_file() else ()):
            name = f"{case.get('classname')}::{case.get('name')}"
            kinds = {child.tag for child in case}
            found[name] = ("failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed")
        if not found:
            print(stdout[-3000:], stderr[-3000:], sep="\n")
            raise SystemExit(f"lm-eval's tests ran no test (hook {'on' if hook else 'off'})")
        return found

    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    import lm_eval

    tests = sdist_tests(lm_eval.__version__)
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="lm_eval_own_tests_"))
    runs = {}
    for hook in (False, True):
        folder = scratch / ("hook_on" if hook else "hook_off")
        shutil.copytree(tests, folder / "tests", dirs_exist_ok=True)
        runs[hook] = start(folder, hook=hook, junit=folder / "junit.xml")
    off, on = runs[False](), runs[True]()
    differ = sorted(t for t in set(off) | set(on) if off.get(t) != on.get(t))
    failed_on = sorted(t for t, outcome in on.items() if outcome == "failed")
    must = sorted(t for t in failed_on if any(f".{name}" in t or t.startswith(name) for name in MUST_PASS))
    ran_must = sum(1 for t in on if any(f".{name}" in t or t.startswith(name) for name in MUST_PASS))
    counts = {k: sum(v == k for v in on.values()) for k in ("passed", "failed", "skipped")}
    print(f"lm-eval {lm_eval.__version__}'s own tests with lm-eval-audio installed: {counts['passed']} passed, "
          f"{counts['failed']} failed, {counts['skipped']} skipped; {len(differ)} differ from the run without it")
    for test in differ:
        print(f"  differs: {test}: {off.get(test, 'absent')} without the plugin, {on.get(test, 'absent')} with it")
    print(f"  {ran_must} tests of {', '.join(MUST_PASS)}: {ran_must - len(must)} passed with the plugin")
    for test in must:
        print(f"  failed with the plugin: {test}")
    others = [t for t in failed_on if t not in must]
    if others:
        print(f"  {len(others)} other tests fail with and without the plugin alike (network, fixtures), e.g. {others[0]}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    if differ or must or not ran_must:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
