"""VoxPopuli (arXiv 2101.00390, facebook/voxpopuli): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

# No headline metric: diagnose reads a score that is higher when better, and an error rate is not (BLEU is
# corpus-level: no per-document value).
BENCHMARK = Benchmark(
    name="VoxPopuli",
    check_data=data_check("lm_eval_audio.tasks.voxpopuli.data"))
