"""AIR-Bench's tables in ``lm-eval-audio report``: the layout of the paper's Table 3 (foundation speech / sound /
music / average; chat speech / sound / music / mixed / average) and Table 5 (foundation accuracy per task), and
the accuracy per audio folder ``score_foundation.py`` prints, with the benchmark's own averaging rules (Tables 3
and 5, ``cal_score.py``; docs/AIRBENCH.md). Shared code (``lm_eval_audio.analysis.report``) calls the four hooks
below through the benchmark registry: ``collect`` per model, then ``tables``, ``markdown`` and ``panels``/``radar``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_audio.analysis import stats
from lm_eval_audio.analysis.report import cell
from lm_eval_audio.analysis.run_results import ResultsError, item_value
from lm_eval_audio.tasks.airbench.data import CHAT_CATEGORIES, FOUNDATION_CATEGORIES, SYNTHETIC_SAMPLE_DATASET, folder_of

_FOUNDATION_TASK = {t: c for c, tasks in FOUNDATION_CATEGORIES.items() for t in tasks}
_CHAT_TASK = {t: c for c, tasks in CHAT_CATEGORIES.items() for t in tasks}
FOUNDATION_METRICS = ("gpt_align", "exact_match")  # the headline, then the rule-based fallback
SYNTHETIC_TITLE = "synthetic sample, not AIR-Bench data"


@dataclass
class AirBenchScores:
    """One model's AIR-Bench document scores, grouped as the tables need them."""

    # AIR-Bench task name -> document scores
    foundation: dict[str, list[float]] = field(default_factory=dict)
    chat: dict[str, list[float]] = field(default_factory=dict)
    # AIR-Bench audio folder (<task_name>_<dataset_name>, score_foundation.py's task_id) -> document scores
    foundation_folders: dict[str, list[float]] = field(default_factory=dict)
    foundation_metric: str | None = None
    notes: list[str] = field(default_factory=list)
    synthetic: bool = False  # scored on the bundled synthetic sample, not on AIR-Bench data


def _airbench_value(sample: dict, metrics) -> tuple[str, float | None] | None:
    for metric in metrics:
        try:
            return metric, item_value(sample, metric)
        except KeyError:
            continue
    return None


def collect(tasks: list, judge_metrics: tuple[str, ...]) -> AirBenchScores:
    """The AIR-Bench documents among one model's scored tasks (``report.TaskSamples``: run, task, samples, the
    metrics tried and whether the smoke-test judge's were skipped)."""
    scores = AirBenchScores()
    unscored, run = 0, None
    for run, _task, samples, metrics, skipped in tasks:
        airbench_metrics = [m for m in FOUNDATION_METRICS if m in metrics or m not in judge_metrics]
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


def tables(models: dict[str, AirBenchScores]) -> dict:
    out = {}
    for name, m in models.items():
        entry = {}
        if m.foundation:
            entry["foundation_metric"] = m.foundation_metric
            entry["foundation"] = _estimates(m.foundation, foundation_statistics(list(m.foundation)))
            entry["foundation_tasks"] = _per_group_means(m.foundation)
            entry["foundation_folders"] = _per_group_means(m.foundation_folders)
        if m.chat:
            entry["chat"] = _estimates(m.chat, chat_statistics(list(m.chat)))
        if entry:
            out[name] = entry
    return out


def markdown(air: dict, synthetic: list[str]) -> list[str]:
    lines = []
    benchmark = f"AIR-Bench scoring on the {SYNTHETIC_TITLE}" if synthetic else "AIR-Bench"
    if synthetic:
        lines += [f"**Synthetic sample**: {', '.join(synthetic)} scored the bundled synthetic sample in AIR-Bench's "
                  "layout (tasks/airbench/sample_data), not AIR-Bench data. Its numbers check the pipeline; they are "
                  "not AIR-Bench scores.", ""]
    if air:
        f_cols, c_cols = ["speech", "sound", "music", "average"], ["speech", "sound", "music", "mixed", "average"]
        lines += [f"## {benchmark}: layout of Table 3", "",
                  "Foundation: accuracy in %, as the paper averages it: each category the mean of its tasks' "
                  "accuracies, the average the mean of the categories (lm-eval's table gives the mean over items); "
                  "chat: judge score 1-10 (GPT-4-style pairwise, mean of both orders), its mixed category the mean "
                  "of its tasks' means. 95% bootstrap intervals in brackets.", "",
                  "| model | " + " | ".join(f"foundation {c}" for c in f_cols) + " | "
                  + " | ".join(f"chat {c}" for c in c_cols) + " |",
                  "|---|" + "---|" * (len(f_cols) + len(c_cols))]
        for name, e in air.items():
            f = e.get("foundation", {})
            c = e.get("chat", {})
            lines.append(f"| {name} | " + " | ".join(cell(f.get(col), 100) for col in f_cols) + " | "
                         + " | ".join(cell(c.get(col), 1, 2) for col in c_cols) + " |")
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
                             + " | ".join(cell(air[n].get("foundation_tasks", {}).get(t), 100) for n in names) + " |")
            folders = sorted({f for e in air.values() for f in e.get("foundation_folders", {})})
            lines += ["", f"## {benchmark}: foundation per audio folder (score_foundation.py's task_dataset), accuracy %",
                      "", "A task pools its folders (datasets); the official script prints each. n = documents scored "
                      f"by the foundation metric ({', '.join(sorted(metrics)) or 'as above'}): exact_match and gpt_align "
                      "count an answer they cannot read as wrong, where the results' exact_match_official and "
                      "gpt_align_official (the official script's numbers) leave it out, so their n can be smaller.",
                      "", "| folder | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
            for f in folders:
                cells = [air[n].get("foundation_folders", {}).get(f) for n in names]
                lines.append(f"| {f} | " + " | ".join(f"{cell(c, 100)} (n={c['n']})" if c else "–" for c in cells)
                             + " |")
    return lines


def panels(air: dict, names: list[str], synthetic: bool) -> list[tuple]:
    """The bar panels of categories.png: (title, columns, scale, axis label, {model: {column: estimate}})."""
    out = []
    for track, cols, scale, label in (("foundation", ["speech", "sound", "music", "average"], 100, "accuracy %"),
                                      ("chat", ["speech", "sound", "music", "mixed", "average"], 1, "score (1-10)")):
        if any(track in e for e in air.values()):
            out.append((f"AIR-Bench {track}" + (f"\n{SYNTHETIC_TITLE}" if synthetic else ""), cols, scale, label,
                        {n: air.get(n, {}).get(track, {}) for n in names}))
    return out


def radar(entry: dict) -> tuple[list[str], list[float]] | None:
    """A model's radar spokes: its foundation accuracy per task, in %."""
    if not entry.get("foundation_tasks"):
        return None
    names = list(entry["foundation_tasks"])
    return names, [entry["foundation_tasks"][t]["value"] * 100 for t in names]
