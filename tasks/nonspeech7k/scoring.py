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

from lm_eval_audio.benchmarks.choice_layout import accuracy_by
from lm_eval_audio.benchmarks.class_reading import chosen_option
from lm_eval_audio.metrics.stderr import proportion_stderr
from lm_eval_audio.tasks.nonspeech7k.data import OPTIONS


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    picked = None if missing else chosen_option(results[0], OPTIONS)
    item = {"doc_id": doc["doc_id"], "score": float(picked == doc["option"]), "class": doc["option"]}
    return {"acc": item, "audio_missing": float(missing), "answer_unread": float(not missing and picked is None)}


def acc(items: list[dict], task) -> float:
    pairs = [(i, i["score"]) for i in items]
    task.note_for_task("official_breakdown", "acc", {"class": accuracy_by("class", pairs)})
    task.report_item_scores("acc", [(i["doc_id"], i["score"]) for i in items])
    if not items:
        return task.not_a_number("acc", "the task has no item to score")
    value = sum(i["score"] for i in items) / len(items)
    task.report_stderr("acc", proportion_stderr(value, len(items)))
    return value
