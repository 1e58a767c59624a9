"""One data spec: each benchmark declares where its data comes from once (``benchmarks.data_spec.DataSpec``), and
one ``resolve`` picks the source; a Hub clip keeps the snapshot it came from."""

from __future__ import annotations

import ast
import hashlib
import importlib
from pathlib import Path

import pytest
from conftest import stand_in_hub

from lm_eval_audio.benchmarks import data_spec, hub_data, registry
from lm_eval_audio.benchmarks.choice_layout import Layout
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = [b for b in registry.all_benchmarks() if b.folder.parent == REPO / "tasks"]


class BenchError(ValueError):
    pass


SPEC = DataSpec("Bench", "BENCH_DATA_DIR", "bench_data_dir", hub="org/bench", sample=REPO / "tasks" / "x" / "sample_data",
                holds="data/*.parquet", error=BenchError)


def test_the_metadata_key_wins_an_empty_value_is_none_and_the_variable_comes_next(tmp_path, monkeypatch):
    by_key, by_variable = tmp_path / "key", tmp_path / "variable"
    by_key.mkdir()
    by_variable.mkdir()
    monkeypatch.setenv("BENCH_DATA_DIR", str(by_variable))
    assert resolve(SPEC, {"bench_data_dir": str(by_key)}).root == by_key
    assert resolve(SPEC, {"bench_data_dir": ""}).root == by_variable
    assert resolve(SPEC, {}).root == by_variable and resolve(SPEC, {}).snapshot is None
    assert resolve(SPEC, {"bench_data_dir": str(by_key)}, sample=True).root == SPEC.sample
    monkeypatch.setenv("BENCH_DATA_DIR", "")
    assert data_spec.chosen(SPEC, {"bench_data_dir": ""}) is None  # neither: the Hub


def test_a_missing_folder_and_no_hub_say_the_variable_the_key_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCH_DATA_DIR", raising=False)
    with pytest.raises(BenchError) as error:
        resolve(SPEC, {"bench_data_dir": str(tmp_path / "absent")})
    assert str(error.value) == (
        f"Bench data folder '{tmp_path / 'absent'}' does not exist. Unset BENCH_DATA_DIR to let the tasks fetch it "
        "from the Hub, or download it yourself (`huggingface-cli download org/bench --repo-type dataset --local-dir "
        "/data/x`), then `export BENCH_DATA_DIR=/data/x` or pass --metadata '{\"bench_data_dir\": \"/data/x\"}'. The "
        "folder must hold data/*.parquet. To try the tasks without the data, run the synthetic `x_sample` group.")
    nowhere = DataSpec("Bench", "BENCH_DATA_DIR", "bench_data_dir", error=BenchError, advice="Set {variable}.")
    with pytest.raises(BenchError, match="Bench is not on the Hugging Face Hub .* no local folder is set. "
                                         "Set BENCH_DATA_DIR."):
        resolve(nowhere, {})
    with pytest.raises(BenchError, match="no bundled sample"):
        resolve(nowhere, {}, sample=True)


def _specs(folder: Path) -> list[DataSpec]:
    """The data specs a benchmark folder's ``data.py`` declares (a layout's among them)."""
    module = importlib.import_module(f"lm_eval_audio.tasks.{folder.name}.data")
    found = []
    for value in vars(module).values():
        if isinstance(value, Layout):
            value = value.data
        if isinstance(value, DataSpec) and value not in found:
            found.append(value)
    return found


