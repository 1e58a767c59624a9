"""OpenAudioBench (Baichuan, with Baichuan-Audio and Baichuan-Omni-1.5; baichuan-inc/OpenAudioBench): what shared
code needs to know of this folder."""

from lm_eval_audio.benchmarks.data_spec import data_check
from lm_eval_audio.benchmarks.registry import Benchmark

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
)
