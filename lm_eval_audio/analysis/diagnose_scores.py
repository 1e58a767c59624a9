"""diagnose's arithmetic: each document's class (TS, FS, XS, AH, UN) from its scores under full, none and the
fragments; per task and per group (documents pooled) the accuracies, retentions and class counts."""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_audio.analysis import text_backbone
from lm_eval_audio.analysis.run_results import (
    choose_metric,
    failed_docs,
    item_scores,
    metrics_to_try,
)

DEFAULT_FRAGMENTS = (2, 3, 4, 5)  # the paper's: FS and XS are defined over all 14 fragments
# "Right" for a graded score is what the task's benchmark declares (its folder's benchmark.py); for a 0/1 score:
BINARY_THRESHOLD = 0.5  # scores that are 0 or 1
CLASSES = ("TS", "FS", "XS", "AH", "UN")
TEXT_LABEL = "text"  # the run with the clips' text in place of the clips (diagnose_runner)


def fragment_counts(value) -> list[int]:
    """``--fragments``: one N or several ("2,3,4,5"), each at least 1; sorted, without repeats."""
    if isinstance(value, int):
        return [value]
    if not isinstance(value, str):
        return sorted(set(value))
    try:
        ns = sorted({int(n) for n in value.split(",") if n.strip()})
    except ValueError:
        ns = []
    if not ns or ns[0] < 1:
        raise ValueError(f"--fragments {value!r}: give numbers of slices of at least 1, e.g. 4 or 2,3,4,5")
    return ns


def condition_labels(fragments) -> list[str]:
    return ["full", "none", *(f"fragment:{n}:{k}" for n in fragment_counts(fragments) for k in range(1, n + 1))]


def item_class(full: bool, none: bool, fragments: list[bool]) -> str:
    if full and none:
        return "TS"
    if full:
        return "FS" if any(fragments) else "XS"
    return "AH" if none else "UN"


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


@dataclass
class TaskDiagnosis:
    task: str
    metric: str | None
    threshold: float | None = None
    n: int = 0
    acc_full: float | None = None
    acc_none: float | None = None
    acc_text_backbone: float | None = None  # the text LLM alone on the same prompts (--text_backbone)
    # The model given the text said in each clip in place of the clip, where its benchmark publishes that text
    # (registry.Benchmark.text_instead_of_audio)
    acc_text: float | None = None
    r_tp: float | None = None
    acc_fragments: dict = field(default_factory=dict)  # N -> the accuracy under each of its N fragments
    retention: dict = field(default_factory=dict)  # N -> R_N
    classes: dict = field(default_factory=dict)
    unscored: int = 0
    xs_share: float | None = None  # XS / (FS + XS)
    note: str | None = None
    group: bool = False  # a group's row: its tasks' documents pooled
    tasks: list = field(default_factory=list)  # the tasks a group's row pools


def diagnose_task(task: str, metric: str, scores: dict[str, dict[int, float | None]], fragments,
                  threshold: float, unscorable: dict[str, set[int]] | None = None) -> TaskDiagnosis:
    """The measures of one task from its per-document scores under each condition;
    ``unscorable`` (label -> documents) are left out of the classes under that condition
    (requests that failed for good, missing audio), not of the accuracies."""
    unscorable = unscorable or {}
    ns = fragment_counts(fragments)
    labels = condition_labels(ns)
    acc = {label: mean(scores.get(label, {}).values()) for label in labels}
    per_n = {n: [acc[f"fragment:{n}:{k}"] for k in range(1, n + 1)] for n in ns}
    retention = {n: _ratio(mean(accs), acc["full"]) if all(a is not None for a in accs) else None
                 for n, accs in per_n.items()}
    classes = dict.fromkeys(CLASSES, 0)
    unscored = 0
    for doc in sorted(scores["full"]):
        full, none, *pieces = [None if doc in unscorable.get(label, ()) else scores.get(label, {}).get(doc)
                               for label in labels]
        if full is None or none is None:
            unscored += 1
            continue
        right_full, right_none = full >= threshold, none >= threshold
        heard = [v >= threshold for v in pieces if v is not None]
        # Only FS against XS needs the fragments; a fragment left unscored matters only if no other is right.
        if right_full and not right_none and not any(heard) and len(heard) < len(pieces):
            unscored += 1
            continue
        classes[item_class(right_full, right_none, heard)] += 1
    dependent = classes["FS"] + classes["XS"]
    return TaskDiagnosis(
        task, metric, threshold, len(scores["full"]), acc["full"], acc["none"],
        mean(scores[text_backbone.LABEL].values()) if text_backbone.LABEL in scores else None,
        mean(scores[TEXT_LABEL].values()) if TEXT_LABEL in scores else None,
        _ratio(acc["none"], acc["full"]), per_n, retention, classes, unscored,
        classes["XS"] / dependent if dependent else None,
    )


