"""URO-Bench (Yan et al., 2025, arXiv 2502.17810; Ruiqi-Yan/URO-Bench): what shared code needs to know of this
folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The data is there: the local folder, or the Hub archive (fetched and unzipped now)."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks
    from lm_eval_audio.tasks.urobench import data

    if real_tasks(tasks):
        data.data_source(metadata, sample=False)


BENCHMARK = Benchmark(
    name="URO-Bench",
    check_data=check_data,
    count_metrics=("judge_failures",),
    scales={"urobench_score": "0-100"},
    without_judge="URO-Bench: only Repeat and Repeat-zh (scored by error rate); the judged subsets' answers are logged",
    judge_metrics=("urobench_score",),
    headline_metrics=("urobench_score",),
    table_note=("URO-Bench: each subset's urobench_score is 0-100 as its scripts compute it on the transcripts of the "
                "spoken answers; a track's line is the unweighted mean of its subsets run (evaluate.py); the Chinese "
                "subsets are transcribed by Paraformer-zh without the VAD and punctuation models URO-Bench runs around "
                "it (docs/SPOKEN.md)"))
