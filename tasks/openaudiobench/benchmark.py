"""OpenAudioBench (Baichuan, with Baichuan-Audio and Baichuan-Omni-1.5; baichuan-inc/OpenAudioBench): what shared
code needs to know of this folder."""

from lm_eval_audio.benchmarks.data_spec import data_check
from lm_eval_audio.benchmarks.registry import Benchmark



def row_notes(task: str, values: dict) -> list[str]:
    """TriviaQA and Web Questions: the judge replies that could not be read count as wrong answers (as the Hub
    scripts count them), so their judge_score is a number, 0 where none was read, where the other subsets' is NaN."""
    failures = values.get("judge_failures")
    if not failures or not task.endswith(("trivia_qa", "web_questions")):
        return []
    return [f"{int(failures)} item(s) got no readable verdict (judge_failures): a reply that came and could not be "
            "read counts as a wrong answer in judge_score, as the Hub script of this subset counts it (0 where no "
            "reply was read; the other subsets leave such items out, NaN where none is left); the judge log holds "
            "the replies"]


BENCHMARK = Benchmark(
    name="OpenAudioBench",
    check_data=data_check("lm_eval_audio.tasks.openaudiobench.data", "SPEC"),
    count_metrics=("judge_failures",),
    without_judge="OpenAudioBench: nothing (every score is the judge's; judge_score and the Overall are NaN); the "
                  "answers are logged",
    judge_metrics=("judge_score",),
    # the reports' columns: AlpacaEval's 1-10 ratings x10, Reasoning QA's 1-5 scores x20, the QA sets' accuracy x100
    scales={"judge_score": "0-100"},
    headline_metrics=("judge_score",),
    row_notes=row_notes,
)
