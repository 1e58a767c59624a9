"""AISHELL-1 (arXiv 1709.05522; its test set as TwinkStart/AISHELL-1): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

# No headline metric: diagnose reads a score that is higher when better, and an error rate is not (BLEU is
# corpus-level: no per-document value).
BENCHMARK = Benchmark(
    name="AISHELL-1",
    check_data=data_check("lm_eval_audio.tasks.aishell1.data"))
