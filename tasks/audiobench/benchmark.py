"""AudioBench (arXiv 2406.16020, AudioLLMs/AudioBench): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """Each dataset the run names is in the local data root, or fetched from the Hub; a group's members, in a local
    root, may be absent (the group is then PARTIAL), and on the Hub each member's repository answers (or the cache
    holds it, offline): their shards come as each loads."""
    from lm_eval_audio.benchmarks.data_spec import resolve
    from lm_eval_audio.benchmarks.registry import task_configs
    from lm_eval_audio.tasks.audiobench import data

    for task in tasks:
        name = task.removeprefix("audiobench_")
        if name in data.DATASETS:
            data.dataset_source(metadata, data.DATASETS[name])
        elif data.local_root(metadata):
            data.data_root(metadata)
        else:
            for member in task_configs([task]):
                dataset = data.DATASETS.get(member.removeprefix("audiobench_"))
                if dataset is not None:
                    resolve(data.spec_for(dataset), metadata)


BENCHMARK = Benchmark(
    name="AudioBench",
    check_data=check_data,
    count_metrics=("judge_failures",),
    without_judge="AudioBench captioning: meteor, without judge_score",
    judge_metrics=("judge_score",),
    scales={"judge_score": "0-100"},  # the 0-5 rubric x20, the binary judge x100, as the toolkit reports them
    headline_metrics=("judge_score", "meteor"),
    # "Right" for a judged answer: rubric 3 of 5 and above (x20; the binary judges give 0 or 100); METEOR half
    thresholds={"judge_score": 60.0, "meteor": 0.5},
)
