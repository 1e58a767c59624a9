"""``lm-eval-audio diagnose``: how much of a model's score needs the audio.

    lm-eval-audio diagnose --model cascade --tasks airbench_sample
    lm-eval-audio diagnose --model hf-audio --model_args pretrained=Qwen/Qwen2-Audio-7B-Instruct \\
        --tasks airbench_foundation --output_path diagnose

One model, loaded once, is evaluated under ``audio=full``, ``audio=none`` and, for each N of
``--fragments`` (the paper's 2, 3, 4 and 5 by default: 14 fragment runs),
``audio=fragment:N:1`` .. ``fragment:N:N`` (``lm_eval_audio.audio.conditions``), each run
saved as ``lm_eval --output_path ... --log_samples`` would save it and keyed apart in one
request cache (``--use_cache``, on by default), so a re-run, or one with more fragments,
asks the model only for what is new. Per task it reports (arXiv 2604.24401; docs/DIAGNOSTICS.md
gives the definitions):

* Acc_full, Acc_none and R_TP = Acc_none / Acc_full, the share of the score the text prior
  alone keeps; with ``--text_backbone``, Acc_TB, the score of the model's text LLM on the same
  prompts (``lm_eval_audio.analysis.text_backbone``);
* the accuracy under each fragment, and per N the retention R_N = the mean over its N fragments / Acc_full;
* each document's class: TS (right with and without the audio), FS (right, wrong without
  audio, right with some fragment of some N), XS (right, wrong without audio and with every
  fragment of every N), AH (wrong, but right without the audio), UN (wrong with and without);
  and XS / (FS + XS), the share of the audio-dependent documents that need the whole clip.

A document is "right" when its score reaches the metric's threshold: 0.5 for scores that are
0 or 1 (accuracies), ``THRESHOLDS`` for graded scores, or ``--threshold``. A document left
without a score under full or none, or under the fragments when its class depends on them
(a judge failure; missing audio; a request that failed for good, whose empty answer says
nothing of the model), is counted apart as unscored, never as wrong. The accuracies stay the
ones each run reports, failed requests included, and a note says how many there were.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
from dataclasses import asdict, dataclass, field

from lm_eval_audio.analysis import text_backbone
from lm_eval_audio.audio.conditions import parse
from lm_eval_audio.analysis.run_results import (
    choose_metric,
    failed_docs,
    item_scores,
    metrics_to_try,
)

log = logging.getLogger("lm_eval.audio.diagnose")

DEFAULT_FRAGMENTS = (2, 3, 4, 5)  # the paper's: FS and XS are defined over all 14 fragments
# "Right" for a graded score is what the task's benchmark declares (its folder's benchmark.py); for a 0/1 score:
BINARY_THRESHOLD = 0.5  # scores that are 0 or 1
CLASSES = ("TS", "FS", "XS", "AH", "UN")


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


def _mean(values) -> float | None:
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
    acc = {label: _mean(scores.get(label, {}).values()) for label in labels}
    per_n = {n: [acc[f"fragment:{n}:{k}"] for k in range(1, n + 1)] for n in ns}
    retention = {n: _ratio(_mean(accs), acc["full"]) if all(a is not None for a in accs) else None
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
        _mean(scores[text_backbone.LABEL].values()) if text_backbone.LABEL in scores else None,
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


# --- output ---------------------------------------------------------------------------


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def table(rows: list[TaskDiagnosis], fragments) -> str:
    ns = fragment_counts(fragments)
    with_backbone = any(r.acc_text_backbone is not None for r in rows)
    # One N: each fragment's accuracy, then R_N; several: R_N per N (every fragment's accuracy is in the JSON).
    per_fragment = [f"frag {k}/{ns[0]}" for k in range(1, ns[0] + 1)] if len(ns) == 1 else []
    head = ["task", "metric (right if >=)", "n", "Acc_full", "Acc_none", *(["Acc_TB"] if with_backbone else []),
            "R_TP", *per_fragment,
            *(f"R_{n}" for n in ns), *CLASSES, "unscored", "XS/(FS+XS)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_note: dict[str, list[str]] = {}  # a note shared by many tasks (a benchmark's sub-tasks) is said once
    for r in rows:
        if r.metric is None:
            by_note.setdefault(f"not diagnosed: {r.note}", []).append(r.task)
            continue
        if r.note:
            by_note.setdefault(r.note, []).append(r.task)
        fragment_cells = map(_fmt, r.acc_fragments[ns[0]]) if per_fragment else []
        name = f"{r.task} ({len(r.tasks)} tasks pooled)" if r.group else r.task
        cells = [name, f"{r.metric} (>= {r.threshold:g})", str(r.n), _fmt(r.acc_full), _fmt(r.acc_none),
                 *([_fmt(r.acc_text_backbone)] if with_backbone else []), _fmt(r.r_tp), *fragment_cells,
                 *(_fmt(r.retention[n]) for n in ns),
                 *(str(r.classes[c]) for c in CLASSES), str(r.unscored), _fmt(r.xs_share)]
        lines.append("| " + " | ".join(cells) + " |")
    over = f"N = {', '.join(map(str, ns))}: {sum(ns)} fragment runs" + (
        "" if ns == list(DEFAULT_FRAGMENTS) else f" (the paper's FS and XS use N = 2, 3, 4 and 5: "
                                                 f"--fragments {','.join(map(str, DEFAULT_FRAGMENTS))})")
    legend = (
        "\nR_TP = Acc_none / Acc_full (the text prior's share of the score); "
        + ("Acc_TB: the model's text LLM alone, given the same prompts without the audio; " if with_backbone else "")
        + "R_N = mean accuracy over the N fragments of the clip / Acc_full. Classes per document: TS right with and "
        "without audio; FS right, wrong without audio, right with some fragment; XS right, wrong without audio and "
        f"with every fragment ({over}); AH wrong, right without audio; UN wrong with and without. "
        "XS/(FS+XS): the share of the documents that need the audio which need the whole clip. Unscored: no score "
        "under full or none, or under the fragments its class depends on (a judge failure, missing audio, a request "
        "that failed for good); not counted as wrong."
    )
    notes = [f"- {', '.join(tasks)}: {note}" for note, tasks in by_note.items()]
    return "\n".join(lines + notes) + "\n" + legend + "\n" + paper_tables(rows, ns)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def paper_tables(rows: list[TaskDiagnosis], ns: list[int]) -> str:
    """The groups' rows in the layout of arXiv 2604.24401's tables, one row per benchmark: accuracy (%) under
    Full, None and Text-Backbone with R_TP; retention R_N (%) per N; and the classes as shares (%) of the
    classified documents with XS/(FS+XS) (%)."""
    rows = [r for r in rows if r.group and r.metric is not None]
    if not rows:
        return ""
    with_backbone = any(r.acc_text_backbone is not None for r in rows)
    head = ["benchmark", "metric", "n", "Full", "None", *(["TB"] if with_backbone else []), "R_TP",
            *(f"R_{n}" for n in ns), *(f"{c} %" for c in CLASSES), "XS/(FS+XS) %"]
    lines = ["", "Per benchmark, in the layout of arXiv 2604.24401's tables (accuracies and R_N in %; classes as % "
             "of the classified documents):", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        classified = sum(r.classes.values())
        shares = [_pct(r.classes[c] / classified) if classified else "n/a" for c in CLASSES]
        cells = [r.task, r.metric, str(r.n), _pct(r.acc_full), _pct(r.acc_none),
                 *([_pct(r.acc_text_backbone)] if with_backbone else []), _fmt(r.r_tp, 2),
                 *(_pct(r.retention[n]) for n in ns), *shares, _pct(r.xs_share)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(rows: list[TaskDiagnosis], fragments, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in rows if r.metric is not None]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 1.8 + 0.6 * max(len(rows), 1)))
    ns = fragment_counts(fragments)
    with_backbone = any(r.acc_text_backbone is not None for r in rows)
    labels = ["full", "none", *(["text backbone"] if with_backbone else []),
              *(f"mean of the {n} fragments" for n in ns)]
    y = np.arange(len(rows))
    height = 0.8 / len(labels)

    def bars(r):
        means = [_mean(r.acc_fragments[n]) if None not in r.acc_fragments[n] else None for n in ns]
        backbone = [r.acc_text_backbone] if with_backbone else []
        return [np.nan if v is None else v for v in [r.acc_full, r.acc_none, *backbone, *means]]

    values = [bars(r) for r in rows]
    for i, label in enumerate(labels):
        left.barh(y + i * height, [v[i] for v in values], height, label=label)
    left.set_yticks(y + 0.4 - height / 2, [f"{r.task}\n({r.metric})" for r in rows])
    left.invert_yaxis()
    left.set_xlabel("score under each condition")
    left.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    starts = np.zeros(len(rows))
    for c in CLASSES:
        total = [max(sum(r.classes.values()), 1) for r in rows]
        shares = np.array([r.classes[c] / t for r, t in zip(rows, total)])
        right.barh(y, shares, left=starts, label=c)
        starts += shares
    right.set_yticks(y, [r.task for r in rows])
    right.invert_yaxis()
    right.set_xlim(0, 1)
    right.set_xlabel("share of documents")
    right.legend(ncol=5, fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- running the conditions ------------------------------------------------------------


def evaluate_conditions(args) -> tuple[dict[str, dict], str]:
    """Run each condition through lm-eval in this process, saving each like ``lm_eval`` does;
    returns (label -> results with samples and date_id, the full run's folder)."""
    from lm_eval import simple_evaluate
    from lm_eval.api.registry import get_model
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import sanitize_model_name, simple_parse_args_string

    from lm_eval_audio.model_wrappers.registry import results_folder_name

    model_args = args.model_args or ""
    given = simple_parse_args_string(model_args)
    if "audio" in given:
        raise SystemExit("diagnose: drop audio= from --model_args; diagnose runs full, none and the fragments itself")
    metadata = json.loads(args.metadata) if args.metadata else {}
    lm = get_model(args.model).create_from_arg_string(
        model_args, {"batch_size": args.batch_size, "max_batch_size": None, "device": args.device})
    if not hasattr(lm, "audio_condition"):
        raise SystemExit(f"diagnose: --model {args.model} takes no audio= condition; use hf-audio, openai-audio or cascade")
    default_name = GeneralConfigTracker._get_model_name(model_args) or args.model
    base_name = sanitize_model_name(results_folder_name(args.model, model_args, default_name))
    # lm-eval keys cached answers by the request alone: other model arguments get another cache.
    settings = hashlib.sha256(f"{args.model}|{model_args}".encode()).hexdigest()[:12]
    cache = args.use_cache or os.path.join(args.output_path, base_name, "request_cache", settings, "requests")
    os.makedirs(os.path.dirname(os.path.abspath(cache)), exist_ok=True)
    task_manager = TaskManager(include_path=args.include_path, metadata=given | metadata)
    tasks = [t for t in args.tasks.split(",") if t]

    def run(model, model_name: str, source: str, run_args: str, use_cache: str | None) -> dict:
        """One condition through lm-eval, saved as ``lm_eval --output_path ... --log_samples`` saves it."""
        tracker = EvaluationTracker(output_path=args.output_path)
        results = simple_evaluate(
            model=model, model_args=run_args, tasks=tasks, limit=args.limit, use_cache=use_cache, log_samples=True,
            evaluation_tracker=tracker, task_manager=task_manager, metadata=metadata,
            batch_size=args.batch_size, device=args.device, num_fewshot=args.num_fewshot, gen_kwargs=args.gen_kwargs,
            apply_chat_template=args.apply_chat_template, system_instruction=args.system_instruction,
        )
        # A pre-built model is "CUSTOM" to lm-eval: name the run as `lm_eval --model ...` would.
        config = tracker.general_config_tracker
        config.model_source = source
        config.model_name = model_name
        config.model_name_sanitized = sanitize_model_name(model_name)
        results["config"]["model"] = source
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task in results["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])
        return {**results, "samples": samples, "date_id": tracker.date_id}

    per_condition = {}
    for label in condition_labels(args.fragments):
        lm.audio_condition = parse(label)
        run_args = ",".join(a for a in (model_args, f"audio={label}") if a)
        log.info("diagnose: audio=%s", label)
        per_condition[label] = run(lm, results_folder_name(args.model, run_args, default_name), args.model, run_args,
                                   cache)
    if args.text_backbone is not None:
        log.info("diagnose: the text backbone, %s %s, on the same prompts without the audio",
                 args.text_backbone_model, args.text_backbone)
        backbone = get_model(args.text_backbone_model).create_from_arg_string(
            args.text_backbone, {"batch_size": args.batch_size, "max_batch_size": None, "device": args.device})
        name = GeneralConfigTracker._get_model_name(args.text_backbone) or args.text_backbone_model
        # No request cache: lm-eval's key would hash the audio references, which this model never reads.
        per_condition[text_backbone.LABEL] = run(text_backbone.TextPromptsOnly(backbone), f"{name}__text-backbone",
                                                 args.text_backbone_model, args.text_backbone, None)
    return per_condition, os.path.join(args.output_path, base_name)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lm-eval-audio diagnose",
        description="Text-prior and audio-reliance diagnostics: one model under audio=full, none and "
                    "fragment:N:1..N for each N; per task Acc_full, Acc_none, R_TP, R_N and the TS/FS/XS/AH/UN "
                    "counts.",
    )
    p.add_argument("--model", required=True, help="hf-audio, openai-audio or cascade")
    p.add_argument("--model_args", default="", help="as for lm_eval, without audio=")
    p.add_argument("--tasks", required=True, help="comma-separated tasks or groups, as for lm_eval")
    p.add_argument("--fragments", default=",".join(map(str, DEFAULT_FRAGMENTS)),
                   help="N, the number of equal slices, or several: 2,3,4,5 (the default, the paper's: FS and XS "
                        "over all 14 fragments)")
    p.add_argument("--text_backbone", default=None, metavar="MODEL_ARGS",
                   help="the model's text LLM, as --model_args for --text_backbone_model (e.g. "
                        "pretrained=Qwen/Qwen-7B-Chat): run on the same prompts without the audio, reported as Acc_TB")
    p.add_argument("--text_backbone_model", default="hf",
                   help="any lm-eval model name for --text_backbone (default hf)")
    p.add_argument("--output_path", default="results", help="where each condition's results and the report go")
    p.add_argument("--use_cache", default=None,
                   help="lm-eval request cache (default: <output_path>/<model>/request_cache/<hash of the model "
                        "arguments>/requests)")
    p.add_argument("--limit", type=float, default=None)
    p.add_argument("--metadata", default=None, help="JSON, as lm_eval's --metadata (judge settings, data folders)")
    p.add_argument("--include_path", default=None)
    p.add_argument("--batch_size", default="1")
    p.add_argument("--device", default=None)
    # As for lm_eval, so that the full condition is the run the user already made (and its cache applies).
    p.add_argument("--num_fewshot", type=int, default=None)
    p.add_argument("--gen_kwargs", default=None)
    p.add_argument("--apply_chat_template", action="store_true")
    p.add_argument("--system_instruction", default=None)
    p.add_argument("--metric", default=None,
                   help="comma-separated metrics to try, first found wins (default: the headline metrics of each "
                        "task's benchmark, then acc, exact_match)")
    p.add_argument("--threshold", type=float, default=None,
                   help="score at which a document counts as right (default: 0.5 for 0/1 accuracies; for graded "
                        "scores what the task's benchmark declares)")
    return p


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        args.fragments = fragment_counts(args.fragments)
    except ValueError as e:
        raise SystemExit(f"diagnose: {e}") from None
    if args.limit is not None and args.limit >= 1:
        args.limit = int(args.limit)
    from lm_eval_audio.harness import startup

    startup.install()
    from lm_eval.utils import setup_logging

    setup_logging("INFO")
    per_condition, folder = evaluate_conditions(args)
    wanted = args.metric.split(",") if args.metric else None
    try:
        rows = diagnose_runs(per_condition, args.fragments, wanted, args.threshold, chosen_by_user=bool(args.metric))
    except ValueError as e:
        raise SystemExit(f"diagnose: {e}") from None
    text = table(rows, args.fragments)
    date_id = per_condition["full"]["date_id"]
    base = os.path.join(folder, f"diagnose_{date_id}")
    with open(base + ".md", "w", encoding="utf-8") as f:
        f.write(text)
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump({"fragments": args.fragments, "conditions": list(per_condition), "date": date_id,
                   "tasks": [asdict(r) for r in rows]}, f, indent=2)
    plot(rows, args.fragments, base + ".png")
    sys.stdout.write(text)
    sys.stdout.write(f"\nWritten: {base}.md, {base}.json, {base}.png (each condition's results under {args.output_path})\n")
