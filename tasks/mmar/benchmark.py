"""MMAR (arXiv 2505.13032, ddlBoJack/MMAR): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.judges.choice_scoring import COUNT_METRICS, HEADLINE_METRICS, JUDGE_METRICS, RATE_METRICS


def check_data(tasks: list[str], metadata: dict) -> None:
    """The folder is set, exists and holds MMAR's metadata (the synthetic sample needs none)."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks

    if real_tasks(tasks):
        from lm_eval_audio.benchmarks.choice_layout import check_snapshot
        from lm_eval_audio.tasks.mmar.data import LAYOUT

        check_snapshot(LAYOUT, metadata)


BENCHMARK = Benchmark(
    name="MMAR",
    check_data=check_data,
    count_metrics=COUNT_METRICS,
    rate_metrics=RATE_METRICS,
    without_judge="MMAR: official_acc and pattern_acc, without glitters_acc",
    judge_metrics=JUDGE_METRICS,
    headline_metrics=HEADLINE_METRICS,
)
