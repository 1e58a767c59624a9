"""The benchmark registry: shared code learns of a benchmark only from its folder's benchmark.py, so a folder
added on --include_path is found, checked before the model loads and counted in the table with no other change;
and no shared module names a benchmark. What holds for every benchmark is checked of every folder found
(``benchmark_problems``; tests/test_new_benchmark_folder.py applies it to a folder copied under a new name), so
that no list here needs a new benchmark added to it."""

from __future__ import annotations

import functools
import re
import textwrap
from pathlib import Path

import pytest

from lm_eval_audio.benchmarks import registry

REPO = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.parent.name for p in (REPO / "tasks").glob("*/benchmark.py"))
# The benchmarks bundled when this test was written: a floor (one removed by mistake is missed), never a list a
# new benchmark is added to. What holds for every benchmark is checked of every folder found (benchmark_problems).
BUNDLED_AT_LEAST = {"airbench", "audiobench", "bigbench_audio", "mmar", "mmau", "mmau_pro", "mmsu", "voicebench",
                    "fleurs", "covost2", "aishell1", "wenetspeech", "voxpopuli", "muchomusic", "vocalsound",
                    "cochlscene", "tut2017", "nonspeech7k", "gtzan", "nsynth", "fsd50k", "clotho_aqa", "clotho_caption",
                    "audiocaps_caption", "musiccaps", "openaudiobench", "fleurs_s2tt", "aishell2"}


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


def benchmark_problems(folder: Path, include_paths=()) -> list[str]:
    """What is wrong with one benchmark folder as the registry sees it (``include_paths`` as a run's
    --include_path): its declaration, that it is found, that its tasks are its own and named after it, and that
    no shared module names it."""
    benchmark = registry.load(str(folder / registry.DECLARATION))  # raises TypeError where it declares none
    problems = []
    if benchmark.key != folder.name:
        problems.append(f"{folder}: its key is {benchmark.key!r}, not its folder's name")
    if not isinstance(benchmark.name, str) or not benchmark.name.strip():
        problems.append(f"{folder}: declares no name")
    if benchmark not in registry.all_benchmarks(include_paths):
        problems.append(f"{folder}: not found by registry.all_benchmarks")
    if benchmark.check_data is not None and not callable(benchmark.check_data):
        problems.append(f"{folder}: check_data is not callable")
    for metric in (*benchmark.count_metrics, *benchmark.rate_metrics, *benchmark.headline_metrics,
                   *benchmark.judge_metrics, *benchmark.thresholds, *benchmark.scales):
        if not isinstance(metric, str) or not metric:
            problems.append(f"{folder}: a declared metric {metric!r} is not a name")
    if benchmark.report is not None:
        report = benchmark.report_module()
        problems += [f"{folder}: its report module {benchmark.report} has no {hook}"
                     for hook in ("collect", "tables", "markdown", "panels", "radar")
                     if not callable(getattr(report, hook, None))]
    # lm-eval's index of the search path (private to the registry: the same one of_task reads)
    own = sorted(name for name, path in registry._task_files(include_paths).items()
                 if path is not None and path.is_relative_to(folder))
    if not own:
        problems.append(f"{folder}: defines no task")
    for name in own:
        if registry.of_task(name, include_paths) is not benchmark:
            problems.append(f"{folder}: its task {name} is not found as its benchmark's")
        if name != benchmark.key and not name.startswith(benchmark.key + "_"):  # lm-eval-audio --help: "<key>_*"
            problems.append(f"{folder}: its task {name} is not named {benchmark.key}_*")
    problems += [f"{path.relative_to(REPO)} names {names} in its code" for path, names in
                 shared_code_naming(names_pattern([benchmark])).items()]
    return problems


@pytest.mark.parametrize("folder", [REPO / "tasks" / f for f in FOLDERS], ids=lambda p: p.name)
def test_each_benchmark_folder_is_found_and_declared(folder):
    problems = benchmark_problems(folder)
    assert not problems, "\n".join(problems)


def test_every_bundled_benchmark_is_found_with_its_declaration():
    found = {b.key: b for b in registry.all_benchmarks()}
    assert set(found) == set(FOLDERS) >= BUNDLED_AT_LEAST
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


def test_the_folder_check_passes_a_folder_of_ones_own_and_fails_on_a_task_named_otherwise(tmp_path):
    assert benchmark_problems(_toy_benchmark(tmp_path / "mine"), [str(tmp_path / "mine")]) == []
    folder = _toy_benchmark(tmp_path / "odd")  # another root: the registry's index of a search path is built once
    (folder / "other_task.yaml").write_text((folder / "toybench_task.yaml").read_text().replace("toybench_task",
                                                                                                 "other_task"))
    assert benchmark_problems(folder, [str(tmp_path / "odd")]) == [
        f"{folder}: its task other_task is not named toybench_*"]


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


def _spelling(name: str) -> str:
    """A benchmark's folder or declared name as a pattern: its words (split at separators and at capitals: "AIR-Bench",
    "MuChoMusic") joined by an optional separator, a trailing version number left off ("CoVoST 2", "aishell1")."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", re.sub(r"[-_ ]?\d+$", "", name))
    return r"[-_ ]?".join(re.escape(w.lower()) for w in words)


def names_pattern(benchmarks) -> re.Pattern:
    """Every spelling of the benchmarks' folder names and declared names."""
    spellings = sorted({s for b in benchmarks for s in (_spelling(b.key), _spelling(b.name)) if s}, key=len,
                       reverse=True)
    return re.compile(r"(?<![a-z])(" + "|".join(spellings) + ")", re.IGNORECASE)


NAMES = names_pattern(registry.all_benchmarks())


@functools.cache
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


def shared_code_naming(pattern: re.Pattern, paths=SHARED) -> dict[Path, list[str]]:
    """The shared modules whose code (docstrings and comments aside) matches ``pattern``, with what it matched."""
    found = {path: sorted({m.group(0) for m in pattern.finditer(_code_without_docs(path))}) for path in paths}
    return {path: names for path, names in found.items() if names}


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(REPO)))
def test_shared_code_names_no_benchmark(path):
    found = shared_code_naming(NAMES, [path]).get(path)
    assert not found, f"{path.relative_to(REPO)} names {found} in its code: declare it in the benchmark's folder"


def test_the_names_pattern_spells_each_benchmark_as_its_code_would():
    pattern = names_pattern(registry.all_benchmarks())
    for spelled in ("airbench", "AIR_BENCH", "air-bench", "mucho_music", "MuChoMusic", "covost", "CoVoST2", "aishell",
                    "big_bench_audio", "bigbench_audio", "mmau_pro", "vox_populi", "VOCALSOUND_DATA_DIR"):
        assert pattern.search(spelled), spelled
    assert not pattern.search("summary") and not pattern.search("wenet")  # a word inside another, a part of a name
    assert shared_code_naming(names_pattern([registry.Benchmark(name="Judge Engine")]))  # judges/judge_engine.py
