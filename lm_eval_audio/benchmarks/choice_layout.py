"""Multiple-choice benchmarks published as one metadata file (a JSON list, JSON lines or parquet) beside their
clips: the reading their folders share (``tasks/mmau``, ``tasks/mmar``; ``tasks/mmau_pro`` reads its own rows).

Each folder declares its :class:`Layout`: where its data comes from (a ``data_spec.DataSpec`` holding the metadata
file(s)), the field holding each clip's path (relative to the metadata's folder), and the grouping fields its
official script reports accuracy by.
An item's ``category`` may be a one-element list (MMAU writes it so 13 times in test-mini): it is read as a string.

A clip that is missing or empty leaves its item in, flagged: the model is not run on it, it is counted
(``audio_missing``) and scored wrong, as AIR-Bench's items are. An item that cannot be evaluated at all (a
required field missing, fewer than two choices, a path leading out of the snapshot) is left out with a warning
naming it and noted in the results (``lm_eval_audio_data``).
"""

from __future__ import annotations

import functools
import json
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource, Snapshot
from lm_eval_audio.storage import jsonl
from lm_eval_audio.storage.data_paths import audio_file_problem, leaves_folder

log = logging.getLogger("lm_eval.audio.data")


class LayoutDataError(ValueError):
    """A snapshot or item that cannot be used; the message names it and says how to fix it."""


class TaskDataAbsent(LayoutDataError):
    """The snapshot has no item of this task: inside a group the task is left out with a warning."""

    skippable_in_group = True


@dataclass(frozen=True)
class HubLayout:
    """Where a benchmark's authors publish it on the Hub: its metadata files (``Layout.meta_files``) beside an
    archive whose ``audio_folder`` is where the metadata's audio paths point.

    A benchmark published otherwise declares its own class with a ``repo_id`` and this ``folder`` method (MMAU's
    ``tasks/mmau/hub_audio.py``)."""

    repo_id: str
    archive: str
    audio_folder: str

    def folder(self, snapshot: Snapshot, layout: Layout) -> tuple[Path, dict, tuple[str, ...]]:
        """The folder in the official layout, made from the snapshot's files; what the results record of it beyond
        the repository and commit; and the repository's files it is made of (recorded with their digests)."""
        folder = snapshot.unpacked(self.archive, list(layout.meta_files), self.audio_folder, layout.name)
        meta = next((n for n in layout.meta_files if n in snapshot.files), None)  # the one meta_path reads
        return folder, {}, tuple(n for n in (meta, self.archive) if n)


def advice(spec: DataSpec, root: Path | None = None) -> str:
    """What a multiple-choice layout's errors say to do (its ``DataSpec.advice``)."""
    where = (f"Unset {spec.variable} to let the tasks fetch it from the Hub, or download it yourself: "
             if spec.hub else "")
    return (f"{where}{spec.download} Then `export {spec.variable}=/data/<folder>` or pass "
            f"--metadata '{{\"{spec.metadata_key}\": \"/data/<folder>\"}}'. The folder must hold "
            f"{' or '.join(spec.holds)}. To try the tasks without the data, run the synthetic "
            f"`{spec.sample_group}` group.")


@dataclass(frozen=True)
class Layout:
    """One benchmark's published layout: where its data comes from (``data``: its ``holds`` are the metadata files,
    tried in order inside the folder; its ``hub`` a :class:`HubLayout` or a class like it, or None: not on the Hub
    in a layout we can read; its ``advice`` :func:`advice`), and how its metadata is read."""

    data: DataSpec
    audio_key: str
    groups: dict  # field -> its values, in the official script's order
    answers_withheld: bool = False

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def meta_files(self) -> tuple[str, ...]:
        return tuple(self.data.holds)

    @property
    def hub(self):
        return self.data.hub

    def help(self) -> str:
        return self.data.help()


_REQUIRED = ("id", "question", "choices", "answer")

def sample_root(layout: Layout) -> Path:
    """The bundled synthetic stand-in, in the official layout: ``sample_data`` in the benchmark's folder."""
    return layout.data.sample


def data_source(layout: Layout, metadata: dict, sample: bool = False) -> DataSource:
    """The bundled sample (``sample``), or the local folder the metadata or environment names (it wins), else the
    authors' Hub repository: its metadata and archive fetched, the archive unpacked once beside the cache
    (``data_spec.resolve``)."""
    source = resolve(layout.data, metadata, sample)
    if source.snapshot is None:
        return DataSource(source.root, None, _meta_read(layout, source.root))
    folder, details, read = layout.hub.folder(source.snapshot, layout)
    return DataSource(folder, source.snapshot, read, details)


def _meta_read(layout: Layout, root: Path) -> tuple[str, ...]:
    """The metadata file a task reads in ``root`` (the first of ``meta_files`` there), or none."""
    return next(((n,) for n in layout.meta_files if (root / n).is_file()), ())


