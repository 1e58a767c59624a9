"""AIR-Bench (arXiv 2402.07729, OFA-Sys/AIR-Bench): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The local snapshot holds a meta file, or the Hub repository's meta files are fetched (the synthetic sample
    needs neither)."""
    real = [t for t in tasks if not t.startswith("airbench_sample")]
    if real:
        from lm_eval_audio.tasks.airbench import data

        data.check_snapshot(metadata, real)


BENCHMARK = Benchmark(
    name="AIR-Bench",
    check_data=check_data,
    count_metrics=("judge_failures", "gpt_align_judge_failures"),
    rate_metrics={"exact_match_rule_parsed": "parse rate"},
    # gpt_align: the paper's foundation number; score: the chat judge's 1-10; exact_match: the judge-free rule
    without_judge="AIR-Bench foundation: exact_match, without gpt_align",
    judge_metrics=("gpt_align", "score", "reference_score", "win_rate"),
    headline_metrics=("gpt_align", "score", "exact_match"),
    # "Right" for a chat answer: 7 of 10 and above (the mean of the judge's two passes)
    thresholds={"score": 7.0},
    scales={"score": "1-10", "reference_score": "1-10"},
    report="lm_eval_audio.tasks.airbench.report",
    table_note=("AIR-Bench: each row is lm-eval's mean over items (a group's over all its items); the paper's Table 3 "
                "averages categories, each the mean of its tasks: `lm-eval-audio report` gives those"),
)
