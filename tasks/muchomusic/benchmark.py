"""MuChoMusic (arXiv 2408.01337, mulab-mir/muchomusic): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="MuChoMusic",
    check_data=data_check("lm_eval_audio.tasks.muchomusic.data"),
    rate_metrics={"ifr": "instruction-following rate"},
    headline_metrics=("acc",))
