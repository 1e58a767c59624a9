"""Nonspeech7k's score. Its reference, Kimi-Audio-Evalkit (MoonshotAI/Kimi-Audio-Evalkit@4080c49
almeval/datasets/ds_mqa.py:389-412), has gpt-4o-mini judge each answer against the ``Classname`` with its generic
single-choice judge prompt (ds_mqa.py:9-43; an answer the judge leaves neither yes nor no is left out of its
accuracy, almeval/datasets/base.py:270-296). No judge is run here:

* ``acc``: the option the answer picks, read without a judge (``class_reading.chosen_option``: its letter, or the one
  option it names), equal to the clip's class. A synonym or a paraphrase the judge would accept is wrong here; an
  answer naming no option or several is wrong and counted in ``answer_unread``.

Accuracy per class in ``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted
(``audio_missing``) and wrong.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown
from lm_eval_audio.benchmarks.class_reading import option_results
from lm_eval_audio.tasks.nonspeech7k.data import OPTIONS


def process_results(doc: dict, results: list) -> dict:
    return option_results(doc, results, OPTIONS, "option")


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task)
