"""FSD50K (Fonseca et al., 2022; its evaluation set as Fhrozen/FSD50k): what shared code needs to know of this
folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="FSD50K",
    check_data=data_check("lm_eval_audio.tasks.fsd50k.data"),
    headline_metrics=("mAP",))
