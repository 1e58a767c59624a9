"""TUT Acoustic Scenes 2017's scores, by the readings its reference evaluations use that need no LLM judge (the
results name each):

* ``acc``: the option the answer picks, read without a judge (``class_reading.chosen_option``: its letter, or the
  one option it names), equal to the clip's scene. Kimi-Audio-Evalkit, whose numbers the model cards quote, has
  gpt-4o-mini judge each answer against the meta.txt label instead (MoonshotAI/Kimi-Audio-Evalkit@4080c49
  almeval/datasets/ds_mqa.py:389-412; its ``DATASET_NAME`` is 'TUT2017', ds_mqa.py:449, so the 'tut2017' check at
  :400 never holds and the generic judge prompt, ds_mqa.py:9-43, is the one sent). No judge is run here: a synonym
  or a paraphrase the judge would accept is wrong here; an answer naming no option or several is wrong and counted
  in ``answer_unread``.
* ``exact_match``: Qwen-Audio's ``eval_audio/evaluate_scene.py`` (QwenLM/Qwen-Audio@b50fb95, :162 and :214): the
  stripped answer equal to the label. Its labels come from a jsonl on Alibaba's OSS this repository cannot read;
  they are taken to be meta.txt's (``city_center``, ``cafe/restaurant``): not confirmed.

Accuracy per scene in ``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted
(``audio_missing``) and wrong.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown
from lm_eval_audio.benchmarks.class_reading import exact_match, option_results
from lm_eval_audio.tasks.tut2017.data import OPTIONS


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    return {**option_results(doc, results, OPTIONS),
            "exact_match": float(not missing and exact_match(results[0], doc["reference"]))}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task)
