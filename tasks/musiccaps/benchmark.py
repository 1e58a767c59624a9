"""MusicCaps captioning (MusicCaps' evaluation clips (``is_audioset_eval``), as CLAPv2/MusicCaps): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="MusicCaps captioning",
    check_data=data_check("lm_eval_audio.tasks.musiccaps.data"),
    headline_metrics=("cider_d", "spider"))
