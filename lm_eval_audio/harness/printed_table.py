"""The table lm-eval prints (``lm_eval.utils.make_table``), with what each number is said where it stands: each row
named by its task's whole name, a synthetic sample's marked; counts apart, as integers; rates without an arrow; every
number's scale; the smoke-test judge's numbers marked; under the table, why each NaN is one and what a row's numbers
are where they could be misread. Only the printed copy changes: the results JSON keeps every number where it was."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_spec import is_sample_task
from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.harness.task_building import PARTIAL_COUNTS, PARTIAL_MARK
from lm_eval_audio.harness.wrapping import wrap
from lm_eval_audio.metrics.scales import FRACTION_OF_ONE, scale_of, with_scale

def row_label(task: str) -> str:
    """A row of ours as the printed table names it: the task's whole name, which names its benchmark (its YAML's
    alias may not: MMAU's "sound"), marked where its data is a bundled synthetic sample (``*_sample``)."""
    return f"{task} (synthetic sample)" if is_sample_task(task) else task


def table_view(result_dict: dict, column: str) -> tuple[dict, dict[str, dict[str, int]]]:
    """What lm-eval's printed table shows for our tasks, and their counts apart: ``{shown name: {count metric:
    items}}``, ``failed_items`` (the documents whose request failed for good) included. Rates are named as
    such, without ↑/↓. Only the printed copy changes; the results JSON keeps every number where it was."""
    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.model_wrappers.failed_requests import failed_documents

    rows = result_dict.get(column)
    if not isinstance(rows, dict):
        return result_dict, {}
    ours, groups = our_task_names(), set(result_dict.get("group_subtasks") or {})
    failed = failed_documents(result_dict)  # documents: a multiple-choice item once, however many choices failed
    view, counts = {}, {}
    count_metrics, rate_metrics = registry.count_metrics(), registry.rate_metrics()
    smoke_judged, judge_metrics = smoke_judged_rows(result_dict), registry.judge_metrics()
    bundled = bundled_recognizer_rows(result_dict)
    metric_scales = registry.scales()
    arrows = {k: dict(v) for k, v in (result_dict.get("higher_is_better") or {}).items()}
    for task, metrics in rows.items():
        if task not in ours or not isinstance(metrics, dict):
            view[task] = metrics
            if task in failed and isinstance(metrics, dict):  # a user's own task run with one of our models
                counts[str(metrics.get("alias", task)).strip(" -")] = {"failed_items": len(failed[task])}
            continue
        metrics = dict(metrics)
        # a task's own alias ("sound") names no benchmark; a partial group's mark stays
        metrics["alias"] = row_label(task) + "".join(PARTIAL_MARK.findall(str(metrics.get("alias", ""))))
        counted = {} if task in groups else {"failed_items": len(failed.get(task, ()))}
        for key, value in list(metrics.items()):
            name = key.partition(",")[0]
            if name.removesuffix("_stderr") in count_metrics:
                value = metrics.pop(key)
                if name in count_metrics and isinstance(value, (int, float)) and value == value:
                    counted[name] = int(value)
            elif task in smoke_judged and _judge_derived(name, judge_metrics) and isinstance(value, (int, float)):
                # where the number is, as PARTIAL is: the bundled 135M judge checks the pipeline, not the answers
                metrics[key] = ("NaN (smoke-test judge)" if value != value else
                                with_scale(value, scale_of(name, metric_scales) or FRACTION_OF_ONE, "smoke-test judge"))
            elif isinstance(value, float) and value != value and not name.endswith("_stderr"):
                metrics[key] = "NaN"  # as lm-eval prints it in a column of numbers (a stderr it formats itself)
            elif name in PARTIAL_COUNTS and isinstance(value, (int, float)):
                metrics[key] = str(int(value))  # tasks, not a score
            elif name in rate_metrics and isinstance(value, (int, float)) and not isinstance(value, bool):
                metrics[key] = f"{value:.4f} ({rate_metrics[name]}{'; ' + BUNDLED if task in bundled else ''})"
                arrows.setdefault(task, {})[name] = None
            elif "," in key and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and not name.endswith("_stderr"):  # a metric (lm-eval's "<metric>,<filter>"), not sample_len
                # a task answered in speech scored through the bundled tiny.en: every number read its transcripts
                metrics[key] = with_scale(value, scale_of(name, metric_scales) or FRACTION_OF_ONE,
                                          BUNDLED if task in bundled else "")
        view[task] = metrics
        if counted:
            counts[str(metrics.get("alias", task)).strip(" -")] = counted
    return {**result_dict, column: view, "higher_is_better": arrows}, counts


BUNDLED = "bundled recognizer"


def bundled_recognizer_rows(result_dict: dict) -> set[str]:
    """The tasks answered in speech whose answers the bundled offline recognizer transcribed, and their groups."""
    spoken = result_dict.get("lm_eval_audio_spoken") or {}
    return with_their_groups({task for task, entry in spoken.items() if (entry.get("recognizer") or {}).get("bundled")},
                             result_dict)


