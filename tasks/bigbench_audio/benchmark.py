"""Big Bench Audio (Artificial Analysis, 2024; ArtificialAnalysis/big_bench_audio): what shared code needs to know
of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The metadata is there: the local folder's, or the Hub's (fetched now; the clips come as the tasks load)."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks

    if real_tasks(tasks):
        from lm_eval_audio.tasks.bigbench_audio import data

        data.data_source(metadata, sample=False)


BENCHMARK = Benchmark(
    name="Big Bench Audio",
    check_data=check_data,
    count_metrics=("judge_failures",),
    without_judge="Big Bench Audio: nothing (every score is the judge's); the answers are logged",
    judge_metrics=("judge_acc",),
    headline_metrics=("judge_acc",),
)
