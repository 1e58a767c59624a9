"""VoiceBench (arXiv 2410.17196, MatthewCYM/VoiceBench): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The modality is one VoiceBench knows, and a local folder, where one is set, exists, or else the Hub repository
    answers (or the cache holds it, offline); the Hub's files are fetched by each task as it loads: only the splits
    it reads (``data_spec.data_check``)."""
    from lm_eval_audio.benchmarks.data_spec import data_check
    from lm_eval_audio.tasks.voicebench import data

    data_check("lm_eval_audio.tasks.voicebench.data", settings=data.modality)(tasks, metadata)


def row_notes(task: str, values: dict) -> list[str]:
    """The rule-read sets: how many answers official_acc scored by the evaluator's random fallback."""
    unread = values.get("unread_rate")
    if not unread or "official_acc" not in values:
        return []
    share = "every answer" if unread >= 1 else f"{unread:.0%} of the answers"
    chance = " (so official_acc is chance alone)" if unread >= 1 else ""
    return [f"{share} read no option: official_acc and leaderboard_score score them with VoiceBench's random "
            f"fallback option, as its evaluator does (seeded: voicebench_fallback_seed in --metadata){chance}; "
            "acc_unread_wrong counts them wrong"]


BENCHMARK = Benchmark(
    name="VoiceBench",
    check_data=check_data,
    count_metrics=("judge_failures", "judge_ties"),
    rate_metrics={"unread_rate": "unread rate"},
    without_judge="VoiceBench: the rule-scored sets (MMSU, OpenBookQA, BBH, IFEval, AdvBench); the open-ended "
                  "sets and SD-QA's gpt_acc are answered and logged, not scored",
    judge_metrics=("gpt_score", "gpt_acc"),
    # the leaderboard's columns are 0-100 (gpt_score x 20 for the open-ended sets); the judge rates 1-5
    scales={"leaderboard_score": "0-100", "gpt_score": "1-5"},
    text_instead_of_audio={"voicebench_modality": "text"},
    row_notes=row_notes,
    # 0/1 per item first, as diagnose needs them (leaderboard_score is per item 0/100, and graded for the judged sets)
    headline_metrics=("official_acc", "gpt_acc", "refusal_rate", "prompt_level_strict_acc", "gpt_score",
                      "leaderboard_score"),
)
