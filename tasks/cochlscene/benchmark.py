"""CochlScene (Jeong and Park, APSIPA 2022; its test and validation sets from Zenodo record 7080122): what shared
code needs to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check

BENCHMARK = Benchmark(
    name="CochlScene",
    check_data=data_check("lm_eval_audio.tasks.cochlscene.data"),
    count_metrics=("answer_unread",),
    headline_metrics=("acc", "exact_match", "label_in_answer"),
    # Said under the printed table: acc is no judged number
    table_note=("CochlScene: acc is the option read without an LLM judge, not the gpt-4o-mini-judged accuracy "
                "Kimi-Audio's card and Kimi-Audio-Evalkit report (lm_eval_audio_data.scoring_rules)"))
