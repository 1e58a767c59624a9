"""``lm-eval-audio report``: tables, plots, confidence intervals and a paired test over
lm-eval results files.

    lm-eval-audio report results/ --output report/
    lm-eval-audio report runA/results_X.json runB/results_Y.json --output report/   # A against B

Every number comes from the per-document sample logs (``--log_samples``), so each has a
95% bootstrap interval (``lm_eval_audio.analysis.stats``):

* a benchmark whose folder declares report tables (``report`` in its ``benchmark.py``; AIR-Bench's
  Tables 3 and 5, ``tasks/airbench/report.py``) gets them, laid out as its paper's, above the rest;
* every task gets a row in the per-task table (its headline metric, as ``diagnose``
  chooses it, or ``--metric``'s; an error rate, lower is better, as the corpus rate in %);
* with two runs, a paired test on the documents both scored: the difference, its paired
  bootstrap interval and a sign-flip permutation p-value;
* PNG plots: grouped bars per category (or per task) with the intervals, and a radar per model;
* which run a task was read from where a model's folder holds several runs of it;
* where each run's data came from (``lm_eval_audio_data.sources``, one record per set of files read): a Hub
  repository at its commit, or a local folder and one digest of the files read from it;
* tasks answered in speech: their headline beside how the answers were said and how they sound, and
  ``answers.html``, a page that plays the first answers of each (``spoken_report``).

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

import numpy as np

from lm_eval_audio.analysis import spoken_report, stats
from lm_eval_audio.analysis.run_results import (
    ResultsError,
    Run,
    TaskScore,
    apart_from_conditions,
    find,
    first_filter,
    metrics_to_try,
    score_task,
)
from lm_eval_audio.benchmarks import registry


@dataclass
class ModelScores:
    """One run's per-document scores, per task, and what each benchmark's report hook made of them."""

    name: str
    tasks: dict[str, TaskScore] = field(default_factory=dict)  # lm-eval task -> what it is read by
    notes: list[str] = field(default_factory=list)
    # tasks run more than once in the model's folder: {"tasks", "read" (results file), "not_read" (older files)}
    runs_not_read: list[dict] = field(default_factory=list)
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
    for task, (run, _reported) in sorted(tasks.items()):
        samples = first_filter(run.samples(task))
        if not samples:
            continue  # a group, or a run without --log_samples
        metrics, skipped = metrics_to_try(run.results, task, wanted, chosen_by_user)
        if skipped:
            scores.notes.append(f"{run.name} / {task}: {skipped}")
        scores.tasks[task] = score = score_task(run, task, samples, metrics, _doc_key)
        if score.why:
            scores.notes.append(f"{run.name} / {task}: no per-document score ({score.why})")
        if run.not_read.get(task):
            read, older = str(run.path), [str(p) for p in run.not_read[task]]
            entry = next((e for e in scores.runs_not_read if (e["read"], e["not_read"]) == (read, older)), None)
            if entry is None:
                scores.runs_not_read.append(entry := {"tasks": [], "read": read, "not_read": older})
            entry["tasks"].append(task)
        # what a benchmark's report hook reads: (run, task, samples, metrics tried, smoke-test note)
        scored.append((run, task, samples, metrics, skipped))
    for benchmark in _reporting_benchmarks():
        part = benchmark.report_module().collect(scored, registry.judge_metrics())
        scores.benchmarks[benchmark.key] = part
        scores.notes += part.notes
    return scores


def _reporting_benchmarks() -> list:
    return [b for b in registry.all_benchmarks() if b.report]


def rate_interval(errors: list, units: list, iterations: int = stats.ITERATIONS) -> tuple[float, float]:
    """The percentile interval of a corpus rate, sum(errors) / sum(units), documents resampled: both sums are drawn
    with one seed, so each replicate's two sums are over the same resampled documents."""
    e = stats.resampled_sums(np.asarray(errors, dtype=float), iterations, stats.SEED)
    u = stats.resampled_sums(np.asarray(units, dtype=float), iterations, stats.SEED)
    return stats.interval(e[u > 0] / u[u > 0])


