"""``lm-eval-audio report``: tables, plots, confidence intervals and a paired test over
lm-eval results files.

    lm-eval-audio report results/ --output report/
    lm-eval-audio report runA/results_X.json runB/results_Y.json --output report/   # A against B

Every number comes from the per-document sample logs (``--log_samples``), so each has a
95% bootstrap interval (``lm_eval_audio.analysis.stats``):

* a benchmark whose folder declares report tables (``report`` in its ``benchmark.py``; AIR-Bench's
  Tables 3 and 5, ``tasks/airbench/report.py``) gets them, laid out as its paper's, above the rest;
* every task gets a row in the per-task table (its headline metric, as ``diagnose``
  chooses it);
* with two runs, a paired test on the documents both scored: the difference, its paired
  bootstrap interval and a sign-flip permutation p-value;
* PNG plots: grouped bars per category (or per task) with the intervals, and a radar per model;
* where each run's data came from (``lm_eval_audio_data.sources``): a Hub repository at its commit, or a local
  folder and the digest of its metadata files.

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
from lm_eval_audio.analysis.run_results import (
    ResultsError,
    Run,
    apart_from_conditions,
    choose_metric,
    find,
    first_filter,
    item_value,
    metrics_to_try,
)
from lm_eval_audio.benchmarks import registry


@dataclass
class ModelScores:
    """One run's per-document scores, per task, and what each benchmark's report hook made of them."""

    name: str
    # lm-eval task -> (metric, reported value, {document key: score})
    tasks: dict[str, tuple[str | None, float | None, dict]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # benchmark key -> what its report hook's collect() returned for this model
    benchmarks: dict[str, object] = field(default_factory=dict)


def _doc_key(sample: dict) -> str:
    # The benchmark's own id where it has one (AIR-Bench's uniq_id); lm-eval's doc_hash covers the
    # whole document, audio paths included, so runs over two copies of the data would never pair.
    doc = sample.get("doc") or {}
    return f"uniq_id {doc['uniq_id']}" if doc.get("uniq_id") is not None else f"doc {sample['doc_id']}"


def collect(runs: list[Run], wanted: list[str] | None, chosen_by_user: bool = False) -> ModelScores:
    """One model's scores from its runs (newest first: a task is read from the newest run that has it)."""
    scores = ModelScores(runs[0].name)
    tasks, scored = {}, []
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
        # what a benchmark's report hook reads: (run, task, samples, metrics tried, smoke-test note)
        scored.append((run, task, samples, metrics, skipped))
    for benchmark in _reporting_benchmarks():
        part = benchmark.report_module().collect(scored, registry.judge_metrics())
        scores.benchmarks[benchmark.key] = part
        scores.notes += part.notes
    return scores


def _reporting_benchmarks() -> list:
    return [b for b in registry.all_benchmarks() if b.report]


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


SYNTHETIC_TITLE = "synthetic sample, not benchmark data"


def cell(e: dict | None, scale: float = 1.0, digits: int = 1) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{e['value'] * scale:.{digits}f} [{e['low'] * scale:.{digits}f}, {e['high'] * scale:.{digits}f}]"


