"""Clotho-AQA (Lipping et al., EUSIPCO 2022; its test set as lmms-lab-audio/ClothoAQA): what shared code needs to
know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="Clotho-AQA",
    check_data=data_check("lm_eval_audio.tasks.clotho_aqa.data"),
    headline_metrics=("exact_match", "acc"))
