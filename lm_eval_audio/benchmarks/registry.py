"""The benchmarks the plugin knows, found by their folders: shared code asks here, and never names a benchmark.

A benchmark is a folder of YAML tasks (``tasks/<benchmark>/``) holding a ``benchmark.py`` whose ``BENCHMARK``
declares what shared code needs to know of it: how to check its data before the model loads, which of its
metrics are counts or rates, the score ``diagnose`` and ``report`` read first, what counts as "right" for its
graded scores, and the report tables laid out as its paper's. A task belongs to the benchmark whose folder holds
its YAML file (lm-eval's own task index says which file that is). The folders are looked for in the plugin's
``tasks/`` and in every ``--include_path``, so a benchmark added in a folder of one's own is found as one of ours
is: adding a benchmark is adding its folder.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Callable

DECLARATION = "benchmark.py"
# Every count and rate metric shared code writes for any task (the models' failed requests, the clips a loader
# could not find): a benchmark's own are declared in its folder.
SHARED_COUNT_METRICS = ("audio_missing", "failed_items", "spoken_failed", "speech_unrated")
# Numbers with a unit and no better or worse: what a task answered in speech reports of the answers' length and pace
# (metrics.spoken_scores), printed with their unit and no arrow.
SHARED_RATE_METRICS = {"answer_seconds": "seconds", "words_per_minute": "words per minute",
                       "characters_per_minute": "characters per minute"}
# What a task of no benchmark (spoken_digits, a user's own YAML) is read by, after its benchmark's headline.
GENERIC_HEADLINE_METRICS = ("acc", "exact_match")


@dataclass(frozen=True, eq=False)  # one object per folder (load is cached): compared and hashed by identity
class Benchmark:
    """What one benchmark folder declares (its ``benchmark.py``'s ``BENCHMARK``)."""

    name: str  # as its paper writes it: "AIR-Bench"
    # Called before the model loads with the run's tasks of this benchmark and --metadata; raises the
    # benchmark's data error (naming the folder or variable to set) where the data is not there.
    check_data: Callable[[list[str], dict], None] | None = None
    count_metrics: tuple[str, ...] = ()  # metrics that count items: printed apart from the scores, as integers
    rate_metrics: dict[str, str] = field(default_factory=dict)  # metric -> what its rate is ("parse rate")
    # metric -> its scale where it is no fraction of 1 ("1-10", "0-100"), said beside it in the printed table; a
    # metric named <metric>_<anything> (a variant: judge_score_template_mean) has its scale too
    scales: dict[str, str] = field(default_factory=dict)
    headline_metrics: tuple[str, ...] = ()  # the score diagnose and report read a task by, first found wins
    thresholds: dict[str, float] = field(default_factory=dict)  # graded score -> the least that counts as right
    judge_metrics: tuple[str, ...] = ()  # metrics whose value is an LLM judge's verdict
    without_judge: str = ""  # what its tasks report when no judge is configured, said in the run's warning
    report: str | None = None  # the module (dotted name) with the report tables laid out as the paper's
    # Said under lm-eval's printed table when a task of the benchmark is in it: which average its rows are, where
    # the paper's headline is another
    table_note: str = ""
    # Called before the model loads with --metadata where a task of the benchmark has a judge in the run: raises
    # where the judge needs something besides its endpoint that is not there (Big Bench Audio's recognizer)
    check_judge: Callable[[dict], None] | None = None
    # (task, {metric: value} of its row) -> lines said under the printed table beside the row: what its numbers are
    # where they could be misread (a fallback reading, a reference's rule that scores a kind of answer 0)
    row_notes: Callable[[str, dict], list[str]] | None = None
    # The --metadata that makes its tasks give the model the text said in each clip in place of the clip, where the
    # benchmark publishes that text (e.g. {"<benchmark>_modality": "text"}); diagnose runs them so once more.
    text_instead_of_audio: dict = field(default_factory=dict)
    # (group, {task: its results entry} of the group's tasks) -> what the group's results entry adds: a score its
    # scripts form from its tasks' scores otherwise than lm-eval's mean ({} where the group has none, or where a
    # task's score it needs is missing: the function says which)
    group_score: Callable[[str, dict[str, dict]], dict] | None = None
    folder: Path | None = None  # set when the folder is found

    @property
    def key(self) -> str:
        """The folder's name ("airbench"): the benchmark's key in report.json."""
        return self.folder.name if self.folder else self.name

    def report_module(self):
        return importlib.import_module(self.report) if self.report else None


def our_folder() -> Path:
    from lm_eval_audio import tasks

    return Path(tasks.folder())


def search_path(include_paths=()) -> list[Path]:
    """Where task folders are looked for: ours, then the user's --include_path folders."""
    if isinstance(include_paths, (str, os.PathLike)):
        include_paths = [p for p in str(include_paths).split(",") if p]
    return [our_folder(), *(Path(p).expanduser().resolve() for p in include_paths or ())]


def _module_name(path: Path) -> str:
    ours = our_folder()
    if path.is_relative_to(ours):
        return ".".join(["lm_eval_audio.tasks", *path.relative_to(ours).with_suffix("").parts])
    return "lm_eval_audio_user_folder_" + str(abs(hash(str(path))))


@functools.cache
def load(path: str) -> Benchmark:
    """The declaration in ``path`` (a folder's ``benchmark.py``), with its folder set."""
    file = Path(path)
    name = _module_name(file)
    if name.startswith("lm_eval_audio.tasks."):
        module = importlib.import_module(name)
    else:  # a folder on the user's --include_path: imported as lm-eval imports its utils.py
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    declared = getattr(module, "BENCHMARK", None)
    if not isinstance(declared, Benchmark):
        raise TypeError(f"{file} declares no BENCHMARK = Benchmark(...): every benchmark folder's {DECLARATION} "
                        "must (docs/ARCHITECTURE.md, 'Where new work goes')")
    return replace(declared, folder=file.parent)


def all_benchmarks(include_paths=()) -> list[Benchmark]:
    """Every benchmark on the search path, ours first, each folder in name order."""
    found = []
    for root in search_path(include_paths):
        if root.is_dir():
            found += [load(str(p)) for p in sorted(root.glob(f"*/{DECLARATION}"))]
    return found


@functools.lru_cache(maxsize=8)
def _index(roots: tuple[str, ...]) -> dict[str, Path | None]:
    """Task, group and tag name -> the YAML file defining it (None for a tag), as lm-eval's index finds them in
    ``roots`` (later roots win). Built once per search path: it reads every YAML file (about 0.9 s for ours)."""
    from lm_eval.tasks._index import TaskIndex

    return {name: entry.yaml_path for name, entry in TaskIndex.build([Path(r) for r in roots]).items()}


def _task_files(include_paths=()) -> dict[str, Path | None]:
    return _index(tuple(str(p) for p in search_path(include_paths)))


def task_configs(names: list[str], include_paths=()) -> dict[str, dict]:
    """Each task that ``names`` (tasks and groups) comes to, with its YAML configuration as written (includes
    merged, ``!function`` left unresolved): what a check before the tasks are built can read, such as their
    ``metadata``. Tags and names of no YAML file are left out."""
    from lm_eval.tasks._yaml_loader import load_yaml

    files, found = _task_files(include_paths), {}

    def visit(name: str, seen: frozenset) -> None:
        path = files.get(name)
        if path is None or name in seen or name in found:
            return
        config = load_yaml(path, resolve_func=False)
        members = config.get("task") if "group" in config else None
        if not isinstance(members, list):
            found[name] = config
            return
        for member in members:
            if isinstance(member, str):
                visit(member, seen | {name})
            elif isinstance(member, dict) and isinstance(member.get("task"), str):
                found.setdefault(member["task"], member)  # a task written inside its group's YAML

    for name in names:
        visit(name, frozenset())
    return found


def our_task_names() -> frozenset:
    """The task, group and tag names our own folder defines (the same index the benchmark look-ups read)."""
    return frozenset(_task_files())


def sample_names() -> list[str]:
    """What runs every bundled sample: each benchmark's synthetic ``*_sample`` group or task (those of one benchmark
    together, sorted), then each task folder of ours that is no benchmark but bundles its own data, by the task, group
    or tag named after its folder (spoken_digits)."""
    names = our_task_names()
    found = []
    for benchmark in all_benchmarks():
        found += sorted(n for n in names if n.endswith("_sample") and of_task(n) is benchmark)
    for folder in sorted(p for p in our_folder().iterdir() if p.is_dir()):
        if not (folder / DECLARATION).exists() and folder.name in names:
            found.append(folder.name)
    return found


def of_task(task: str, include_paths=()) -> Benchmark | None:
    """The benchmark whose folder defines ``task`` (a task, group or tag name), or None."""
    path = _task_files(include_paths).get(task)
    roots = search_path(include_paths)
    while path is not None and path.parent != path:
        path = path.parent
        if (path / DECLARATION).is_file():
            return load(str(path / DECLARATION))
        if path in roots:
            return None
    return None


def by_benchmark(tasks: list[str], include_paths=()) -> dict[Benchmark, list[str]]:
    """The tasks named in a run, by the benchmark each belongs to (tasks of none left out)."""
    out: dict[Benchmark, list[str]] = {}
    for task in tasks:
        benchmark = of_task(task, include_paths)
        if benchmark is not None:
            out.setdefault(benchmark, []).append(task)
    return out


def count_metrics() -> tuple[str, ...]:
    """Every count metric: the shared ones, then each benchmark's, in the benchmarks' order, once each."""
    names = list(SHARED_COUNT_METRICS)
    for benchmark in all_benchmarks():
        names += [m for m in benchmark.count_metrics if m not in names]
    return tuple(names)


def rate_metrics() -> dict[str, str]:
    out: dict[str, str] = dict(SHARED_RATE_METRICS)
    for benchmark in all_benchmarks():
        out.update(benchmark.rate_metrics)
    return out


def scales() -> dict[str, str]:
    """Each metric's scale where it is no fraction of 1, or a fraction printed as one (error rates): the shared
    metrics' (``metrics.scales``), then each benchmark's."""
    from lm_eval_audio.metrics.scales import SHARED_SCALES

    out = dict(SHARED_SCALES)
    for benchmark in all_benchmarks():
        out.update(benchmark.scales)
    return out


def headline_metrics(task: str | None) -> tuple[str, ...]:
    """The metrics a task is read by, first found wins: its benchmark's, then the generic ones. A task of no
    known folder (a results file's task renamed since, or a user's own) is read by every benchmark's."""
    benchmark = of_task(task) if task else None
    if benchmark is None:
        return all_headline_metrics()
    own = benchmark.headline_metrics
    return (*own, *(m for m in GENERIC_HEADLINE_METRICS if m not in own))


def all_headline_metrics() -> tuple[str, ...]:
    """Every benchmark's headline metrics, once each (what ``--metric`` chooses from by default)."""
    names: list[str] = []
    for benchmark in all_benchmarks():
        names += [m for m in benchmark.headline_metrics if m not in names]
    return (*names, *(m for m in GENERIC_HEADLINE_METRICS if m not in names))


def threshold(task: str | None, metric: str) -> float | None:
    """The least value of a graded score that counts as right for ``task``, or None where its benchmark gives none."""
    benchmark = of_task(task) if task else None
    return benchmark.thresholds.get(metric) if benchmark else None


def judge_metrics() -> tuple[str, ...]:
    """Every metric any benchmark declares as an LLM judge's verdict."""
    names: list[str] = []
    for benchmark in all_benchmarks():
        names += [m for m in benchmark.judge_metrics if m not in names]
    return tuple(names)