def _reads_a_data_folder(node: ast.AST) -> str | None:
    """The data folder a node reads by hand (``os.environ``/``os.getenv`` for a ``*_DATA_DIR`` or a name it cannot
    tell, ``<x>.get("..._data_dir")``), or None."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv", "environ.get",
                                                                  "getenv"):
        key = node.args[0] if node.args else None
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
          and node.args and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).endswith("_data_dir")):
        key = node.args[0]  # metadata.get("<x>_data_dir")
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
          and node.args and ast.unparse(node.args[0]).lower().endswith("metadata_key")):
        return ast.unparse(node)  # metadata.get(METADATA_KEY): the key under another name
    elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("os.environ", "environ"):
        key = node.slice
    else:
        return None
    if not isinstance(key, ast.Constant):
        return ast.unparse(node)  # a variable read by a name this check cannot tell
    value = str(key.value)
    return value if value.endswith(("_DATA_DIR", "_data_dir")) else None


def _strings(tree: ast.AST) -> list[str]:
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings]


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.folder.name)
def test_each_benchmark_declares_its_data_source_once(benchmark):
    """Its ``data.py`` declares a DataSpec; no module of its folder reads the variable or the ``--metadata`` key by
    hand; the variable and the key are written once, in the declaration."""
    folder = benchmark.folder
    specs = _specs(folder)
    assert specs, f"tasks/{folder.name}/data.py declares no DataSpec"
    trees = {p: ast.parse(p.read_text()) for p in sorted(folder.rglob("*.py")) if "sample_data" not in p.parts}
    by_hand = [f"{p.relative_to(REPO)}: {found}" for p, tree in trees.items() for node in ast.walk(tree)
               if (found := _reads_a_data_folder(node))]
    assert not by_hand, "read by hand, not through data_spec.resolve: " + "; ".join(by_hand)
    strings = [s for tree in trees.values() for s in _strings(tree)]
    for spec in specs:
        for name in (spec.variable, spec.metadata_key):
            assert strings.count(name) == 1, f"tasks/{folder.name} writes {name!r} {strings.count(name)} times"


def test_shared_code_reads_no_data_folder_but_through_the_spec():
    readers = {p.name for p in (REPO / "lm_eval_audio" / "benchmarks").glob("*.py")
               for node in ast.walk(ast.parse(p.read_text())) if _reads_a_data_folder(node)}
    assert readers <= {"data_spec.py"}, readers
    assert {p.name for p in (REPO / "lm_eval_audio" / "benchmarks").glob("*.py")
            if "os.environ.get(" in p.read_text()} == {"data_spec.py", "hub_access.py"}


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.folder.name)
def test_each_benchmarks_data_check_goes_through_its_spec(benchmark, tmp_path, monkeypatch):
    """Before the model loads, the check reads the folder the --metadata key names (over the variable's)."""
    real = sorted(t for t in registry.our_task_names() if "_sample" not in t
                  and registry.of_task(t) is not None and registry.of_task(t).folder == benchmark.folder)
    assert real and benchmark.check_data is not None
    for spec in _specs(benchmark.folder):
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        monkeypatch.setenv(spec.variable, str(elsewhere))
        with pytest.raises(spec.error) as error:
            benchmark.check_data(real[:1], {spec.metadata_key: str(tmp_path / "absent")})
        assert f"'{tmp_path / 'absent'}' does not exist" in str(error.value) and spec.variable in str(error.value)


@pytest.fixture
def bba_hub(tmp_path, monkeypatch):
    from lm_eval_audio.tasks.bigbench_audio import data

    with stand_in_hub({data.DATA.repo: data.sample_root()}, tmp_path / "hf_cache", monkeypatch, (data.DATA.variable,)) as stand_in:
        yield stand_in


def test_a_hub_clip_keeps_its_snapshot_and_is_not_read_again_for_its_digest(bba_hub, monkeypatch):
    """A document's clip is a path, as before; the snapshot it came from is remembered when the document is built,
    and the request cache's digest of it is the listing's sha256, checked when it was fetched: no further read."""
    from lm_eval_audio.audio.refs import content_digest
    from lm_eval_audio.benchmarks.data_notes import DataNotes
    from lm_eval_audio.storage import digests
    from lm_eval_audio.tasks.bigbench_audio import data

    notes = DataNotes()
    docs = data.load_docs(["object_counting"], {}, False, notes=notes)
    clip = docs[0]["audio"][0]
    assert isinstance(clip, str) and clip.endswith("data/question_500.mp3")
    (snapshot, files), = hub_data.clips_of([clip], notes).items()
    assert (snapshot.repo_id, snapshot.benchmark, snapshot.local_folder) == (data.DATA.repo, "Big Bench Audio", data.DATA.variable)
    assert [f.path for f in files] == ["data/question_500.mp3"]
    hub_data.fetch_clips([clip], notes, "bigbench_audio_object_counting")
    content = Path(clip).read_bytes()
    monkeypatch.setattr(digests, "file_sha256", lambda *a, **k: pytest.fail("the fetched clip was read again"))
    expected = hashlib.sha256(b"file:" + hashlib.sha256(content).hexdigest().encode() + b":None:None").hexdigest()
    assert content_digest(clip) == expected
