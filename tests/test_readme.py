"""The README and the guides in docs/ run as written (issue 19): every fenced bash block of README.md or a
docs/*.md guide that this machine runs (a command of the project's `.venv/`, or its setup) is a named block, each
named block is run by a test, or is the setup and test command that `.ci/run` runs, so no page can drift from what
works. The README stays short (the rest is in docs/), and no relative link of these pages leads nowhere."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import DOCUMENTS, REPO, run_readme_block

README = (REPO / "README.md").read_text()
MAX_README_LINES = 250
# Named blocks: the page that holds each and the test that runs it (the commands of the others are for a GPU host
# or a server).
RUN_BY = {
    "setup": ("README.md", ".ci/run"),
    "main-job": ("README.md", "tests/test_cli.py::test_readme_main_job_runs_as_written"),
    "tests": ("README.md", ".ci/run"),
    "diagnose": ("docs/DIAGNOSTICS.md", "tests/test_diagnose.py"),
    "mix": ("docs/DIAGNOSTICS.md", "tests/test_mixing.py"),
    "report": ("docs/DIAGNOSTICS.md", "tests/test_cli.py::test_readme_main_job_runs_as_written"),
    "text-and-audio": ("docs/TASKS.md", "tests/test_readme.py::test_readme_text_and_audio_example_runs_as_written"),
    "spoken": ("README.md", "tests/test_spoken_answers.py::test_the_readmes_spoken_answers_command_runs_as_written"),
}
NAMED = re.compile(r"<!-- ([\w-]+) -->\s*```bash\n(.*?)```\s*<!-- /\1 -->", re.S)


def _commands(block: str) -> list[str]:
    """The block's commands, comments and continuation lines folded."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def _unnamed_blocks_run_here(text: str) -> list[str]:
    """The bash blocks of a page that this machine runs but that are not named (so no test runs them)."""
    named = [block for _, block in NAMED.findall(text)]
    return [block for block in re.findall(r"```bash\n(.*?)```", text, re.S)
            if any(c.startswith((".venv/bin/", "bash scripts/")) for c in _commands(block)) and block not in named]


def _page(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def test_every_block_for_this_machine_is_named_and_run_by_a_test():
    held: dict[str, tuple[str, str]] = {}  # name -> (page, block)
    for path in DOCUMENTS:
        text = path.read_text()
        unnamed = _unnamed_blocks_run_here(text)
        assert not unnamed, f"{_page(path)}: a block runs here but is not named and tested:\n{unnamed[0]}"
        for name, block in NAMED.findall(text):
            assert name not in held, f"a block named {name} in {held[name][0]} and in {_page(path)}"
            held[name] = (_page(path), block)
    assert set(held) == set(RUN_BY), "a named block without a test, or a test of a block that is gone"
    for name, (page, where) in RUN_BY.items():
        assert held[name][0] == page, f"the {name} block is in {held[name][0]}, not {page}"
        path = REPO / where.split("::")[0]
        if where == ".ci/run":
            missing = [c for c in _commands(held[name][1]) if c not in path.read_text()]
            assert not missing, f".ci/run does not run the {name} block's {missing}"
        else:
            assert f'"{name}"' in path.read_text(), f"{where} does not run the {name} block of {page}"


def test_the_block_check_finds_a_block_nobody_runs():
    page = ("<!-- a -->\n```bash\n.venv/bin/lm_eval --tasks a\n```\n<!-- /a -->\n\n"
            "```bash\n.venv/bin/lm_eval --tasks b\n```\n")
    assert _unnamed_blocks_run_here(page) == [".venv/bin/lm_eval --tasks b\n"]
    assert _unnamed_blocks_run_here("```bash\nlm_eval --model hf-audio  # on a GPU host\n```\n") == []


def test_the_readme_stays_short():
    assert len(README.splitlines()) <= MAX_README_LINES, "the README grew: move the detail into docs/"


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces as hyphens, a repeated
    heading numbered)."""
    seen: Counter = Counter()
    anchors = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchors.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return anchors


def _broken_links(path: Path) -> list[str]:
    """The relative links of a page (outside code) whose file, or whose heading in a Markdown file, is missing."""
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "code", text)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked.read_text()):
            broken.append(target)
    return broken


@pytest.mark.parametrize("path", DOCUMENTS, ids=_page)
def test_every_relative_link_leads_to_a_file_that_exists(path):
    assert not _broken_links(path), f"{_page(path)} links to what is not there: {_broken_links(path)}"


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "GUIDE.md").write_text("# Guide\n\n## `--use_cache`: answers kept\n\n## Guide\n")
    page = tmp_path / "README.md"
    page.write_text("[a](docs/GUIDE.md#--use_cache-answers-kept) [b](docs/GUIDE.md#guide-1) [c](docs/GONE.md) "
                    "[d](docs/GUIDE.md#gone) [e](https://example.org/x) `[f](docs/IN_CODE.md)`\n")
    assert _broken_links(page) == ["docs/GONE.md", "docs/GUIDE.md#gone"]


@pytest.mark.slow
def test_readme_text_and_audio_example_runs_as_written(tmp_path):
    proc = run_readme_block("text-and-audio", tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "local_models" / "tiny-qwen2-audio" / "config.json").is_file()
    for task in ("tiny_arc", "tiny_wikitext", "spoken_digits_mc", "spoken_digits_gen"):
        assert f"|{task}" in proc.stdout.replace(" ", ""), task
    assert "Traceback" not in proc.stderr
