"""``lm-eval-audio download``: fetch ahead what a run of the named tasks reads from the Hub (for clusters whose
compute nodes have no internet), or, with ``--dry_run``, list it with sizes.

It does what the run would do, in the same order and through the same code: each benchmark's data check
(metadata, test shards, archives), then the tasks built as lm-eval builds them and the clips of the documents
the run evaluates (``--limit`` as lm_eval's). A dry run fetches only the small metadata files a plan must read
(a metadata file that names one clip file per item, to know which clips those are).
"""

from __future__ import annotations

import argparse
import sys

from lm_eval_audio.endpoints.model_args import metadata_json
from lm_eval_audio.storage import run_state


def _fetch_clips(names: list[str], metadata: dict, include_path, limit) -> list[str]:
    """The clips of the documents a run of ``names`` evaluates; returns what only a real fetch can tell."""
    from lm_eval.evaluator_utils import get_sample_size
    from lm_eval.tasks import TaskManager

    from lm_eval_audio.benchmarks import data_notes
    from lm_eval_audio.benchmarks.hub_data import PlannedOnly, fetch_clips

    later = []
    manager = TaskManager(include_path=include_path, metadata=metadata)
    for name in names:
        try:
            tasks = manager.load([name])["tasks"]
        except PlannedOnly as e:
            later.append(str(e))
            continue
        for task_name, task in tasks.items():
            docs = task.doc_iterator(limit=get_sample_size(task, limit))
            try:
                fetch_clips([ref for _, doc in docs for ref in (task.doc_to_audio(doc) or ())],
                            data_notes.of(getattr(task, "dataset", None)), task_name)
            except PlannedOnly:
                pass  # listed in the plan
    return later


def _unknown(name: str, include_path) -> str:
    """A name no benchmark of ours has, with the closest ones that are."""
    import difflib

    from lm_eval_audio.benchmarks import registry

    known = sorted(n for n in registry.our_task_names() if registry.of_task(n, include_path or ()) is not None)
    close = difflib.get_close_matches(name, known, 5, 0.6)
    return f"{name!r} is no task of a benchmark of ours" + (f"; did you mean {', '.join(close)}?" if close else "")


def _print_plan(plan) -> None:
    """Each repository's files to fetch, once each (the data check and the task building plan some twice)."""
    by_repo: dict[str, dict] = {}
    for fetch in plan:
        by_repo.setdefault(fetch.snapshot.label, {}).update((f.path, f) for f in fetch.files)
    for label, files in by_repo.items():
        print(f"{label}: {len(files)} file(s), {_size(sum(f.size for f in files.values()))}")
        for f in files.values():
            print(f"  {f.path}\t{f.size}")
    every = [f for files in by_repo.values() for f in files.values()]
    print(f"total: {len(every)} file(s), {_size(sum(f.size for f in every))} to fetch")


def _size(n: int) -> str:
    from lm_eval_audio.benchmarks.hub_data import size_text

    return size_text(n)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lm-eval-audio download", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", required=True, help="as lm_eval's: comma-separated tasks or groups")
    parser.add_argument("--limit", type=float, default=None, help="as lm_eval's: only the clips of the first N documents")
    parser.add_argument("--metadata", type=metadata_json, default={},
                        help="JSON, as lm_eval's (data_revision, data_revisions, local data folders)")
    parser.add_argument("--include_path", default=None, help="as lm_eval's: a folder of your own task YAMLs")
    parser.add_argument("--dry_run", action="store_true", help="list the files and sizes; fetch nothing but metadata")
    args = parser.parse_args(argv)

    from lm_eval_audio.harness import startup

    startup.install()
    from lm_eval_audio.benchmarks import hub_data, registry
    from lm_eval_audio.harness.cli_patches import user_error_message

    metadata = args.metadata
    names = [t.strip() for t in args.tasks.split(",") if t.strip()]
    ours = registry.by_benchmark(names, args.include_path or ())
    unknown = [t for t in names if not any(t in n for n in ours.values())]
    if unknown:
        parser.error("; ".join(_unknown(name, args.include_path) for name in unknown)
                     + " (`lm_eval ls tasks` lists every task)")
    limit = int(args.limit) if args.limit is not None and args.limit >= 1 else args.limit
    # the command's run: what an error says to do names its tasks, and never `download` again
    started = run_state.started(run_state.Run(asked=tuple(names), downloading=True))
    try:
        with hub_data.planning(args.dry_run) as plan:
            from lm_eval_audio.model_wrappers import author_prompts

            author_prompts.check(metadata)  # prompts=authors: the family whose prompts are fetched for is known
            for benchmark, tasks in ours.items():
                for task in tasks:
                    if benchmark.check_data is not None:
                        try:
                            benchmark.check_data([task], metadata)
                        except hub_data.PlannedOnly:
                            pass
            later = _fetch_clips(names, metadata, args.include_path, limit)
            if args.dry_run:
                _print_plan(plan)
                for line in later:
                    print(f"(after the files above: {line})")
    except Exception as e:
        message = user_error_message(e)
        if message is None:
            raise
        sys.stderr.write(f"lm-eval-audio download: error: {message}\n")
        raise SystemExit(2) from None
    finally:
        run_state.ended(started)
    if not args.dry_run:
        print(f"lm-eval-audio: what {', '.join(names)} read is in the Hugging Face cache at {hub_data.cache_root()}"
              " (run with HF_HUB_OFFLINE=1 where there is no internet)")
