"""Clotho captioning (Clotho v2.1's evaluation split (the DCASE captioning test set), as mteb/Clotho): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="Clotho captioning",
    check_data=data_check("lm_eval_audio.tasks.clotho_caption.data"),
    headline_metrics=("cider_d", "spider"))
