"""AISHELL-2 (arXiv 1808.10583; its iOS test set, from a local copy: AISHELL licenses it): what shared code needs to
know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

# No headline metric: diagnose reads a score that is higher when better, and an error rate is not.
BENCHMARK = Benchmark(
    name="AISHELL-2",
    check_data=data_check("lm_eval_audio.tasks.aishell2.data"))
