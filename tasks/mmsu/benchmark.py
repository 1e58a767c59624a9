"""MMSU (arXiv 2506.04779, dingdongwang/MMSU): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The prompt is one MMSU publishes, and a local folder, where one is set, holds the shards, or else the Hub
    repository answers (or the cache holds it, offline); the Hub's shards are fetched as the tasks load."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks, resolve
    from lm_eval_audio.tasks.mmsu import data

    data.prompt_kind(metadata)
    if real_tasks(tasks):
        source = resolve(data.DATA, metadata)
        if source.snapshot is None:
            data.shards(source.root)


BENCHMARK = Benchmark(
    name="MMSU",
    check_data=check_data,
    rate_metrics={"left_out_rate": "left out by the script"},
    headline_metrics=("official_acc", "acc_all_items"),
)
