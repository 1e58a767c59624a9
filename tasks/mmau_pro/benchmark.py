"""MMAU-Pro (arXiv 2508.13992, sonalkum/MMAUPro): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.judges.choice_scoring import COUNT_METRICS, HEADLINE_METRICS, JUDGE_METRICS, RATE_METRICS


def check_data(tasks: list[str], metadata: dict) -> None:
    """The folder is set, exists and holds test.parquet (the synthetic sample needs none)."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks

    if real_tasks(tasks):
        from lm_eval_audio.tasks.mmau_pro import data

        data.check_snapshot(metadata)


BENCHMARK = Benchmark(
    name="MMAU-Pro",
    check_data=check_data,
    count_metrics=("judge_failures", *COUNT_METRICS, "instructions_unchecked"),
    rate_metrics=RATE_METRICS,
    without_judge="MMAU-Pro closed: official_acc and pattern_acc, without glitters_acc",
    # the open-ended questions' judge (the closed ones' performance_score is the embedding match's, not a judge's)
    judge_metrics=(*JUDGE_METRICS, "judge_overall", "judge_correctness", "good_response_rate", "poor_response_rate"),
    scales={"judge_overall": "1-5", "judge_correctness": "1-5"},
    headline_metrics=HEADLINE_METRICS,
)
