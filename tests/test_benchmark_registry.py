"""The benchmark registry: shared code learns of a benchmark only from its folder's benchmark.py, so a folder
added on --include_path is found, checked before the model loads and counted in the table with no other change;
and no shared module names a benchmark."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from lm_eval_audio.benchmarks import registry

REPO = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.parent.name for p in (REPO / "tasks").glob("*/benchmark.py"))


def _toy_benchmark(root: Path) -> Path:
    """A benchmark folder of one's own: a YAML task and a benchmark.py, nothing else anywhere."""
    folder = root / "toybench"
    folder.mkdir(parents=True)
    (folder / "toybench_task.yaml").write_text(textwrap.dedent("""\
        task: toybench_task
        dataset_path: json
        dataset_kwargs: {data_files: {test: nowhere.jsonl}}
        test_split: test
        output_type: generate_until
        doc_to_text: "{{q}}"
        doc_to_target: "{{a}}"
        metric_list: [{metric: exact_match}]
        """))
    (folder / "benchmark.py").write_text(textwrap.dedent("""\
        from lm_eval_audio.benchmarks.registry import Benchmark


        class ToyDataAbsent(ValueError):
            pass


        def check_data(tasks, metadata):
            if not metadata.get("toy_data_dir"):
                raise ToyDataAbsent(f"toybench: {', '.join(tasks)} need toy_data_dir in --metadata")


        BENCHMARK = Benchmark(name="ToyBench", check_data=check_data, count_metrics=("toy_skipped",),
                              headline_metrics=("toy_score",), thresholds={"toy_score": 3.0})
        """))
    return folder


def test_every_bundled_benchmark_is_found_with_its_declaration():
    found = {b.key: b for b in registry.all_benchmarks()}
    assert set(found) == set(FOLDERS) == {
        "airbench", "audiobench", "bigbench_audio", "mmar", "mmau", "mmau_pro", "mmsu", "voicebench", "fleurs", "covost2",
        "aishell1", "wenetspeech", "voxpopuli", "muchomusic", "vocalsound"}
    assert registry.of_task("airbench_foundation_music_aqa") is found["airbench"]
    assert registry.of_task("mmau_pro_sample") is found["mmau_pro"]  # a group
    assert registry.of_task("spoken_digits_gen") is None  # our smoke-test task belongs to no benchmark
    assert registry.headline_metrics("mmar_sound")[:3] == ("glitters_acc", "official_acc", "pattern_acc")
    assert registry.threshold("airbench_chat_speech_qa", "score") == 7.0
    assert "instructions_unchecked" in registry.count_metrics()


def test_a_benchmark_folder_on_the_include_path_is_found_with_no_other_change(tmp_path):
    folder = _toy_benchmark(tmp_path / "mine")
    toy = registry.of_task("toybench_task", [str(tmp_path / "mine")])
    assert toy is not None and toy.name == "ToyBench" and toy.folder == folder
    assert toy in registry.all_benchmarks([str(tmp_path / "mine")])
    grouped = registry.by_benchmark(["toybench_task", "mmau_sample", "nonsense"], [str(tmp_path / "mine")])
    assert {b.key: names for b, names in grouped.items()} == {"toybench": ["toybench_task"], "mmau": ["mmau_sample"]}


def test_the_cli_checks_a_found_benchmarks_data_before_the_model_loads(tmp_path, monkeypatch):
    """lm_eval's command line: the toy folder's check_data runs from the seam's data check, by registry."""
    from lm_eval_audio.harness import cli_patches as patches

    _toy_benchmark(tmp_path / "mine")
    mine = str(tmp_path / "mine")
    with pytest.raises(ValueError, match="toybench: toybench_task need toy_data_dir"):
        patches.check_data_first(patches.RunCommand(model="hf-audio", tasks=("toybench_task",), include_path=mine))
    patches.check_data_first(patches.RunCommand(tasks=("toybench_task",), include_path=mine,
                                                metadata={"toy_data_dir": "/data"}))  # set: nothing raised


def test_a_declaration_that_is_not_a_benchmark_names_its_file(tmp_path):
    bad = tmp_path / "bad" / "broken"
    bad.mkdir(parents=True)
    (bad / "benchmark.py").write_text("BENCHMARK = {'name': 'x'}\n")
    with pytest.raises(TypeError, match=r"broken/benchmark.py declares no BENCHMARK = Benchmark\(...\)"):
        registry.all_benchmarks([str(tmp_path / "bad")])


# Shared code names no benchmark: no identifier or string in its code (docstrings and comments, which cite where a
# rule comes from, aside) spells a benchmark's folder or name.
SHARED = [p for folder in ("lm_eval_audio", "judges", "model_wrappers") for p in (REPO / folder).rglob("*.py")]
NAMES = re.compile(r"(?<![a-z])(air[-_]?bench|audio[-_]?bench|mmau|mmar|voice[-_]?bench|mmsu|big[-_ ]?bench|fleurs|"
                   r"covost|aishell|wenet[-_]?speech|vox[-_]?populi|mucho[-_]?music|vocal[-_]?sound)", re.IGNORECASE)


def _code_without_docs(path: Path) -> str:
    import ast
    import io
    import tokenize

    tree = ast.parse(path.read_text())
    docstrings = {(n.body[0].value.lineno, n.body[0].value.col_offset) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
                  and isinstance(n.body[0].value.value, str)}
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.start in docstrings):
            continue
        kept.append(tok.string)
    return " ".join(kept)


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(REPO)))
def test_shared_code_names_no_benchmark(path):
    found = sorted(set(m.group(0) for m in NAMES.finditer(_code_without_docs(path))))
    assert not found, f"{path.relative_to(REPO)} names {found} in its code: declare it in the benchmark's folder"
