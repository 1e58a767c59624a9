"""Nonspeech7k (Rashid et al., IET Signal Processing 2023; its test set from Zenodo record 6967442): what shared
code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="Nonspeech7k",
    check_data=data_check("lm_eval_audio.tasks.nonspeech7k.data"),
    count_metrics=("answer_unread",),
    headline_metrics=("acc",),
    # Said under the printed table: acc is no judged number
    table_note=("Nonspeech7k: acc is the option read without an LLM judge, not the gpt-4o-mini-judged accuracy "
                "Kimi-Audio's card and Kimi-Audio-Evalkit report (lm_eval_audio_data.scoring_rules)"))
