"""CoVoST 2 (arXiv 2007.10310; its test sets as fixie-ai/covost2): what shared code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

# No headline metric: diagnose reads a score that is higher when better, and an error rate is not (BLEU is
# corpus-level: no per-document value).
BENCHMARK = Benchmark(
    name="CoVoST 2",
    check_data=data_check("lm_eval_audio.tasks.covost2.data"))