def task_table(models: list[ModelScores]) -> dict:
    out = {}
    for m in models:
        for task, t in m.tasks.items():
            keys = [k for k, v in t.values.items() if v is not None]
            row = {"metric": t.metric, "reported": t.reported, "n": len(keys)}
            if t.metric:
                row.update(higher_is_better=t.higher_is_better, printed_as_percent=t.percent,
                           statistic="corpus rate" if t.units is not None else "mean" if keys else "as reported")
            if t.units is not None and sum(t.units[k] for k in keys):
                errors, units = [t.values[k] for k in keys], [t.units[k] for k in keys]
                low, high = rate_interval(errors, units)
                row.update(value=sum(errors) / sum(units), low=low, high=high)
            elif keys and t.units is None:
                scored = [t.values[k] for k in keys]
                low, high = stats.mean_interval(scored)
                row.update(value=sum(scored) / len(scored), low=low, high=high)
            out.setdefault(task, {})[m.name] = row
    return out


def compare(a: ModelScores, b: ModelScores) -> dict:
    out = {}
    for task in sorted(set(a.tasks) & set(b.tasks)):
        ta, tb = a.tasks[task], b.tasks[task]
        if not ta.values or not tb.values:
            out[task] = {"note": "not compared: no per-document score in " + ("either run" if ta.values == tb.values
                         else f"{a.name if not ta.values else b.name}")}
            continue
        if (ta.metric, ta.units is None) != (tb.metric, tb.units is None):
            out[task] = {"note": f"not compared: scored by {ta.metric} in one run and {tb.metric} in the other"
                         if ta.metric != tb.metric else f"not compared: {ta.metric} is recounted in one run only"}
            continue
        shared = [k for k in ta.values if k in tb.values and ta.values[k] is not None and tb.values[k] is not None
                  and (ta.units is None or ta.units[k] == tb.units[k])]  # a rate: the same reference in both
        if not shared:
            out[task] = {"note": "not compared: no document scored by both"}
            continue
        a_values, b_values = [ta.values[k] for k in shared], [tb.values[k] for k in shared]
        result = stats.paired(a_values, b_values)
        if ta.units is not None:  # the difference of the two corpus rates; the sign-flip test is the same
            units = [ta.units[k] for k in shared]
            differences = [x - y for x, y in zip(a_values, b_values)]
            if not sum(units):
                out[task] = {"note": "not compared: the documents both scored have no reference words or characters"}
                continue
            low, high = rate_interval(differences, units)
            result.update(difference=sum(differences) / sum(units), low=low, high=high)
        out[task] = {"metric": ta.metric, "higher_is_better": ta.higher_is_better, "printed_as_percent": ta.percent,
                     **result}
    return out


# --- rendering ---------------------------------------------------------------------------


SYNTHETIC_TITLE = "synthetic sample, not benchmark data"


def cell(e: dict | None, scale: float = 1.0, digits: int = 1) -> str:
    if not e or e.get("value") is None:
        return "–"
    return f"{e['value'] * scale:.{digits}f} [{e['low'] * scale:.{digits}f}, {e['high'] * scale:.{digits}f}]"


def metric_label(row: dict) -> str:
    """The metric as the tables name it, with its scale and direction where they are not a plain higher-is-better
    number: ``wer (%, lower is better)``."""
    said = [s for s in ("%" if row.get("printed_as_percent") else "", "" if row.get("higher_is_better", True)
                        else "lower is better") if s]
    return f"{row['metric']} ({', '.join(said)})" if said else row["metric"]


def _task_cell(r: dict) -> str:
    scale, digits = (100, 2) if r.get("printed_as_percent") else (1, 3)
    if "value" in r:
        return f"{cell(r, scale, digits)} (n={r['n']})"
    if r.get("reported") is not None:
        return f"{r['reported'] * scale:.{digits}f} (as reported; no interval)"
    return "no per-document score"


