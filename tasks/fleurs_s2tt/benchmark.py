"""FLEURS speech translation (arXiv 2205.12446, google/fleurs; the directions Qwen3-Omni reports): what shared code
needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

# No headline metric: BLEU is corpus-level (no per-document value for diagnose to read).
BENCHMARK = Benchmark(
    name="FLEURS S2TT",
    check_data=data_check("lm_eval_audio.tasks.fleurs_s2tt.data"))