def threshold_for(metric: str, values, given: float | None, task: str | None = None) -> float:
    from lm_eval_audio.benchmarks import registry

    if given is not None:
        return given
    declared = registry.threshold(task, metric)
    if declared is not None:
        return declared
    if all(v in (0.0, 1.0) for v in values if v is not None):
        return BINARY_THRESHOLD
    raise ValueError(
        f"{metric} is a graded score with no default threshold for 'right'; pass --threshold (a document whose "
        f"{metric} reaches it counts as right)"
    )


@dataclass
class _TaskScores:
    """One task's per-document scores under each condition, and what is left out of its classes."""

    metric: str
    threshold: float
    scores: dict[str, dict]
    unscorable: dict[str, set]


def _task_scores(per_condition: dict[str, dict], task: str, metric: str, threshold: float | None):
    full = per_condition["full"]
    scores, empty, unscorable = {}, [], {}
    for label, results in per_condition.items():
        if label == TEXT_LABEL and task not in results["samples"]:
            continue  # only the tasks whose benchmark publishes the clips' text are run so
        per_doc = item_scores(results["samples"].get(task, []), metric)
        if not per_doc or all(v is None for v in per_doc.values()):
            empty.append(label)  # e.g. the judge answered nothing usable under this condition
        scores[label] = per_doc or {}
        unscorable[label] = failed_docs(results, task)
    failed = [f"{len(docs)} under audio={label}" for label, docs in unscorable.items() if docs]
    missing = {doc for doc, v in (item_scores(full["samples"][task], "audio_missing") or {}).items() if v}
    for docs in unscorable.values():
        docs |= missing
    notes = []
    if empty:
        notes.append(f"no per-document {metric} under audio={', '.join(empty)} (see that run's log); its documents "
                     "are unscored")
    if failed:
        notes.append(f"requests that failed for good: {', '.join(failed)} (lm_eval_audio_data.failed_requests of "
                     "that run); in its accuracy as the empty answer the task scored, unscored in the classes")
    if missing:
        notes.append(f"{len(missing)} document(s) without audio (audio_missing): unscored in the classes")
    chosen = threshold_for(metric, scores["full"].values(), threshold, task)
    return _TaskScores(metric, chosen, scores, unscorable), notes


def diagnose_runs(per_condition: dict[str, dict], fragments, wanted: list[str],
                  threshold: float | None = None, chosen_by_user: bool = False) -> list[TaskDiagnosis]:
    """Every task of the runs (condition label -> lm-eval's results with ``samples``), then every group of
    them, its tasks' documents pooled (``pooled`` below)."""
    full = per_condition["full"]
    out, pieces = [], {}
    for task in sorted(full["samples"]):
        samples = full["samples"][task]
        metrics, skipped = metrics_to_try(full, task, wanted, chosen_by_user)
        metric, why = choose_metric(task, full["results"].get(task, {}), samples, metrics)
        if metric is None:
            out.append(TaskDiagnosis(task, None, n=len(samples), note="; ".join(filter(None, [skipped, why]))))
            continue
        pieces[task], notes = _task_scores(per_condition, task, metric, threshold)
        row = diagnose_task(task, metric, pieces[task].scores, fragments, pieces[task].threshold,
                            pieces[task].unscorable)
        row.note = "; ".join(filter(None, [skipped, *notes])) or None
        out.append(row)
    return out + pooled(full.get("group_subtasks") or {}, pieces, fragments)


def _leaves(group: str, subtasks: dict[str, list]) -> list[str]:
    out = []
    for child in subtasks.get(group, []):
        out += _leaves(child, subtasks) if child in subtasks else [child]
    return out


def pooled(subtasks: dict[str, list], pieces: dict[str, _TaskScores], fragments) -> list[TaskDiagnosis]:
    """One row per group (a benchmark, as arXiv 2604.24401 reports it): the documents of its tasks pooled, so
    its accuracies are micro averages over them and its classes count them all. Only the tasks read by one
    metric and threshold are pooled (the one most of its tasks use; MMAU-Pro's closed questions, not its open
    and instruction-following ones); the note names the others. A group whose pooled tasks another, smaller
    group already covers is not repeated."""
    rows, seen = [], set()
    for group in sorted(subtasks, key=lambda g: (len(_leaves(g, subtasks)), g)):
        members = _leaves(group, subtasks)
        read = [t for t in members if t in pieces]
        if not read:
            continue
        kinds = [(pieces[t].metric, pieces[t].threshold) for t in read]
        metric, threshold = max(kinds, key=kinds.count)
        used = tuple(t for t in read if (pieces[t].metric, pieces[t].threshold) == (metric, threshold))
        if used in seen:
            continue
        seen.add(used)
        scores = {label: {(t, doc): v for t in used for doc, v in pieces[t].scores.get(label, {}).items()}
                  for label in pieces[used[0]].scores}
        unscorable = {label: {(t, doc) for t in used for doc in pieces[t].unscorable.get(label, ())}
                      for label in scores}
        row = diagnose_task(group, metric, scores, fragments, threshold, unscorable)
        row.group = True
        row.tasks = list(used)
        left = [t for t in members if t not in used]
        if left:
            row.note = f"pools {len(used)} of its {len(members)} tasks; not pooled: {', '.join(left)}"
        rows.append(row)
    return rows
