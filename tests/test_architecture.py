"""Every module of the package is named where a newcomer looks for its job: a shared module in docs/ARCHITECTURE.md,
a module of a task folder (``tasks/<folder>/``) in that folder's own README.md, so that a benchmark folder carries
its documentation and adding one changes no file outside it. A benchmark folder's README is titled with the name
its ``benchmark.py`` declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_layout import modules, modules_in

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "tasks"
DOC = (REPO / "docs" / "ARCHITECTURE.md").read_text()
TASK_FOLDERS = sorted(p for p in TASKS.iterdir() if p.is_dir() and any(p.glob("*.yaml")))


def _named(module: str) -> bool:
    short = module.removeprefix("lm_eval_audio.")
    leaf = short.rpartition(".")[2]
    # a package's own __init__ needs no row; a module is named by its dotted short name or, in its
    # package's row, by its leaf name in backticks
    return short in ("lm_eval_audio", "") or f"`{short}`" in DOC or f"`{leaf}`" in DOC


def _in_a_task_folder(module: str) -> bool:
    return module.startswith("lm_eval_audio.tasks.")


def folder_doc_problems(folder: Path, tasks_root: Path = TASKS) -> list[str]:
    """What is wrong with a task folder's own documentation: no README.md, a module of the folder it does not name
    (in backticks, as ``data.py``, ``official/extract_rules.py`` or ``tasks.<folder>.data``), and, for a benchmark
    folder, a title other than the name its ``benchmark.py`` declares."""
    readme = folder / "README.md"
    if not readme.is_file():
        return [f"{folder.name} has no README.md"]
    text = readme.read_text()
    rel_folder = folder.relative_to(tasks_root).as_posix()
    problems = []
    for name, path in modules_in("lm_eval_audio.tasks." + rel_folder.replace("/", "."), folder).items():
        rel = path.relative_to(folder).as_posix()
        spellings = (rel, name, name.removeprefix("lm_eval_audio."))
        if not any(f"`{s}`" in text for s in spellings):
            problems.append(f"{rel_folder}/README.md does not name its module {rel}")
    if (folder / "benchmark.py").is_file():
        from lm_eval_audio.benchmarks import registry

        declared = registry.load(str(folder / "benchmark.py")).name
        title = text.splitlines()[0] if text else ""
        if title != f"# {declared}":
            problems.append(f"{rel_folder}/README.md is titled {title!r}, not '# {declared}' (its benchmark.py's name)")
    return problems


def _a_family_module(module: str) -> bool:
    """A model family's module or its tiny builder: named by the family's record (``Family``), which the registry
    and the tests read, so that adding a family touches no document (tests/test_family_registry.py checks them)."""
    return module.rpartition(".")[0] in ("lm_eval_audio.model_wrappers.family_adapters",
                                         "lm_eval_audio.testing.tiny_models") and module.rpartition(".")[2] != "common"


def test_every_module_is_named():
    packages = {m.rpartition(".")[0] for m in modules()}
    missing = [m for m in sorted(modules()) if m not in packages and not _in_a_task_folder(m)
               and not _a_family_module(m) and not _named(m)]
    assert not missing, "docs/ARCHITECTURE.md does not name: " + ", ".join(missing)


@pytest.mark.parametrize("folder", TASK_FOLDERS, ids=lambda p: p.name)
def test_each_task_folder_documents_itself(folder):
    problems = folder_doc_problems(folder)
    assert not problems, "\n".join(problems)


def test_every_folder_of_python_under_tasks_is_checked():
    """No module in a folder the per-folder check would not reach (a folder of code without a YAML task)."""
    reached = {m for f in TASK_FOLDERS for m in modules_in(f"lm_eval_audio.tasks.{f.name}", f)}
    assert {m for m in modules() if _in_a_task_folder(m)} <= reached


def test_the_check_fails_on_a_module_it_does_not_name():
    assert not _named("lm_eval_audio.harness.a_module_nobody_wrote")


def test_the_folder_check_fails_on_a_module_its_readme_does_not_name(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "README.md").write_text("# Mine\n\n* `data.py`: the layout\n")
    (folder / "data.py").write_text("")
    (folder / "utils.py").write_text("")
    assert folder_doc_problems(folder, tmp_path) == ["mine/README.md does not name its module utils.py"]


def test_the_benchmarks_page_names_only_folders_that_exist():
    """docs/BENCHMARKS.md is a hand-written overview: a benchmark added since may be missing from it (its folder's
    README is its documentation), but a row naming a folder that is gone is a stale row."""
    named = set(re.findall(r"`tasks/([a-z0-9_]+)/`", (REPO / "docs" / "BENCHMARKS.md").read_text()))
    assert named and not {n for n in named if not (TASKS / n).is_dir()}
