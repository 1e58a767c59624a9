"""MMSU (arXiv 2506.04779, dingdongwang/MMSU): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The prompt is one MMSU publishes, and a local folder, where one is set, holds the shards, or else the Hub
    repository answers (or the cache holds it, offline); the Hub's shards are fetched as the tasks load."""
    import os
    from pathlib import Path

    from lm_eval_audio.benchmarks.hub_data import open_snapshot, revision_for
    from lm_eval_audio.tasks.mmsu import data

    data.prompt_kind(metadata)
    if all("_sample" in t for t in tasks):
        return
    raw = metadata.get(data.METADATA_KEY) or os.environ.get(data.ENV)
    if raw:
        data.shards(Path(raw).expanduser())
    else:
        open_snapshot(data.REPO, revision_for(data.REPO, metadata), "MMSU", data.ENV)


BENCHMARK = Benchmark(
    name="MMSU",
    check_data=check_data,
    rate_metrics={"left_out_rate": "left out by the script"},
    headline_metrics=("official_acc", "acc_all_items"),
)