def _judge_derived(metric: str, judge_metrics) -> bool:
    """A judge's metric, or one read off its verdicts (``gpt_align_official``: the official reading of the same
    judge's replies)."""
    return not metric.endswith("_stderr") and any(metric == m or metric.startswith(f"{m}_") for m in judge_metrics)


def nan_reasons(result_dict: dict, column: str) -> str:
    """Under the table, a line for each NaN of our tasks in it: task, metric, why and what to do (the reason its
    aggregation gave, as the results file keeps it beside the null)."""
    from lm_eval_audio.harness.run_patches import null_reasons_of
    from lm_eval_audio.storage import strict_json

    reasons = null_reasons_of(result_dict)
    members = result_dict.get("group_subtasks") or {}
    ours, lines = our_task_names(), []
    for task, metrics in (result_dict.get(column) or {}).items():
        if task not in ours or not isinstance(metrics, dict):
            continue
        for key, value in metrics.items():
            name = key.partition(",")[0]
            if isinstance(value, float) and value != value and not name.endswith("_stderr"):
                why = strict_json.reason_for((column, task, key), reasons, members).removeprefix("not a number: ")
                lines.append(f"  {task} {name}: {why}")
    if not lines:
        return ""
    return "NaN in the table above, why:\n" + "\n".join(lines) + "\n"


def row_notes(result_dict: dict, column: str) -> str:
    """Under the table, what a row's numbers are where they could be misread (each benchmark's ``row_notes``: a
    reading that scores an unread answer by a fallback, a score that is 0 by its reference's rule), a line each."""
    from lm_eval_audio.benchmarks import registry

    ours, groups, lines = our_task_names(), set(result_dict.get("group_subtasks") or {}), []
    for task, metrics in (result_dict.get(column) or {}).items() if column == "results" else ():
        if task in groups:  # a group's numbers pool its tasks', whose rows say it
            continue
        benchmark = registry.of_task(task) if task in ours and isinstance(metrics, dict) else None
        if benchmark is None or benchmark.row_notes is None:
            continue
        values = {}
        for key, value in metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
                values.setdefault(key.partition(",")[0], value)
        lines += [f"  {row_label(task)}: {note}" for note in benchmark.row_notes(task, values)]
    return "What the rows above are:\n" + "\n".join(lines) + "\n" if lines else ""


def smoke_judged_rows(result_dict: dict) -> set[str]:
    """The tasks whose judge metrics the bundled smoke-test judge gave, and the groups holding one of them."""
    from lm_eval_audio.judges.smoke_test_judge import judged_by_it

    return with_their_groups({task for task in result_dict.get("lm_eval_audio_judge") or {}
                              if judged_by_it(result_dict, task)}, result_dict)


def with_their_groups(rows: set[str], result_dict: dict) -> set[str]:
    """``rows`` and every group holding one of them, however deep."""
    members = result_dict.get("group_subtasks") or {}

    def holds_one(group: str) -> bool:
        return any(m in rows or (m in members and m != group and holds_one(m)) for m in members.get(group, ()))

    return rows | {group for group in members if holds_one(group)}


def counts_table(counts: dict[str, dict[str, int]]) -> str:
    from lm_eval_audio.benchmarks import registry

    names = [m for m in registry.count_metrics() if any(m in c for c in counts.values())]
    lines = ["Counts per task (items, not scores):", "|Task|" + "|".join(names) + "|",
             "|---|" + "---:|" * len(names)]
    lines += [f"|{task}|" + "|".join(str(c[m]) if m in c else "–" for m in names) + "|" for task, c in counts.items()]
    failed = {task: c["failed_items"] for task, c in counts.items() if c.get("failed_items")}
    if failed:
        lines.append(
            f"failed_items: {sum(failed.values())} item(s) in {', '.join(failed)} whose request failed for good were "
            "scored wrong (multiple choice: no right choice counts as picked, in every metric; generation: the "
            "empty answer, which the task's metric scores) and stay in the denominator (the reasons: "
            "lm_eval_audio_data.failed_requests in the results; a re-run with --use_cache asks only these again)"
        )
    return "\n".join(lines) + "\n"


def table_notes(result_dict: dict, column: str) -> str:
    """What the benchmarks of the table's tasks say of its numbers (their ``table_note``), a line each."""
    from lm_eval_audio.benchmarks import registry

    ours = our_task_names()
    benchmarks = {registry.of_task(t) for t in result_dict.get(column) or {} if t in ours} - {None}
    notes = sorted({b.table_note for b in benchmarks if b.table_note})
    return "".join(f"{note}\n" for note in notes)


def on_utils(module) -> None:
    def make(original):
        def make_table(result_dict, column: str = "results", *args, **kwargs):
            view, counts = table_view(result_dict, column)
            table = (original(view, column, *args, **kwargs) + nan_reasons(result_dict, column)
                     + row_notes(result_dict, column))
            if counts:
                table += "\n" + counts_table(counts)
            return table + table_notes(result_dict, column) if column == "results" else table

        return make_table

    wrap(module, "make_table", make)
