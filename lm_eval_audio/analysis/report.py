"""``lm-eval-audio report``: tables, plots, confidence intervals and a paired test over
lm-eval results files.

    lm-eval-audio report results/ --output report/
    lm-eval-audio report runA/results_X.json runB/results_Y.json --output report/   # A against B

Every number comes from the per-document sample logs (``--log_samples``), so each has a
95% bootstrap interval (``lm_eval_audio.analysis.stats``):

* AIR-Bench runs (any task whose documents are AIR-Bench items, the sample included) get
  a table laid out like the paper's Table 3 (foundation speech / sound / music / average;
  chat speech / sound / music / mixed / average) and one like Table 5 (foundation accuracy
  per task), with the benchmark's own averaging rules (AIR-Bench's Tables 3 and 5 and ``cal_score.py``; docs/AIRBENCH.md);
* every task gets a row in the per-task table (its headline metric, as ``diagnose``
  chooses it);
* with two runs, a paired test on the documents both scored: the difference, its paired
  bootstrap interval and a sign-flip permutation p-value;
* PNG plots: grouped bars per category (or per task) with the intervals, and a radar per model.

It reads files only: no model, no GPU, no network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from dataclasses import dataclass, field

from lm_eval_audio.analysis import stats
from lm_eval_audio.benchmarks.airbench import CHAT_CATEGORIES, FOUNDATION_CATEGORIES, SYNTHETIC_SAMPLE_DATASET, folder_of
from lm_eval_audio.analysis.run_results import (
    JUDGE_METRICS,
    PREFERRED_METRICS,
    ResultsError,
    Run,
    choose_metric,
    find,
    first_filter,
    item_value,
    metrics_to_try,
)

_FOUNDATION_TASK = {t: c for c, tasks in FOUNDATION_CATEGORIES.items() for t in tasks}
_CHAT_TASK = {t: c for c, tasks in CHAT_CATEGORIES.items() for t in tasks}
FOUNDATION_METRICS = ("gpt_align", "exact_match")  # the headline, then the rule-based fallback


@dataclass
class ModelScores:
    """One run's per-document scores, grouped as the tables need them."""

    name: str
    # AIR-Bench task name -> document scores
    foundation: dict[str, list[float]] = field(default_factory=dict)
    chat: dict[str, list[float]] = field(default_factory=dict)
    # AIR-Bench audio folder (<task_name>_<dataset_name>, score_foundation.py's task_id) -> document scores
    foundation_folders: dict[str, list[float]] = field(default_factory=dict)
    foundation_metric: str | None = None
    # lm-eval task -> (metric, reported value, {document key: score})
    tasks: dict[str, tuple[str | None, float | None, dict]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    synthetic: bool = False  # scored on the bundled synthetic sample, not on AIR-Bench data


def _doc_key(sample: dict) -> str:
    # The benchmark's own id where it has one (AIR-Bench's uniq_id); lm-eval's doc_hash covers the
    # whole document, audio paths included, so runs over two copies of the data would never pair.
    doc = sample.get("doc") or {}
    return f"uniq_id {doc['uniq_id']}" if doc.get("uniq_id") is not None else f"doc {sample['doc_id']}"


def _airbench_value(sample: dict, metrics) -> tuple[str, float | None] | None:
    for metric in metrics:
        try:
            return metric, item_value(sample, metric)
        except KeyError:
            continue
    return None


def collect(runs: list[Run], wanted: list[str], chosen_by_user: bool = False) -> ModelScores:
    """One model's scores from its runs (newest first: a task is read from the newest run that has it)."""
    scores = ModelScores(runs[0].name)
    unscored = 0
    tasks = {}
    for run in runs:
        for task, reported in run.tasks().items():
            tasks.setdefault(task, (run, reported))
    for task, (run, reported) in sorted(tasks.items()):
        samples = first_filter(run.samples(task))
        if not samples:
            continue  # a group, or a run without --log_samples
        metrics, skipped = metrics_to_try(run.results, task, wanted, chosen_by_user)
        if skipped:
            scores.notes.append(f"{run.name} / {task}: {skipped}")
        metric, why = choose_metric(task, reported, samples, metrics)
        values = {}
        if metric is not None:
            values = {_doc_key(s): item_value(s, metric) for s in samples}
        else:
            scores.notes.append(f"{run.name} / {task}: no per-document score ({why})")
        scores.tasks[task] = (metric, run.metric(task, metric) if metric else None, values)
        airbench_metrics = [m for m in FOUNDATION_METRICS if m in metrics or m not in JUDGE_METRICS]
        for sample in samples:
            doc = sample.get("doc") or {}
            name = doc.get("task_name")
            scores.synthetic = scores.synthetic or doc.get("dataset_name") == SYNTHETIC_SAMPLE_DATASET
            if name in _FOUNDATION_TASK:
                found = _airbench_value(sample, airbench_metrics)
                if found is None:
                    continue
                scores.foundation_metric = scores.foundation_metric or found[0]
                if found[0] != scores.foundation_metric:
                    raise ResultsError(f"{run.path}: foundation tasks scored by both {scores.foundation_metric} and "
                                       f"{found[0]}; report runs judged alike")
                target = scores.foundation
            elif name in _CHAT_TASK and (skipped is None or "score" in metrics):
                found = _airbench_value(sample, ("score",))
                if found is None:
                    continue
                target = scores.chat
            else:
                continue
            if found[1] is None:
                unscored += 1  # a judge failure: left out, as the benchmark's scores leave it out
                continue
            target.setdefault(name, []).append(found[1])
            if target is scores.foundation and doc.get("dataset_name") is not None:
                scores.foundation_folders.setdefault(folder_of(doc), []).append(found[1])
    if unscored:
        scores.notes.append(f"{run.name}: {unscored} AIR-Bench document(s) without a judge score are left out")
    return scores


# --- the benchmark's averages, as functions of per-task sums (for the bootstrap) -----------


def foundation_statistics(tasks: list[str]) -> dict[str, object]:
    """Category = mean of its tasks' accuracies; average = mean of the categories present."""
    present = {c: [t for t in members if t in tasks] for c, members in FOUNDATION_CATEGORIES.items()}
    present = {c: ts for c, ts in present.items() if ts}

    def category(c):
        return lambda sums, counts: sum(sums[t] / counts[t] for t in present[c]) / len(present[c])

    out = {c: category(c) for c in present}
    if present:
        out["average"] = lambda sums, counts: sum(category(c)(sums, counts) for c in present) / len(present)
    return out


def chat_statistics(tasks: list[str]) -> dict[str, object]:
    """Speech, sound, music: item means over their tasks; mixed: mean of its tasks' means;
    average: mean of the four (of those present)."""
    present = {c: [t for t in members if t in tasks] for c, members in CHAT_CATEGORIES.items()}
    present = {c: ts for c, ts in present.items() if ts}

    def category(c):
        if c == "mixed":
            return lambda sums, counts: sum(sums[t] / counts[t] for t in present[c]) / len(present[c])
        return lambda sums, counts: sum(sums[t] for t in present[c]) / sum(counts[t] for t in present[c])

    out = {c: category(c) for c in present}
    if present:
        out["average"] = lambda sums, counts: sum(category(c)(sums, counts) for c in present) / len(present)
    return out


def _estimates(groups: dict[str, list[float]], statistics: dict) -> dict[str, dict]:
    return {name: {"value": value, "low": low, "high": high}
            for name, (value, (low, high)) in stats.stratified(groups, statistics).items()}


def _per_group_means(groups: dict[str, list[float]]) -> dict[str, dict]:
    return {g: {"n": len(v), **_estimates({g: v}, {g: lambda s, c, g=g: s[g] / c[g]})[g]} for g, v in groups.items()}


def airbench_tables(models: list[ModelScores]) -> dict:
    out = {}
    for m in models:
        entry = {}
        if m.foundation:
            entry["foundation_metric"] = m.foundation_metric
            entry["foundation"] = _estimates(m.foundation, foundation_statistics(list(m.foundation)))
            entry["foundation_tasks"] = _per_group_means(m.foundation)
            entry["foundation_folders"] = _per_group_means(m.foundation_folders)
        if m.chat:
            entry["chat"] = _estimates(m.chat, chat_statistics(list(m.chat)))
        if entry:
            out[m.name] = entry
    return out


def task_table(models: list[ModelScores]) -> dict:
    out = {}
    for m in models:
        for task, (metric, reported, values) in m.tasks.items():
            scored = [v for v in values.values() if v is not None]
            row = {"metric": metric, "reported": reported, "n": len(scored)}
            if scored:
                low, high = stats.mean_interval(scored)
                row.update(value=sum(scored) / len(scored), low=low, high=high)
            out.setdefault(task, {})[m.name] = row
    return out


def compare(a: ModelScores, b: ModelScores) -> dict:
    out = {}
    for task in sorted(set(a.tasks) & set(b.tasks)):
        metric_a, _, values_a = a.tasks[task]
        metric_b, _, values_b = b.tasks[task]
        if metric_a is None or metric_b is None:
            out[task] = {"note": "not compared: no per-document score in " + ("either run" if metric_a == metric_b
                         else f"{a.name if metric_a is None else b.name}")}
            continue
        if metric_a != metric_b:
            out[task] = {"note": f"not compared: scored by {metric_a} in one run and {metric_b} in the other"}
            continue
        shared = [k for k in values_a if k in values_b and values_a[k] is not None and values_b[k] is not None]
        if not shared:
            out[task] = {"note": "not compared: no document scored by both"}
            continue
        out[task] = {"metric": metric_a, **stats.paired([values_a[k] for k in shared], [values_b[k] for k in shared])}
    return out


# --- rendering ---------------------------------------------------------------------------


SYNTHETIC_TITLE = "synthetic sample, not AIR-Bench data"


def _cell(e: dict | None, scale: float = 1.0, digits: int = 1) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{e['value'] * scale:.{digits}f} [{e['low'] * scale:.{digits}f}, {e['high'] * scale:.{digits}f}]"


def markdown(report: dict) -> str:
    lines = []
    air = report["airbench"]
    synthetic = report["synthetic_sample"]
    benchmark = f"AIR-Bench scoring on the {SYNTHETIC_TITLE}" if synthetic else "AIR-Bench"
    if synthetic:
        lines += [f"**Synthetic sample**: {', '.join(synthetic)} scored the bundled synthetic sample in AIR-Bench's "
                  "layout (tasks/airbench/sample_data), not AIR-Bench data. Its numbers check the pipeline; they are "
                  "not AIR-Bench scores.", ""]
    if air:
        f_cols, c_cols = ["speech", "sound", "music", "average"], ["speech", "sound", "music", "mixed", "average"]
        lines += [f"## {benchmark}: layout of Table 3", "",
                  "Foundation: accuracy in %; chat: judge score 1-10 (GPT-4-style pairwise, mean of both orders). "
                  "95% bootstrap intervals in brackets.", "",
                  "| model | " + " | ".join(f"foundation {c}" for c in f_cols) + " | "
                  + " | ".join(f"chat {c}" for c in c_cols) + " |",
                  "|---|" + "---|" * (len(f_cols) + len(c_cols))]
        for name, e in air.items():
            f = e.get("foundation", {})
            c = e.get("chat", {})
            lines.append(f"| {name} | " + " | ".join(_cell(f.get(col), 100) for col in f_cols) + " | "
                         + " | ".join(_cell(c.get(col), 1, 2) for col in c_cols) + " |")
        metrics = {e["foundation_metric"] for e in air.values() if e.get("foundation_metric")}
        if metrics:
            lines += ["", "Foundation metric: " + ", ".join(sorted(metrics))
                      + " (gpt_align: the judge's choice alignment, the paper's headline; exact_match: the "
                        "official first/second-to-last character rule, unparsed answers wrong)."]
        tasks = [t for c in FOUNDATION_CATEGORIES.values() for t in c
                 if any(t in e.get("foundation_tasks", {}) for e in air.values())]
        if tasks:
            names = list(air)
            lines += ["", f"## {benchmark}: foundation per task (layout of Table 5), accuracy %", "",
                      "| task | category | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
            for t in tasks:
                lines.append(f"| {t} | {_FOUNDATION_TASK[t]} | "
                             + " | ".join(_cell(air[n].get("foundation_tasks", {}).get(t), 100) for n in names) + " |")
            folders = sorted({f for e in air.values() for f in e.get("foundation_folders", {})})
            lines += ["", f"## {benchmark}: foundation per audio folder (score_foundation.py's task_dataset), accuracy %",
                      "", "A task pools its folders (datasets); the official script prints each. n = documents scored.",
                      "", "| folder | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
            for f in folders:
                cells = [air[n].get("foundation_folders", {}).get(f) for n in names]
                lines.append(f"| {f} | " + " | ".join(f"{_cell(c, 100)} (n={c['n']})" if c else "–" for c in cells)
                             + " |")
    names = report["models"]
    lines += ["", "## Per task", "", "Headline metric per task, mean over documents [95% bootstrap interval]; "
              "n = documents scored.", "",
              "| task | metric | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for task, per_model in report["tasks"].items():
        metric = next((r["metric"] for r in per_model.values() if r["metric"]), None)
        cells = []
        for n in names:
            r = per_model.get(n)
            if not r:
                cells.append("–")
            elif "value" in r:
                cells.append(f"{_cell(r, 1, 3)} (n={r['n']})")
            else:
                cells.append("no per-document score")
        lines.append(f"| {task} | {metric or '–'} | " + " | ".join(cells) + " |")
    if report.get("comparison"):
        a, b = report["comparison"]["a"], report["comparison"]["b"]
        lines += ["", f"## Paired comparison: {a} minus {b}", "",
                  "Same documents only; difference of means, its paired bootstrap 95% interval, and a two-sided "
                  "sign-flip permutation p-value (10,000 permutations).", "",
                  "| task | metric | n | difference | 95% interval | p |", "|---|---|---|---|---|---|"]
        for task, r in report["comparison"]["tasks"].items():
            if "note" in r:
                lines.append(f"| {task} | – | – | {r['note']} | | |")
            else:
                lines.append(f"| {task} | {r['metric']} | {r['n']} | {r['difference']:+.3f} | "
                             f"[{r['low']:+.3f}, {r['high']:+.3f}] | {r['p_value']:.4f} |")
    if report["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in report["notes"]]
    return "\n".join(lines).lstrip() + "\n"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def plots(report: dict, folder: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    written = []
    names = report["models"]
    air = report["airbench"]
    panels = []
    if air:
        for track, cols, scale, label in (("foundation", ["speech", "sound", "music", "average"], 100, "accuracy %"),
                                          ("chat", ["speech", "sound", "music", "mixed", "average"], 1, "score (1-10)")):
            if any(track in e for e in air.values()):
                panels.append((f"AIR-Bench {track}" + (f"\n{SYNTHETIC_TITLE}" if report["synthetic_sample"] else ""),
                               cols, scale, label,
                               {n: air.get(n, {}).get(track, {}) for n in names}))
    else:
        tasks = list(report["tasks"])
        panels.append(("per task", tasks, 1, "headline metric",
                       {n: {t: report["tasks"][t].get(n) for t in tasks} for n in names}))
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
    for ax, (title, cols, scale, label, values) in zip(axes[0], panels):
        x = np.arange(len(cols))
        width = 0.8 / max(len(names), 1)
        for i, n in enumerate(names):
            got = [values[n].get(c) or {} for c in cols]
            heights = [e.get("value", np.nan) * scale if e.get("value") is not None else np.nan for e in got]
            errors = [[(e["value"] - e["low"]) * scale if e.get("value") is not None else 0 for e in got],
                      [(e["high"] - e["value"]) * scale if e.get("value") is not None else 0 for e in got]]
            ax.bar(x + i * width, heights, width, yerr=errors, capsize=3, label=n)
        ax.set_xticks(x + 0.4 - width / 2, cols, rotation=30 if len(cols) > 5 else 0, ha="right" if len(cols) > 5 else "center")
        ax.set_title(title)
        ax.set_ylabel(label)
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    path = os.path.join(folder, "categories.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    for n in names:
        if air.get(n, {}).get("foundation_tasks"):
            axes_names = list(air[n]["foundation_tasks"])
            radii = [air[n]["foundation_tasks"][t]["value"] * 100 for t in axes_names]
        else:
            axes_names = [t for t, r in report["tasks"].items() if r.get(n, {}).get("value") is not None]
            radii = [report["tasks"][t][n]["value"] for t in axes_names]
        if len(axes_names) < 3:
            report["notes"].append(f"{n}: no radar plot (needs 3 or more tasks, has {len(axes_names)})")
            continue
        angles = np.linspace(0, 2 * np.pi, len(axes_names), endpoint=False)
        fig = plt.figure(figsize=(6, 6))
        ax = fig.add_subplot(projection="polar")
        ax.plot(np.append(angles, angles[0]), np.append(radii, radii[0]), marker="o")
        ax.fill(np.append(angles, angles[0]), np.append(radii, radii[0]), alpha=0.2)
        # First task at the top, clockwise; names wrapped and set beside their spoke, not across it,
        # and the radial scale between the first two spokes, where no name stands.
        ax.set_theta_offset(np.pi / 2)
        ax.set_theta_direction(-1)
        ax.set_rlabel_position(180 / len(axes_names))
        ax.set_xticks(angles, [textwrap.fill(a.replace("_", " "), 18) for a in axes_names], fontsize="x-small")
        for label, angle in zip(ax.get_xticklabels(), angles):
            x = np.sin(angle)  # horizontal position of the spoke's end, first spoke at the top
            label.set_horizontalalignment("left" if x > 0.1 else "right" if x < -0.1 else "center")
        ax.set_title(n + (f"\n{SYNTHETIC_TITLE}" if n in report["synthetic_sample"] else ""), fontsize="small", pad=18)
        fig.tight_layout()
        path = os.path.join(folder, f"radar_{_safe(n)}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def build(model_runs: list[list[Run]], wanted: list[str], chosen_by_user: bool = False) -> dict:
    models = [collect(runs, wanted, chosen_by_user) for runs in model_runs]
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        # two runs of one model (different dates): tell them apart
        for m, runs in zip(models, model_runs):
            m.name = f"{m.name} ({runs[0].date_id})"
    report = {
        "models": [m.name for m in models],
        "sources": {m.name: [str(run.path) for run in runs] for m, runs in zip(models, model_runs)},
        "airbench": airbench_tables(models),
        "tasks": task_table(models),
        "notes": [n for m in models for n in m.notes],
        "synthetic_sample": [m.name for m in models if m.synthetic],  # models whose AIR-Bench items are the sample's
        "interval": {"level": stats.LEVEL, "bootstrap_iterations": stats.ITERATIONS, "seed": stats.SEED},
    }
    if len(models) == 2:
        report["comparison"] = {"a": models[0].name, "b": models[1].name, "tasks": compare(*models)}
    return report


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="lm-eval-audio report",
        description="Tables (AIR-Bench Table 3 and 5 layouts, per task), plots, bootstrap intervals and a paired "
                    "test, from lm-eval results files written with --log_samples.",
    )
    p.add_argument("results", nargs="+", help="results_<date>.json files, or folders (the newest run in each below)")
    p.add_argument("--output", default="report", help="folder for report.md, report.json and the PNG plots")
    p.add_argument("--metric", default=None,
                   help=f"comma-separated metrics to try per task, first found wins (default {','.join(PREFERRED_METRICS)})")
    args = p.parse_args(argv)
    try:
        model_runs = find(args.results)
        for run in (run for runs in model_runs for run in runs):
            if not any(run.samples(t) for t in run.tasks()):
                raise ResultsError(f"{run.path}: no samples_<task>_{run.date_id}.jsonl beside it; the report needs "
                                   "the per-document logs: run lm_eval with --log_samples")
        report = build(model_runs, args.metric.split(",") if args.metric else list(PREFERRED_METRICS),
                       bool(args.metric))
    except ResultsError as e:
        sys.exit(f"report: {e}")
    os.makedirs(args.output, exist_ok=True)
    written = plots(report, args.output)
    text = markdown(report)
    with open(os.path.join(args.output, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    sys.stdout.write(text)
    sys.stdout.write(f"\nWritten: {os.path.join(args.output, 'report.md')}, report.json, "
                     + ", ".join(os.path.basename(w) for w in written) + "\n")
