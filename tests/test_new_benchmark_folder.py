"""One folder per benchmark, nothing else to edit: a bundled benchmark folder copied under a new name (its names
replaced inside it, file names and contents) is found by the registry, passes the checks the layout, registry and
architecture tests apply to every benchmark folder, and its ``<name>_sample`` runs end to end through lm-eval, with
no file outside the folder changed.

The copy is made in a temporary tasks folder that stands in for the package's own (``lm_eval_audio.tasks``'s
``folder()`` and import path point at it for this module's tests), exactly as if it had been copied into the
repository's ``tasks/``: its modules import as ``lm_eval_audio.tasks.<name>``, its tasks are ours (built as our
tasks, scored with their task's ``TaskScoring``), and the repository's tree, which other runs read, is left alone.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import REPO, results_json, run_cli
from test_architecture import folder_doc_problems
from test_benchmark_registry import benchmark_problems
from test_layout import layout_problems

from lm_eval_audio.benchmarks import registry

SOURCE = REPO / "tasks" / "vocalsound"  # the smallest bundled benchmark with a *_sample: five modules, one task
# Each spelling of the old name in the folder, and the new name's
RENAMES = (("vocalsound", "echobench"), ("VocalSound", "EchoBench"), ("VOCALSOUND", "ECHOBENCH"))
NEW = RENAMES[0][1]


def _renamed(text: str) -> str:
    for old, new in RENAMES:
        text = text.replace(old, new)
    return text


def copy_benchmark_folder(source: Path, tasks_root: Path) -> Path:
    """``source`` copied into ``tasks_root`` under its new name, the old name replaced in every file name and text
    file (binary files, the sample's parquet, copied as they are)."""
    target = tasks_root / _renamed(source.name)
    for path in sorted(source.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        copied = target / _renamed(path.relative_to(source).as_posix())
        copied.parent.mkdir(parents=True, exist_ok=True)
        try:
            copied.write_text(_renamed(path.read_text()))
        except UnicodeDecodeError:
            shutil.copyfile(path, copied)
    return target


@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    """The copy, in a temporary tasks folder made the package's own for the module's tests."""
    from lm_eval_audio import tasks

    root = tmp_path_factory.mktemp("tasks")
    folder = copy_benchmark_folder(SOURCE, root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tasks, "folder", lambda: str(root))
        patch.setattr(tasks, "__path__", [str(root), *tasks.__path__])
        yield folder
    for name in [m for m in sys.modules if m.startswith(f"lm_eval_audio.tasks.{NEW}")]:
        del sys.modules[name]


def test_the_copy_holds_the_new_name_only(copied):
    names = [p.relative_to(copied).as_posix() for p in copied.rglob("*") if p.is_file()]
    assert f"{NEW}_sample.yaml" in names and f"_{NEW}_template_yaml" in names and "benchmark.py" in names
    for path in copied.rglob("*"):
        if path.is_file() and path.suffix != ".parquet":
            assert not any(old in path.read_text() for old, _ in RENAMES), path
    assert not (REPO / "tasks" / NEW).exists()


def test_the_registry_finds_the_copy(copied):
    (found,) = [b for b in registry.all_benchmarks() if b.key == NEW]
    assert found.name == "EchoBench" and found.folder == copied
    assert registry.of_task(f"{NEW}_sample") is found and registry.of_task(f"{NEW}_sample_test") is found
    assert f"{NEW}_sample_test" in registry.our_task_names()
    assert registry.headline_metrics(f"{NEW}_test")[0] == "acc"


def test_the_copy_passes_the_checks_every_benchmark_folder_passes(copied):
    problems = benchmark_problems(copied) + layout_problems(copied, copied.parent) + folder_doc_problems(
        copied, copied.parent)
    assert not problems, "\n".join(problems)


@pytest.mark.slow  # a copied benchmark folder through lm_eval: about 15 s
def test_the_copys_sample_runs_end_to_end(copied, tiny_qwen2_audio, tmp_path):
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                    "--tasks", f"{NEW}_sample", "--gen_kwargs", "max_gen_toks=8", "--batch_size", "4",
                    "--output_path", str(tmp_path), "--log_samples"], env_extra={"OPENAI_API_KEY": "",
                                                                                 "OPENAI_BASE_URL": ""})
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = results_json(tmp_path)
    task = f"{NEW}_sample_test"
    assert 0.0 <= results["results"][task]["acc,none"] <= 1.0
    assert 0.0 <= results["results"][task]["exact_match,none"] <= 1.0
    assert results["results"][task]["audio_missing,none"] == 0
    assert results["n-samples"][task]["effective"] == 3
    assert f"{NEW}_sample" in results["groups"]
    data = results["lm_eval_audio_data"]
    assert "EchoBench test sample" in data["sources"]
    assert "class" in data["official_breakdown"][task]["acc"]
    assert list(tmp_path.rglob(f"samples_{task}_*.jsonl"))
