"""The README runs as written (issue 19): every fenced bash block of it that this machine runs (a
command of the project's `.venv/`, or its setup) is a named block, and each named block is run by a
test, or is the setup and test command that `.ci/run` runs, so the README cannot drift from what works."""

from __future__ import annotations

import re

import pytest

from conftest import REPO, run_readme_block

README = (REPO / "README.md").read_text()
# Named blocks and the test that runs each (the commands of the others are for a GPU host or a server).
RUN_BY = {
    "setup": ".ci/run",
    "tests": ".ci/run",
    "main-job": "tests/test_cli.py::test_readme_main_job_runs_as_written",
    "report": "tests/test_cli.py::test_readme_main_job_runs_as_written",
    "diagnose": "tests/test_diagnose.py",
    "mix": "tests/test_mixing.py",
    "text-and-audio": "tests/test_readme.py::test_readme_text_and_audio_example_runs_as_written",
}


def _commands(block: str) -> list[str]:
    """The block's commands, comments and continuation lines folded."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def test_every_block_for_this_machine_is_named_and_run_by_a_test():
    named = dict(re.findall(r"<!-- ([\w-]+) -->\s*```bash\n(.*?)```\s*<!-- /\1 -->", README, re.S))
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        if any(c.startswith((".venv/bin/", "bash scripts/")) for c in _commands(block)):
            assert block in named.values(), f"README block runs here but is not named and tested:\n{block}"
    assert set(named) == set(RUN_BY), "a named README block without a test, or a test of a block that is gone"
    for name, where in RUN_BY.items():
        path = REPO / where.split("::")[0]
        if where == ".ci/run":
            assert all(c in path.read_text() for c in _commands(named[name])), name
        else:
            assert f'"{name}"' in path.read_text(), f"{where} does not run the README's {name} block"


@pytest.mark.slow
def test_readme_text_and_audio_example_runs_as_written(tmp_path):
    proc = run_readme_block("text-and-audio", tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "local_models" / "tiny-qwen2-audio" / "config.json").is_file()
    for task in ("tiny_arc", "tiny_wikitext", "spoken_digits_mc", "spoken_digits_gen"):
        assert f"|{task}" in proc.stdout.replace(" ", ""), task
    assert "Traceback" not in proc.stderr
