"""The package's imports, inside functions too: no cycle, and each one pointing down the layers
of docs/ARCHITECTURE.md (a module imports its own subpackage or one below it, never beside or above)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# import name prefix -> folder (setup.cfg's package_dir)
FOLDERS = {
    "lm_eval_audio.model_wrappers": REPO / "model_wrappers",
    "lm_eval_audio.judges": REPO / "judges",
    "lm_eval_audio.tasks": REPO / "tasks",
    "lm_eval_audio": REPO / "lm_eval_audio",
}
# Bottom (0) to top. lm_eval_audio.tasks itself only says where the YAML files are. Each benchmark folder
# (tasks/<benchmark>/) is a layer of its own above everything it uses, the analysis included (its report tables):
# nothing imports a benchmark folder by name, shared code finds it through lm_eval_audio.benchmarks.registry.
RANKS = {
    "lm_eval_audio.storage": 0, "lm_eval_audio.testing": 0, "lm_eval_audio.tasks": 0,
    "lm_eval_audio.audio": 1, "lm_eval_audio.endpoints": 1, "lm_eval_audio.metrics": 1,
    "lm_eval_audio.benchmarks": 2,
    "lm_eval_audio.model_wrappers": 3, "lm_eval_audio.judges": 3,
    "lm_eval_audio.harness": 4,
    "lm_eval_audio.analysis": 5,
    "lm_eval_audio.tasks.*": 6,  # every benchmark folder, each its own layer
    "lm_eval_audio": 7,  # the loose modules: the CLI and the entry points
}
MAX_LOOSE_MODULES = 6


def modules_in(prefix: str, folder: Path) -> dict[str, Path]:
    """The modules under ``folder``, imported as ``prefix``.<their path> (a sample's data left out)."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("")
        if "sample_data" in rel.parts:
            continue
        found.setdefault(".".join([prefix, *(p for p in rel.parts if p != "__init__")]), path)
    return found


def modules() -> dict[str, Path]:
    found = {}
    for prefix, folder in FOLDERS.items():
        for name, path in modules_in(prefix, folder).items():
            found.setdefault(name, path)
    return found


@functools.cache
def _syntax_tree(path: Path) -> ast.Module:
    """A module's parsed source, once per test session (every benchmark folder's check walks the whole package)."""
    return ast.parse(path.read_text(), str(path))


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """The package modules that ``path`` imports, at module level or inside functions."""
    tree = _syntax_tree(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("lm_eval_audio") and target != name:
                out.add(target)
    return out


def rank(module: str) -> tuple[int, str]:
    """(rank, the layer's package) of a module: its longest prefix in RANKS; a benchmark folder's modules are
    the layer ``lm_eval_audio.tasks.<benchmark>``."""
    parts = module.split(".")
    if module.startswith("lm_eval_audio.tasks.") and len(parts) > 3:
        return RANKS["lm_eval_audio.tasks.*"], ".".join(parts[:3])
    best = max((p for p in RANKS if not p.endswith("*") and (module == p or module.startswith(p + "."))), key=len)
    return RANKS[best], best


def import_graph(found: dict[str, Path]) -> dict[str, set[str]]:
    known = set(found)
    return {name: imports_of(path, name, known) for name, path in found.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def wrong_imports(graph: dict[str, set[str]], importers=None) -> list[str]:
    """Each import of ``importers`` (all of the graph's modules by default) that points up or sideways."""
    wrong = []
    for importer in sorted(graph if importers is None else importers):
        r_from, layer_from = rank(importer)
        for target in sorted(graph[importer]):
            r_to, layer_to = rank(target)
            if r_to > r_from or (r_to == r_from and layer_to != layer_from):
                wrong.append(f"{importer} (layer {layer_from}) imports {target} (layer {layer_to})")
    return wrong


def layout_problems(folder: Path, tasks_root: Path = REPO / "tasks") -> list[str]:
    """What the layout tests find wrong with one benchmark folder (``tasks_root/<name>``, imported as
    ``lm_eval_audio.tasks.<name>``) among the package's modules: an import of it that points up or sideways, a
    cycle through it, a module of it with no layer."""
    own = modules_in(f"lm_eval_audio.tasks.{folder.relative_to(tasks_root).as_posix().replace('/', '.')}", folder)
    graph = import_graph({**modules(), **own})
    problems = wrong_imports(graph, own)
    problems += [" -> ".join(c) for c in import_cycles(graph) if set(c) & set(own)]
    problems += [f"{name} has no layer" for name in own if rank(name)[0] != RANKS["lm_eval_audio.tasks.*"]]
    return problems


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(modules())


def test_the_walk_sees_imports_inside_functions(graph):
    # the registry imports lm_eval_audio.tasks inside our_folder()
    assert "lm_eval_audio.tasks" in graph["lm_eval_audio.benchmarks.registry"]
    assert "lm_eval_audio.harness.patches" in graph["lm_eval_audio.harness.startup"]


def test_no_import_cycle(graph):
    cycles = import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_imports_point_down_the_layers(graph):
    wrong = wrong_imports(graph)
    assert not wrong, "\n".join(wrong)


BENCHMARK_FOLDERS = sorted(p.parent for p in (REPO / "tasks").glob("*/benchmark.py"))


@pytest.mark.parametrize("folder", BENCHMARK_FOLDERS, ids=lambda p: p.name)
def test_each_benchmark_folder_is_a_layer_of_its_own(folder):
    """What test_new_benchmark_folder.py checks of a folder copied under a new name, for each bundled one."""
    assert not layout_problems(folder), "\n".join(layout_problems(folder))


def test_every_module_has_a_layer_and_few_stay_loose():
    found = modules()
    assert all(rank(m) for m in found)
    loose = [m for m in found if rank(m)[1] == "lm_eval_audio" and m != "lm_eval_audio"]
    assert len(loose) + 1 <= MAX_LOOSE_MODULES, loose


def test_the_check_fails_on_an_upward_import(tmp_path):
    """What the layer test would say of storage importing the harness."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from lm_eval_audio.harness import startup\n")
    known = set(modules())
    (target,) = imports_of(bad, "lm_eval_audio.storage.bad", known)
    assert rank(target)[0] > rank("lm_eval_audio.storage.bad")[0]


def test_the_folder_check_fails_on_a_benchmark_folder_importing_another(tmp_path):
    folder = tmp_path / "tasks" / "elsewhere"
    folder.mkdir(parents=True)
    (folder / "utils.py").write_text("from lm_eval_audio.tasks.airbench import data\n")
    assert layout_problems(folder, tmp_path / "tasks") == [
        "lm_eval_audio.tasks.elsewhere.utils (layer lm_eval_audio.tasks.elsewhere) imports "
        "lm_eval_audio.tasks.airbench.data (layer lm_eval_audio.tasks.airbench)"]
