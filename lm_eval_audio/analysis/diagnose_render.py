"""diagnose's output: the per-task table, the paper's per-benchmark tables, and the plot."""

from __future__ import annotations

from lm_eval_audio.analysis.diagnose_scores import CLASSES, DEFAULT_FRAGMENTS, TaskDiagnosis, fragment_counts, mean

# The columns a run has only with their condition: (attribute, table head, paper-table head, plot label, legend)
_OPTIONAL = (
    ("acc_text_backbone", "Acc_TB", "TB", "text backbone",
     "Acc_TB: the model's text LLM alone, given the same prompts without the audio; "),
    ("acc_text", "Acc_text", "Text", "text in place of the audio",
     "Acc_text: the model given the text said in each clip in place of the clip (where the benchmark publishes "
     "that text); "),
)


def _optional(rows: list[TaskDiagnosis]) -> list[tuple]:
    return [c for c in _OPTIONAL if any(getattr(r, c[0]) is not None for r in rows)]


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def table(rows: list[TaskDiagnosis], fragments) -> str:
    ns = fragment_counts(fragments)
    optional = _optional(rows)
    # One N: each fragment's accuracy, then R_N; several: R_N per N (every fragment's accuracy is in the JSON).
    per_fragment = [f"frag {k}/{ns[0]}" for k in range(1, ns[0] + 1)] if len(ns) == 1 else []
    head = ["task", "metric (right if >=)", "n", "Acc_full", "Acc_none", *(c[1] for c in optional),
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
                 *(_fmt(getattr(r, c[0])) for c in optional), _fmt(r.r_tp), *fragment_cells,
                 *(_fmt(r.retention[n]) for n in ns),
                 *(str(r.classes[c]) for c in CLASSES), str(r.unscored), _fmt(r.xs_share)]
        lines.append("| " + " | ".join(cells) + " |")
    over = f"N = {', '.join(map(str, ns))}: {sum(ns)} fragment runs" + (
        "" if ns == list(DEFAULT_FRAGMENTS) else f" (the paper's FS and XS use N = 2, 3, 4 and 5: "
                                                 f"--fragments {','.join(map(str, DEFAULT_FRAGMENTS))})")
    legend = (
        "\nR_TP = Acc_none / Acc_full (the text prior's share of the score); "
        + "".join(c[4] for c in optional)
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
    optional = _optional(rows)
    head = ["benchmark", "metric", "n", "Full", "None", *(c[2] for c in optional), "R_TP",
            *(f"R_{n}" for n in ns), *(f"{c} %" for c in CLASSES), "XS/(FS+XS) %"]
    lines = ["", "Per benchmark, in the layout of arXiv 2604.24401's tables (accuracies and R_N in %; classes as % "
             "of the classified documents):", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        classified = sum(r.classes.values())
        shares = [_pct(r.classes[c] / classified) if classified else "n/a" for c in CLASSES]
        cells = [r.task, r.metric, str(r.n), _pct(r.acc_full), _pct(r.acc_none),
                 *(_pct(getattr(r, c[0])) for c in optional), _fmt(r.r_tp, 2),
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
    optional = _optional(rows)
    labels = ["full", "none", *(c[3] for c in optional),
              *(f"mean of the {n} fragments" for n in ns)]
    y = np.arange(len(rows))
    height = 0.8 / len(labels)

    def bars(r):
        means = [mean(r.acc_fragments[n]) if None not in r.acc_fragments[n] else None for n in ns]
        extra = [getattr(r, c[0]) for c in optional]
        return [np.nan if v is None else v for v in [r.acc_full, r.acc_none, *extra, *means]]

    values = [bars(r) for r in rows]
    for i, label in enumerate(labels):
        left.barh(y + i * height, [v[i] for v in values], height, label=label)
    left.set_yticks(y + 0.4 - height / 2, [f"{r.task}\n({r.metric})" for r in rows])
    left.invert_yaxis()
    left.set_xlabel("score under each condition")
    left.legend(fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0))
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
    # every class in one row above the bars; the saved image is grown to hold the legends (none is cut off)
    right.legend(ncol=len(CLASSES), fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
