"""VocalBench (Liu et al., 2025, arXiv 2505.15727; SJTU-OmniAgent/VocalBench): what shared code needs to know of this
folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """Each set's list is there: the local folder's, or the Hub's (fetched now; the clips come as the tasks load)."""
    from lm_eval_audio.benchmarks.data_spec import is_sample_task

    chosen = [t for t in tasks if not is_sample_task(t)]
    if chosen:
        from lm_eval_audio.tasks.vocalbench import data

        wanted = [s for s in data.SETS if any(t.endswith(s) for t in chosen)] or list(data.SETS)
        for eval_set in wanted:
            data.data_source(eval_set, metadata, sample=False)


def group_score(group: str, metrics_by_task: dict[str, dict]) -> dict:
    """The Overall of the group of its sets (``scoring.overall``)."""
    from lm_eval_audio.tasks.vocalbench import scoring

    return scoring.overall(group, metrics_by_task)


BENCHMARK = Benchmark(
    name="VocalBench",
    check_data=check_data,
    count_metrics=("judge_failures", "judge_unread", "vocalbench_unchecked"),
    scales={"vocalbench_acc": "0-100", "vocalbench_rating": "0-5", "vocalbench_robustness": "0-15",
            "vocalbench_following": "0-100", "vocalbench_overall": "0-100"},
    without_judge="VocalBench: only knowledge (scored by rule); the judged sets' answers are logged",
    judge_metrics=("vocalbench_rating", "vocalbench_refusal", "vocalbench_robustness", "vocalbench_following",
                   "vocalbench_overall"),
    headline_metrics=("vocalbench_overall", "vocalbench_acc", "vocalbench_rating", "vocalbench_refusal",
                      "vocalbench_robustness", "vocalbench_following"),
    table_note=("VocalBench: each set scored as its scripts score the transcript of the spoken answer; the group's "
                "vocalbench_overall is utils/gen_score.sh's sum (0-100; docs/SPOKEN.md)"),
    group_score=group_score)
