"""VoxPopuli (arXiv 2101.00390, facebook/voxpopuli): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="VoxPopuli",
    check_data=data_check("lm_eval_audio.tasks.voxpopuli.data"),
    headline_metrics=("wer",))
