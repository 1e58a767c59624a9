"""AudioCaps captioning (AudioCaps' test split, as TwinkStart/AudioCaps): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="AudioCaps captioning",
    check_data=data_check("lm_eval_audio.tasks.audiocaps_caption.data"),
    headline_metrics=("cider_d", "spider"))
