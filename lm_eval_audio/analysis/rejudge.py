"""``lm-eval-audio judge``: score a ``--predict_only`` run later, or again with another judge.

    lm_eval --model hf-audio ... --tasks airbench_chat --predict_only --log_samples --output_path out
    OPENAI_BASE_URL=... lm-eval-audio judge out/<model>/samples_*.jsonl --output_path judged

The model's recorded answers are replayed through lm-eval itself (a replay model stands
in for the audio model), so the tasks' own scoring, the judge metrics, the groups, the
results JSON, the samples and the judge logs are exactly those of a normal run.
The tasks' data must be readable again (``AIRBENCH_DATA_DIR``, ``AUDIOBENCH_DATA_DIR`` or ``--metadata``), since
lm-eval rebuilds the documents; every document must have a recorded answer.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path

from lm_eval_audio.storage import jsonl
from lm_eval_audio.endpoints.model_args import metadata_json

_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


class ReplayError(ValueError):
    pass


def _read_samples(paths: list[Path]) -> tuple[dict, set[str]]:
    """{(task, doc_id): (resps, doc)} and the run timestamps the files come from."""
    answers, dates = {}, set()
    for path in paths:
        m = _SAMPLES_NAME.match(path.name)
        if not m:
            raise ReplayError(f"{path}: not an lm-eval samples file (expected samples_<task>_<timestamp>.jsonl)")
        task = m.group("task")
        dates.add(m.group("date"))
        for line_no, sample in jsonl.records(path, ReplayError):
            try:
                answers[(task, int(sample["doc_id"]))] = (sample["resps"], sample.get("doc"))
            except (KeyError, TypeError, ValueError) as e:
                raise ReplayError(f"{path}, line {line_no}: not a samples record ({e})") from None
    return answers, dates


def _canonical(doc) -> str:
    return json.dumps(json.loads(json.dumps(doc, default=str)), sort_keys=True)


def _replay_model(answers: dict):
    from lm_eval.api.model import LM

    class ReplayLM(LM):
        """Answers each request with what the audio model answered in the recorded run."""

        MULTIMODAL = True

        def _answer(self, request):
            try:
                resps, recorded = answers[(request.task_name, request.doc_id)]
                answer = resps[request.idx]
            except (KeyError, IndexError):
                raise ReplayError(
                    f"task {request.task_name}, doc_id {request.doc_id}: no recorded answer in the samples; "
                    "pass the samples file of every task, from a run over the same data"
                ) from None
            # Answers are found by position: make sure the position still holds the same document.
            if recorded is not None and _canonical(request.doc) != _canonical(recorded):
                raise ReplayError(
                    f"task {request.task_name}, doc_id {request.doc_id}: the document differs from the one the "
                    "model answered (the data changed since the run, or points elsewhere); judge with the same data"
                )
            return answer

        def generate_until(self, requests, disable_tqdm=False):
            return [self._answer(r)[0] for r in requests]

        def loglikelihood(self, requests, disable_tqdm=False):
            return [tuple(self._answer(r)[0]) for r in requests]

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            return [self._answer(r)[0] for r in requests]

    return ReplayLM()


def _run_results(folder: Path, dates: set[str]) -> dict:
    if len(dates) != 1:
        return {}
    path = folder / f"results_{next(iter(dates))}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def _root_tasks(group_subtasks: dict, leaves: set[str]) -> list[str]:
    """The names the run was started with: groups that are nobody's child, and whose leaves
    were all recorded, plus recorded tasks outside any such group."""
    children = {c for kids in group_subtasks.values() for c in kids}

    def leaves_of(name):
        kids = group_subtasks.get(name) or []
        return {name} if not kids else set().union(*(leaves_of(k) for k in kids))

    roots = [n for n in group_subtasks if n not in children and leaves_of(n) <= leaves]
    covered = set().union(*(leaves_of(r) for r in roots)) if roots else set()
    return roots + sorted(leaves - covered)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lm-eval-audio judge", description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", nargs="+", type=Path, help="samples_<task>_<timestamp>.jsonl files of one run")
    parser.add_argument("--output_path", type=Path, help="where to write results, samples and judge logs")
    parser.add_argument("--include_path", help="as lm_eval's: a folder of your own task YAMLs")
    parser.add_argument("--metadata", type=metadata_json, default={},
                        help="JSON, as lm_eval's --metadata (judge_model, the benchmarks' data folders, ...)")
    args = parser.parse_args(argv)

    from lm_eval_audio.harness import startup

    startup.install()
    metadata = args.metadata
    for path in args.samples:
        if not path.is_file():
            parser.error(f"{path}: no such samples file")
    try:
        answers, dates = _read_samples(args.samples)
    except ReplayError as e:
        parser.error(str(e))
    leaves = {task for task, _ in answers}
    run = _run_results(args.samples[0].parent, dates)
    log = logging.getLogger("lm_eval.audio.judge")
    if not run:
        log.warning("no results_<timestamp>.json of one run beside the samples: the tasks are scored alone, "
                    "without their groups")
    tasks = _root_tasks(run.get("group_subtasks", {}), leaves)
    lone = sorted(t for t in tasks if not run.get("group_subtasks", {}).get(t) and any(
        t in kids for kids in run.get("group_subtasks", {}).values()))
    if lone:
        log.warning("samples of some tasks of a group are missing, so the group is not rebuilt; scored alone: %s",
                    ", ".join(lone))
    # The recorded run's data settings (the data folder, ...) unless overridden here; never its
    # judge settings, so that the judge of this command (environment, --metadata) is the one used.
    recorded = {}
    for task in sorted(leaves):
        recorded.update({k: v for k, v in (run.get("configs", {}).get(task, {}).get("metadata") or {}).items()
                         if k not in ("version", "config_source", "judge") and not k.startswith("judge_")})
    metadata = {**recorded, **metadata}

    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import make_table

    tracker = EvaluationTracker(output_path=str(args.output_path)) if args.output_path else None
    try:
        results = simple_evaluate(
            model=_replay_model(answers),
            model_args=(run.get("config") or {}).get("model_args") or {},
            tasks=tasks,
            task_manager=TaskManager(include_path=args.include_path, metadata=metadata),
            metadata=metadata,
            samples={task: sorted(i for t, i in answers if t == task) for task in leaves},  # --limit runs too
            log_samples=tracker is not None,
            evaluation_tracker=tracker,
        )
    except ReplayError as e:
        parser.exit(2, f"{parser.prog}: error: {e}\n")
    if results is None:
        sys.exit(1)
    _save_and_print(results, args, run, tracker, make_table)


def _save_and_print(results, args, run, tracker, make_table) -> None:
    results["config"]["model"] = (run.get("config") or {}).get("model", results["config"]["model"])
    results["config"]["judged_samples_of"] = [str(p) for p in args.samples]
    if tracker is not None:
        samples = results.pop("samples", {})
        tracker.save_results_aggregated(results=results, samples=samples)
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    print(make_table(results))
    if "groups" in results:
        print(make_table(results, "groups"))
