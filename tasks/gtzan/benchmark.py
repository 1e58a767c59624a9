"""GTZAN (Tzanetakis and Cook, 2002; as UltraEval-Audio evaluates it, from TwinkStart/GTZAN): what shared code needs
to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="GTZAN",
    check_data=data_check("lm_eval_audio.tasks.gtzan.data"),
    headline_metrics=("acc",))
