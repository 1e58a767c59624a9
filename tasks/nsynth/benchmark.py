"""NSynth (Engel et al., 2017; its test set, ``nsynth-test``): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="NSynth",
    check_data=data_check("lm_eval_audio.tasks.nsynth.data"),
    headline_metrics=("acc",))