def data_root(layout: Layout, metadata: dict) -> Path:
    return data_source(layout, metadata).root


def meta_path(layout: Layout, root: Path) -> Path:
    for name in layout.meta_files:
        if (root / name).is_file():
            return root / name
    raise LayoutDataError(f"{root} holds no {' or '.join(layout.meta_files)}: it is not a snapshot of {layout.name}. "
                        + layout.help())


def check_snapshot(layout: Layout, metadata: dict) -> None:
    """Before any model loads: the folder is set, exists and holds the metadata, or the Hub's files are fetched."""
    meta_path(layout, data_root(layout, metadata))


@functools.lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int) -> tuple:
    if path.endswith(".jsonl"):
        return tuple(item for _, item in jsonl.records(path, LayoutDataError, "; download the file again"))
    return jsonl.json_list(path, LayoutDataError)


def read_items(path: Path) -> tuple:
    return _read(str(path), path.stat().st_mtime_ns)


def _one(value):
    """``category`` as a string where the metadata writes it as a one-element list."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return value


def _problem(layout: Layout, item) -> str | None:
    if not isinstance(item, dict):
        return "is not a JSON object"
    missing = [k for k in (*_REQUIRED, layout.audio_key, *layout.groups) if item.get(k) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    choices = item["choices"]
    if not isinstance(choices, list) or len(choices) < 2 or not all(isinstance(c, str) for c in choices):
        return f"choices must be a list of at least two strings, got {choices!r}"
    if leaves_folder(item[layout.audio_key]):
        return f"{layout.audio_key} {item[layout.audio_key]!r} leads outside the snapshot folder: refused"
    return None


class LeftOut:
    """The items of one task that cannot be evaluated: each noted for the results (``invalid_items``) as it is
    found, all named in one warning at the end."""

    def __init__(self, eval_task: str, unit: str, notes: DataNotes) -> None:
        self.eval_task, self.unit, self.notes, self.found = eval_task, unit, notes, []

    def add(self, index: int, item_id, problem: str) -> None:
        self.found.append(f"id {item_id!r} ({self.unit} {index}): {problem}")
        self.notes.note("invalid_items", f"{self.eval_task}/{index}", problem)

    def warn(self, path) -> None:
        if self.found:
            log.warning("%s: %d %s(s) of %s cannot be evaluated and are left out: %s%s", self.eval_task,
                        len(self.found), self.unit, path, "; ".join(self.found[:10]),
                        " ..." if len(self.found) > 10 else "")


def load_items(layout: Layout, root: Path, where: dict, eval_task: str, *, notes: DataNotes) -> list[dict]:
    """The documents of one lm-eval task: the items whose fields equal ``where`` (e.g. ``{"task": "sound"}``);
    what cannot be used, on ``notes``."""
    path = meta_path(layout, root)
    items = read_items(path)
    notes.note("meta_files", eval_task, str(path))
    for field, known in layout.groups.items():  # the official scripts raise on any other value
        unknown = Counter(str(_one(i.get(field))) for i in items if isinstance(i, dict) and i.get(field) is not None
                          and _one(i.get(field)) not in known)
        if unknown:
            notes.note("unknown_group_values", f"{path}:{field}", dict(unknown))
            notes.warn_once(("unknown_group_values", f"{path}:{field}"), log,
                            "%s: %d item(s) have a %s no task reads (%s; known: %s): no per-%s task evaluates them; "
                            "fix the metadata", path, sum(unknown.values()), field,
                            ", ".join(f"{v!r} ({n})" for v, n in unknown.most_common(5)), ", ".join(known), field)
    docs, invalid, no_audio, off_choices = [], LeftOut(eval_task, "item", notes), 0, 0
    for index, item in enumerate(items):
        if any(not isinstance(item, dict) or _one(item.get(k)) != v for k, v in where.items()):
            continue
        problem = _problem(layout, item)
        if problem:
            invalid.add(index, item.get("id") if isinstance(item, dict) else None, problem)
            continue
        if not layout.answers_withheld and item["answer"] not in item["choices"]:
            off_choices += 1  # MMAR-meta.json has 6: the official rule still scores them, so do we
            notes.note("answer_not_in_choices", f"{eval_task}/{item['id']}", item["answer"])
        audio = str(root / item[layout.audio_key])
        problem = audio_file_problem(audio)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{eval_task}/{item['id']}", problem)
            log.warning("%s: id %s: %s; the item is scored wrong and counted in audio_missing", eval_task,
                        item["id"], problem)
        docs.append({
            "doc_id": len(docs),
            "uniq_id": str(item["id"]),
            "question": str(item["question"]),
            "choices": list(item["choices"]),
            "answer": str(item["answer"]),
            "audio": [audio],
            "audio_problem": problem,
            # the grouping fields and the rest of the metadata, for the breakdowns and the sample logs
            **{k: _one(item.get(k)) for k in (*layout.groups, "category")},
            "sub_category": _one(item.get("sub-category")),
            "source": str(item.get("dataset", item.get("source"))),
            # a withheld-answers test set's predictions go back as its own records: kept as read, key order too
            **({"record": json.dumps(item, ensure_ascii=False)} if layout.answers_withheld else {}),
        })
    invalid.warn(path)
    if off_choices:
        log.warning("%s: %d item(s) of %s have an answer that is none of their choices (noted as "
                    "answer_not_in_choices); they are scored as the official script scores them", eval_task,
                    off_choices, path)
    if not docs:
        notes.note("absent_tasks", eval_task, f"{path} lists no items with {where}")
        raise TaskDataAbsent(f"{eval_task}: {path} lists no items with {where}; use the complete official metadata")
    log.info("%s: %d item(s) from %s%s", eval_task, len(docs), path,
             f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs


def accuracy_by(field: str, docs_and_scores: list[tuple[dict, float]]) -> dict[str, dict]:
    """Micro accuracy per value of a field (the official scripts' per-group lines), with the item count."""
    out: dict[str, dict] = {}
    for doc, score in docs_and_scores:
        entry = out.setdefault(str(doc.get(field)), {"items": 0, "correct": 0.0})
        entry["items"] += 1
        entry["correct"] += score
    return {k: {"items": v["items"], "accuracy": v["correct"] / v["items"]} for k, v in out.items()}


def accuracy_with_breakdown(items: list[dict], task, fields: tuple[str, ...] = ("class",), metric: str = "acc") -> float:
    """The aggregation of a classification task whose items are ``{"doc_id", "score", <each field>}``: the accuracy
    over every item, its standard error, the per-item scores, and the accuracy per value of each field (the class,
    and whatever else the dataset breaks its results down by) in ``lm_eval_audio_data.official_breakdown``."""
    from lm_eval_audio.metrics.stderr import proportion_stderr

    pairs = [(i, i["score"]) for i in items]
    task.note_for_task("official_breakdown", metric, {f: accuracy_by(f, pairs) for f in fields})
    task.report_item_scores(metric, [(i["doc_id"], i["score"]) for i in items])
    if not items:
        return task.not_a_number(metric, "the task has no item to score")
    value = sum(i["score"] for i in items) / len(items)
    task.report_stderr(metric, proportion_stderr(value, len(items)))
    return value


def pooled_by_group(breakdowns: dict, group_subtasks: dict) -> dict:
    """Each group's per-field accuracies over all of its tasks' documents, as the official scripts print them over
    a whole benchmark (MMAR's 16 sub-categories span its modality tasks): the tasks' counts summed, each value's
    accuracy weighted by them. ``breakdowns``: task -> metric -> field -> value -> {items, accuracy}."""

    def leaves(name: str) -> list[str]:
        kids = group_subtasks.get(name)
        return [leaf for kid in kids for leaf in leaves(kid)] if kids else [name]

    out: dict = {}
    for group in group_subtasks:
        pooled: dict = {}
        for task in leaves(group):
            for metric, fields in (breakdowns.get(task) or {}).items():
                for field, values in fields.items():
                    for value, entry in values.items():
                        total = pooled.setdefault(metric, {}).setdefault(field, {}).setdefault(value, [0, 0.0])
                        total[0] += entry["items"]
                        total[1] += entry["accuracy"] * entry["items"]
        if pooled:
            out[group] = {metric: {field: {value: {"items": n, "accuracy": right / n} for value, (n, right) in values.items()}
                                   for field, values in fields.items()} for metric, fields in pooled.items()}
    return out


def label(layout: Layout, where: dict) -> str:
    """How messages name the documents a task reads: "MMAU test-mini, task=sound"."""
    return ", ".join([layout.name, *(f"{k}={v}" for k, v in where.items())])


def doc_to_audio(doc: dict) -> list:
    """The document's clips; where one is unusable, every clip marked so (the wrappers skip the request)."""
    if doc["audio_problem"]:
        return [{"path": path, "unavailable": doc["audio_problem"]} for path in doc["audio"]]
    return list(doc["audio"])


def load_docs(layout: Layout, where: dict | None, sample: bool, metadata: dict, *, notes: DataNotes) -> list[dict]:
    """A task's documents (for lm-eval's ``custom_dataset``, through ``data_notes.loader``): the items whose fields
    equal ``where``, from the bundled sample or from the folder the metadata or environment names."""
    source = data_source(layout, metadata, sample)
    notes.note("sources", layout.name + (" sample" if sample else ""), source.record())
    root = source.root
    where = dict(where or {})
    return load_items(layout, root, where, label(layout, where), notes=notes)
