"""VocalSound (Gong et al., ICASSP 2022; its test set as lmms-lab-audio/vocalsound): what shared code needs to know
of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="VocalSound",
    check_data=data_check("lm_eval_audio.tasks.vocalsound.data"),
    headline_metrics=("acc", "exact_match"))