def markdown(report: dict) -> str:
    lines = []
    for benchmark in _reporting_benchmarks():
        if benchmark.key in report:
            lines += benchmark.report_module().markdown(report[benchmark.key], report["synthetic_sample"])
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
                cells.append(f"{cell(r, 1, 3)} (n={r['n']})")
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
    if any(report.get("sub_categories", {}).values()):
        lines += ["", "## Sub-categories", "", "Each group's accuracy per sub-category over all its tasks, by the "
                  "official rule (official_acc), as the official scripts print it.", "",
                  "| model | group | sub-category | n | official_acc |", "|---|---|---|---|---|"]
        for model, groups in report["sub_categories"].items():
            for group, values in sorted(groups.items()):
                for value, entry in sorted(values.items()):
                    lines.append(f"| {model} | {group} | {value} | {entry['items']} | {entry['accuracy']:.3f} |")
    if report.get("data_sources"):
        lines += ["", "## Data", "", "| model | data | source |", "|---|---|---|"]
        for model, sources in report["data_sources"].items():
            for data, record in sources.items():
                lines.append(f"| {model} | {data} | {data_source_text(record)} |")
    if report["conditions"]:
        lines += ["", "Runs under ablated audio, kept out of the tables above (`diagnose` reads them; its "
                  "diagnose_<date>.md has their scores):"]
        lines += [f"- {name}: " + ", ".join(found) for name, found in report["conditions"].items()]
    if report["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in report["notes"]]
    return "\n".join(lines).lstrip() + "\n"


def data_source_text(record: dict) -> str:
    """One source as a line: ``repo@commit (revision)``, or the local folder and its metadata digest."""
    if "repo_id" in record:
        text = f"{record['repo_id']}@{record['commit']} ({record.get('revision', '')})"
        meta = record.get("metadata")
        if isinstance(meta, dict):  # questions from another file than the repository's (bundled with the task)
            text += f"; questions: {meta.get('file')} from {meta.get('from')}@{str(meta.get('commit'))[:12]}"
        off = record.get("differences_from_metadata") or {}  # what the data said otherwise than those questions
        if off:
            text += "; against them: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in off.items())
        return text
    return f"{record.get('local_folder')} (metadata sha256 {str(record.get('metadata_sha256', ''))[:16]})"


def _sub_categories(runs: list[Run]) -> dict:
    """Each group's official_acc per sub-category (``lm_eval_audio_data.official_breakdown``, pooled over the
    group's tasks when the run was saved); the newest run's wins."""
    found: dict = {}
    for run in reversed(runs):
        breakdowns = (run.results.get("lm_eval_audio_data") or {}).get("official_breakdown") or {}
        for group in run.results.get("group_subtasks") or {}:
            lines = ((breakdowns.get(group) or {}).get("official_acc") or {}).get("sub_category")
            if lines:
                found[group] = lines
    return found


def _data_sources(runs: list[Run]) -> dict:
    found: dict = {}
    for run in reversed(runs):  # the newest run's record wins
        found.update((run.results.get("lm_eval_audio_data") or {}).get("sources") or {})
    return dict(sorted(found.items()))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def plots(report: dict, folder: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    written = []
    names = report["models"]
    panels = []
    for benchmark in _reporting_benchmarks():
        if report.get(benchmark.key):
            panels += benchmark.report_module().panels(report[benchmark.key], names, bool(report["synthetic_sample"]))
    if not panels:
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
        spokes = next((found for b in _reporting_benchmarks() if n in report.get(b.key, {})
                       for found in [b.report_module().radar(report[b.key][n])] if found), None)
        if spokes:
            axes_names, radii = spokes
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


def build(model_runs: list[list[Run]], wanted: list[str] | None, chosen_by_user: bool = False,
          conditions: dict[str, list[str]] | None = None) -> dict:
    models = [collect(runs, wanted, chosen_by_user) for runs in model_runs]
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        # two runs of one model (different dates): tell them apart
        for m, runs in zip(models, model_runs):
            m.name = f"{m.name} ({runs[0].date_id})"
    report = {
        "models": [m.name for m in models],
        "sources": {m.name: [str(run.path) for run in runs] for m, runs in zip(models, model_runs)},
        "data_sources": {m.name: _data_sources(runs) for m, runs in zip(models, model_runs)},
        "sub_categories": {m.name: _sub_categories(runs) for m, runs in zip(models, model_runs)},
        **{b.key: b.report_module().tables({m.name: m.benchmarks[b.key] for m in models})
           for b in _reporting_benchmarks()},
        "tasks": task_table(models),
        "notes": [n for m in models for n in m.notes],
        # per model, the ablated audio conditions it was also run under (diagnose's), kept out of the tables
        "conditions": dict(conditions or {}),
        # models whose items (of a benchmark with report tables) are its bundled synthetic sample's
        "synthetic_sample": [m.name for m in models if any(part.synthetic for part in m.benchmarks.values())],
        "interval": {"level": stats.LEVEL, "bootstrap_iterations": stats.ITERATIONS, "seed": stats.SEED},
    }
    if len(models) == 2:
        report["comparison"] = {"a": models[0].name, "b": models[1].name, "tasks": compare(*models)}
    return report


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="lm-eval-audio report",
        description="Tables (the layouts of the benchmarks' papers, where their folders declare them; per task), "
                    "plots, bootstrap intervals and a paired test, from lm-eval results files written with --log_samples.",
    )
    p.add_argument("results", nargs="+", help="results_<date>.json files, or folders (the newest run in each below)")
    p.add_argument("--output", default="report", help="folder for report.md, report.json and the PNG plots")
    p.add_argument("--metric", default=None,
                   help="comma-separated metrics to try per task, first found wins (default: the headline metrics of "
                        "each task's benchmark, then acc, exact_match)")
    args = p.parse_args(argv)
    try:
        model_runs, conditions = apart_from_conditions(find(args.results))
        for run in (run for runs in model_runs for run in runs):
            if not any(run.samples(t) for t in run.tasks()):
                raise ResultsError(f"{run.path}: no samples_<task>_{run.date_id}.jsonl beside it; the report needs "
                                   "the per-document logs: run lm_eval with --log_samples")
        report = build(model_runs, args.metric.split(",") if args.metric else None, bool(args.metric), conditions)
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