def markdown(report: dict) -> str:
    lines = []
    for benchmark in _reporting_benchmarks():
        if benchmark.key in report:
            lines += benchmark.report_module().markdown(report[benchmark.key], report["synthetic_sample"])
    names = report["models"]
    rows = [r for per_model in report["tasks"].values() for r in per_model.values() if r.get("metric")]
    lines += ["", "## Per task", "", "Headline metric per task, mean over documents [95% bootstrap interval]; "
              "n = documents scored."]
    if any(r["statistic"] == "corpus rate" for r in rows):
        lines[-1] += (" An error rate (%) is the corpus rate, the errors over the reference words or characters of "
                      "the documents scored, recounted from the logged answers; its interval resamples documents.")
    lines += ["",
              "| task | metric | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for task, per_model in report["tasks"].items():
        labels = list(dict.fromkeys(metric_label(r) for r in per_model.values() if r["metric"]))
        cells = [_task_cell(per_model[n]) if n in per_model else "–" for n in names]
        lines.append(f"| {task} | {' / '.join(labels) or '–'} | " + " | ".join(cells) + " |")
    lines += spoken_report.markdown(report.get("spoken") or {}, {
        task: {n: f"{metric_label(r)} {_task_cell(r)}" for n, r in per_model.items() if r.get("metric")}
        for task, per_model in report["tasks"].items()})
    if report.get("comparison"):
        a, b = report["comparison"]["a"], report["comparison"]["b"]
        lines += ["", f"## Paired comparison: {a} minus {b}", "",
                  "Same documents only; difference of means, its paired bootstrap 95% interval, and a two-sided "
                  "sign-flip permutation p-value (10,000 permutations). For a metric marked lower is better, a "
                  f"negative difference means {a} is better; an error rate's is the difference of the corpus rates, in "
                  "percentage points.", "",
                  "| task | metric | n | difference | 95% interval | p |", "|---|---|---|---|---|---|"]
        for task, r in report["comparison"]["tasks"].items():
            if "note" in r:
                lines.append(f"| {task} | – | – | {r['note']} | | |")
            else:
                k, d = (100, 2) if r.get("printed_as_percent") else (1, 3)
                lines.append(f"| {task} | {metric_label(r)} | {r['n']} | {r['difference'] * k:+.{d}f} | "
                             f"[{r['low'] * k:+.{d}f}, {r['high'] * k:+.{d}f}] | {r['p_value']:.4f} |")
    if any(report.get("sub_categories", {}).values()):
        lines += ["", "## Sub-categories", "", "Each group's accuracy per sub-category over all its tasks, by the "
                  "official rule (official_acc), as the official scripts print it.", "",
                  "| model | group | sub-category | n | official_acc |", "|---|---|---|---|---|"]
        for model, groups in report["sub_categories"].items():
            for group, values in sorted(groups.items()):
                for value, entry in sorted(values.items()):
                    lines.append(f"| {model} | {group} | {value} | {entry['items']} | {entry['accuracy']:.3f} |")
    if any(report.get("data_sources", {}).values()):
        lines += ["", "## Data", "", "| model | data | source |", "|---|---|---|"]
        for model, sources in report["data_sources"].items():
            for data, record in sources.items():
                lines.append(f"| {model} | {data} | {data_source_text(record)} |")
    if report["conditions"]:
        lines += ["", "Runs under ablated audio, kept out of the tables above (`diagnose` reads them; its "
                  "diagnose_<date>.md has their scores):"]
        lines += [f"- {name}: " + ", ".join(found) for name, found in report["conditions"].items()]
    if report.get("runs_not_read"):
        lines += ["", "## Runs read", "", "A task run more than once in a model's folder is read from its newest run "
                  "only. To report another run, pass its results file (beside the folder, it is a model of its own, "
                  "compared with the folder's when they are the only two)."]
        for model, entries in report["runs_not_read"].items():
            for e in entries:
                older = e["not_read"]
                lines.append(f"- {model}: {', '.join(e['tasks'])}: read from {e['read']}; not read: {', '.join(older)} "
                             f"(to report {'it' if len(older) == 1 else 'one'}: `lm-eval-audio report {older[0]}`)")
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
    if not record.get("metadata_sha256"):  # no file was read, so no digest was made
        return f"{record.get('local_folder')} (no file read)"
    return f"{record.get('local_folder')} (metadata sha256 {str(record['metadata_sha256'])[:16]})"


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
    if not panels:  # a lower-is-better metric's bars say so under them
        tasks = {t: t + ("\n(lower is better)" if any(not r.get("higher_is_better", True) for r in rows.values())
                         else "") for t, rows in report["tasks"].items()}
        fractions = any(r.get("printed_as_percent") for rows in report["tasks"].values() for r in rows.values())
        panels.append(("per task", list(tasks.values()), 1, "headline metric" + (" (error rates as fractions)"
                                                                                  if fractions else ""),
                       {n: {label: report["tasks"][t].get(n) for t, label in tasks.items()} for n in names}))
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
        left_out = ""
        spokes = next((found for b in _reporting_benchmarks() if n in report.get(b.key, {})
                       for found in [b.report_module().radar(report[b.key][n])] if found), None)
        if spokes:
            axes_names, radii = spokes
        else:  # outward is better on every spoke: a lower-is-better metric has no spoke
            scored = [t for t, r in report["tasks"].items() if r.get(n, {}).get("value") is not None]
            axes_names = [t for t in scored if report["tasks"][t][n]["higher_is_better"]]
            radii = [report["tasks"][t][n]["value"] for t in axes_names]
            if len(axes_names) < len(scored):
                left_out = ("; left out, as lower is better and outward is better on its spokes: "
                            + ", ".join(t for t in scored if t not in axes_names))
        if len(axes_names) < 3:
            report["notes"].append(f"{n}: no radar plot (needs 3 or more tasks, has {len(axes_names)}{left_out})")
            continue
        if left_out:
            report["notes"].append(f"{n}: the radar plot{left_out}")
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
        # per model, the tasks its folder holds more than one run of: the results file read, the older ones not
        "runs_not_read": {m.name: m.runs_not_read for m in models if m.runs_not_read},
        # per model, the ablated audio conditions it was also run under (diagnose's), kept out of the tables
        "conditions": dict(conditions or {}),
        # models whose items (of a benchmark with report tables) are its bundled synthetic sample's
        "synthetic_sample": [m.name for m in models if any(part.synthetic for part in m.benchmarks.values())],
        "interval": {"level": stats.LEVEL, "bootstrap_iterations": stats.ITERATIONS, "seed": stats.SEED},
        # tasks answered in speech: their spoken metrics per model (spoken_report)
        "spoken": spoken_report.collect(model_runs, [m.name for m in models]),
    }
    if len(models) == 2:
        report["comparison"] = {"a": models[0].name, "b": models[1].name, "tasks": compare(*models)}
    return report


