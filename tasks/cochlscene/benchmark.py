"""CochlScene (Jeong and Park, APSIPA 2022; its test and validation sets from Zenodo record 7080122): what shared
code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="CochlScene",
    check_data=data_check("lm_eval_audio.tasks.cochlscene.data"),
    count_metrics=("answer_unread",),
    headline_metrics=("acc", "exact_match", "label_in_answer"))
