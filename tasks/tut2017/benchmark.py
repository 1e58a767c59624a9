"""TUT Acoustic Scenes 2017 (DCASE 2017 task 1; its evaluation set from Zenodo record 1040168): what shared code
needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="TUT Acoustic Scenes 2017",
    check_data=data_check("lm_eval_audio.tasks.tut2017.data"),
    count_metrics=("answer_unread",),
    headline_metrics=("acc", "exact_match"),
    # Said under the printed table: acc is no judged number
    table_note=("TUT Acoustic Scenes 2017: acc is the option read without an LLM judge, not the gpt-4o-mini-judged "
                "accuracy Kimi-Audio's card and Kimi-Audio-Evalkit report (lm_eval_audio_data.scoring_rules)"))