def with_samples(model_runs: list[list[Run]]) -> list[list[Run]]:
    """The runs that logged their samples: one without (run without ``--log_samples``) is skipped with a note; none
    with is an error."""
    kept, skipped = [], []
    for runs in model_runs:
        logged = [run for run in runs if any(run.samples(t) for t in run.tasks())]
        skipped += [run for run in runs if run not in logged]
        if logged:
            kept.append(logged)
    for run in skipped:
        sys.stderr.write(f"report: skipped {run.path}: no samples_<task>_{run.date_id}.jsonl beside it (the report "
                         "reads the per-document logs: run lm_eval with --log_samples to include it)\n")
    if not kept:
        raise ResultsError(f"{', '.join(str(r.path) for r in skipped)}: no samples_<task>_<date>.jsonl beside "
                           f"{'it' if len(skipped) == 1 else 'them'}; the report needs the per-document logs: run "
                           "lm_eval with --log_samples")
    return kept


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
    p.add_argument("--answers", type=int, default=5, metavar="N",
                   help="answers.html plays the spoken answers of the first N documents of each task answered in "
                        "speech, with their transcripts and scores (default 5; 0: no page)")
    args = p.parse_args(argv)
    try:
        model_runs, conditions = apart_from_conditions(find(args.results))
        model_runs = with_samples(model_runs)
        report = build(model_runs, args.metric.split(",") if args.metric else None, bool(args.metric), conditions)
    except ResultsError as e:
        sys.exit(f"report: {e}")
    os.makedirs(args.output, exist_ok=True)
    written = plots(report, args.output)
    page = spoken_report.answers_page(model_runs, report["models"], args.output, args.answers) if args.answers > 0 \
        else None
    written += [page] if page else []
    text = markdown(report)
    with open(os.path.join(args.output, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(args.output, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    sys.stdout.write(text)
    sys.stdout.write(f"\nWritten: {os.path.join(args.output, 'report.md')}, report.json, "
                     + ", ".join(os.path.basename(w) for w in written) + "\n")
