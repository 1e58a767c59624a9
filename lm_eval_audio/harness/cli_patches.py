"""The command line: the plugin's errors as one line and exit status 2, the data checked before the model loads
(``lm_eval.__main__``), and the printed table with our counts apart (``lm_eval.utils``); the module docstring
of ``lm_eval_audio.harness.patches`` says what each does and why."""

from __future__ import annotations

import os
import re
import sys

from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.endpoints.model_args import refuse_secrets
from lm_eval_audio.harness import targets
from lm_eval_audio.model_wrappers.registry import MODELS
from lm_eval_audio.harness.wrapping import wrap


# --- lm_eval.__main__ -------------------------------------------------------------------


def _raised_by_plugin(e: BaseException) -> bool:
    """The plugin's own errors (bad data, a missing judge, an unreadable clip, a wrong model argument) name
    the file or setting and the fix: its exception classes, and a ValueError raised in its own code."""
    if type(e).__module__.startswith("lm_eval_audio"):
        return True
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return (isinstance(e, ValueError) and tb is not None
            and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("lm_eval_audio"))


def _argv_value(flag: str) -> str | None:
    argv = sys.argv
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def _unknown_tasks_message(specs: list[str]) -> str:
    import difflib

    from lm_eval.tasks import TaskManager

    names = TaskManager(include_path=_argv_value("--include_path")).all_tasks
    parts = []
    for spec in specs:
        close = difflib.get_close_matches(spec, names, 5, 0.6)
        parts.append(f"unknown task {spec!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return "; ".join(parts) + " (`lm_eval ls tasks` lists every task; --include_path adds a folder of YAMLs)"


def _unknown_model_message(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, 3, 0.6)
    return (f"unknown model {name!r}" + (f"; did you mean {', '.join(close)}?" if close else "") +
            f" (the plugin's audio models: {', '.join(MODELS)}; lm-eval's text models include hf, vllm, "
            f"local-chat-completions: {len(known)} names in all)")


def user_error_message(e: BaseException) -> str | None:
    """One line for an error a user can fix, or None for one that needs its traceback (a bug)."""
    if _raised_by_plugin(e):
        return str(e)
    text = str(e)
    # lm-eval 0.4.13's own messages for the two commonest mistakes, with what to do instead
    unknown = re.search(r"Spec '(.+?)' " + re.escape(targets.UNKNOWN_SPEC), text)
    if isinstance(e, KeyError) and unknown:
        return _unknown_tasks_message([unknown.group(1)])
    if isinstance(e, ValueError) and text.startswith(targets.TASKS_NOT_FOUND):
        return _unknown_tasks_message(text.removeprefix(targets.TASKS_NOT_FOUND).split(", "))
    model = re.search(r"model '(.+?)', " + re.escape(targets.UNKNOWN_MODEL) + r"[^:]*: (.*)", text)
    if isinstance(e, ValueError) and model:
        return _unknown_model_message(model.group(1), [n.strip() for n in model.group(2).split(",") if n.strip()])
    if isinstance(e, ValueError) and text == targets.NO_DOCS:
        return (f"a task has no documents to run{' with --limit ' + _argv_value('--limit') if _argv_value('--limit') else ''}"
                ": give --limit N with N of 1 or more (or a fraction above 0), or leave it out for every document")
    multimodal = re.search(r"Attempted to run tasks: (\[.*?\]) " + re.escape(targets.NOT_MULTIMODAL), text)
    if isinstance(e, ValueError) and multimodal:
        return (f"tasks {multimodal.group(1)} carry audio, and --model {_argv_value('--model') or '?'} reads text only: "
                "use --model hf-audio (a transformers audio LM), cascade (ASR, then a text LLM) or openai-audio "
                "(an OpenAI-compatible endpoint serving an audio model)")
    return None


def check_data_first() -> None:
    """The benchmark data a run names are there, its ``--metadata`` holds no credential, and its tasks' judges
    answer, checked before lm-eval loads the model (it builds the tasks, and reads their data, only after): each
    benchmark folder's ``check_data`` gets the run's tasks of its own, so an unset or empty data folder is reported
    at once, not after the model has loaded."""
    import json

    from lm_eval_audio.benchmarks import registry

    tasks = [t.strip() for t in (_argv_value("--tasks") or "").split(",") if t.strip()]
    try:
        metadata = json.loads(_argv_value("--metadata") or "{}")
    except ValueError:
        return  # lm-eval reports a malformed --metadata itself
    if not isinstance(metadata, dict) or not tasks:
        return
    # Names of ours only: a misspelled name is lm-eval's "not found", with suggestions.
    ours = registry.by_benchmark(tasks, _argv_value("--include_path") or ())
    if ours or _argv_value("--model") in MODELS:
        # --metadata goes into every task's configuration in the results: no credential in it (the judge's key is
        # read from the environment). Checked here too, so the user hears it before the model loads.
        refuse_secrets("lm-eval-audio", metadata, where="metadata")
    for benchmark, names in ours.items():
        if benchmark.check_data is not None:
            benchmark.check_data(names, metadata)
    if ours and not {"--predict_only", "-x"} & set(sys.argv):  # predictions only: no judge is asked
        from lm_eval_audio.harness.preflight import check_judges_first

        check_judges_first([n for names in ours.values() for n in names], metadata, _argv_value("--include_path") or ())


def _runs_ours() -> bool:
    from lm_eval_audio.benchmarks import registry

    tasks = [t for t in (_argv_value("--tasks") or "").split(",") if t]
    return _argv_value("--model") in MODELS or bool(registry.by_benchmark(tasks, _argv_value("--include_path") or ()))


def interrupted_message() -> str:
    """What a run stopped with Ctrl-C kept, and how to go on from there."""
    cache = _argv_value("--use_cache")
    if cache:
        kept = (f"the model's answers so far are kept in {cache}_rank*.db: the same command resumes from them, "
                "asking only what was not answered")
    else:
        kept = ("the model's answers so far were not kept (lm-eval keeps them only with --use_cache PATH: add it, "
                "and a run interrupted again resumes where it stopped)")
    return kept + "; the judge's verdicts and the cascade's transcripts are in their caches and are not asked again"


def on_cli(module) -> None:
    def make(original):
        def cli_evaluate(*args, **kwargs):
            from lm_eval_audio.storage import run_state

            run_state.new_command()
            try:
                command = sys.argv[1] if len(sys.argv) > 1 else ""
                if (command == "run" or command.startswith("--")) and not {"-h", "--help"} & set(sys.argv):
                    check_data_first()
                return original(*args, **kwargs)
            except KeyboardInterrupt:
                if os.environ.get("LM_EVAL_AUDIO_TRACEBACK") or not _runs_ours():
                    raise  # lm-eval's own models and tasks: as lm-eval leaves it
                sys.stderr.write(f"\nlm_eval: interrupted: {interrupted_message()}\n")
                raise SystemExit(130) from None  # 128 + SIGINT, as a shell reports it
            except Exception as e:
                message = None if os.environ.get("LM_EVAL_AUDIO_TRACEBACK") else user_error_message(e)
                if message is None:
                    raise
                sys.stderr.write(f"lm_eval: error: {message}\n(LM_EVAL_AUDIO_TRACEBACK=1 shows where it was raised)\n")
                raise SystemExit(2) from None

        return cli_evaluate

    wrap(module, "cli_evaluate", make)


# --- lm_eval.utils -----------------------------------------------------------------------

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
    arrows = {k: dict(v) for k, v in (result_dict.get("higher_is_better") or {}).items()}
    for task, metrics in rows.items():
        if task not in ours or not isinstance(metrics, dict):
            view[task] = metrics
            if task in failed and isinstance(metrics, dict):  # a user's own task run with one of our models
                counts[str(metrics.get("alias", task)).strip(" -")] = {"failed_items": len(failed[task])}
            continue
        metrics = dict(metrics)
        counted = {} if task in groups else {"failed_items": len(failed.get(task, ()))}
        for key, value in list(metrics.items()):
            name = key.partition(",")[0]
            if name.removesuffix("_stderr") in count_metrics:
                value = metrics.pop(key)
                if name in count_metrics and isinstance(value, (int, float)) and value == value:
                    counted[name] = int(value)
            elif task in smoke_judged and name in judge_metrics and isinstance(value, (int, float)):
                # where the number is, as PARTIAL is: the bundled 135M judge checks the pipeline, not the answers
                metrics[key] = f"{'NaN' if value != value else f'{value:.4f}'} (smoke-test judge)"
            elif isinstance(value, float) and value != value:
                metrics[key] = "NaN"  # as lm-eval prints it in a column of numbers
            elif name in rate_metrics and isinstance(value, (int, float)) and not isinstance(value, bool):
                metrics[key] = f"{value:.4f} ({rate_metrics[name]})"
                arrows.setdefault(task, {})[name] = None
        view[task] = metrics
        if counted:
            counts[str(metrics.get("alias", task)).strip(" -")] = counted
    return {**result_dict, column: view, "higher_is_better": arrows}, counts


def smoke_judged_rows(result_dict: dict) -> set[str]:
    """The tasks whose judge metrics the bundled smoke-test judge gave, and the groups holding one of them."""
    from lm_eval_audio.judges.smoke_test_judge import judged_by_it

    smoke = {task for task in result_dict.get("lm_eval_audio_judge") or {} if judged_by_it(result_dict, task)}
    members = result_dict.get("group_subtasks") or {}

    def holds_one(group: str) -> bool:
        return any(m in smoke or (m in members and m != group and holds_one(m)) for m in members.get(group, ()))

    return smoke | {group for group in members if holds_one(group)}


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
            table = original(view, column, *args, **kwargs)
            if counts:
                table += "\n" + counts_table(counts)
            return table + table_notes(result_dict, column) if column == "results" else table

        return make_table

    wrap(module, "make_table", make)
