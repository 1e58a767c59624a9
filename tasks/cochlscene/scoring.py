"""CochlScene's scores, by the readings its reference evaluations use that need no LLM judge (the results name
each):

* ``acc``: the option the answer picks, read without a judge (``class_reading.chosen_option``: its letter, or the
  one option it names), equal to the clip's scene. The question writes three scenes as one word (``subwaystation``,
  ``crowdedindoor``, ``residentialarea``); an answer that spaces them ("Subway station", "crowded-indoor") is read as
  that scene first, so "Subway station" is not taken for the option ``subway``. Kimi-Audio-Evalkit, whose numbers the model cards quote, has
  gpt-4o-mini judge each answer against the scene folder's name instead (MoonshotAI/Kimi-Audio-Evalkit@4080c49
  almeval/datasets/ds_mqa.py:389-412; its ``DATASET_NAME`` is 'CochlScene', ds_mqa.py:461, so the 'cochlscene' check
  at :402 never holds and the generic judge prompt, ds_mqa.py:9-43, is the one sent). No judge is run here: a
  synonym or a paraphrase the judge would accept is wrong here; an answer naming no option or several is wrong and
  counted in ``answer_unread``.
* ``exact_match``: Qwen-Audio's ``eval_audio/evaluate_scene.py`` (QwenLM/Qwen-Audio@b50fb95, :162 and :214): the
  stripped answer equal to the label. Its labels come from a jsonl on Alibaba's OSS this repository cannot read;
  they are taken to be the scene folders' names (``CrowdedIndoor``): not confirmed.
* ``label_in_answer``: MiDashengLM's ``evaluate/compute_at_acc.py`` (xiaomi-research/dasheng-lm@2e3f2b0, :28-30):
  the lower-cased label found in the lower-cased answer ("crowdedindoor" is not found in "crowded indoor").

Accuracy per scene in ``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted
(``audio_missing``) and wrong.
"""

from __future__ import annotations

import re

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown
from lm_eval_audio.benchmarks.class_reading import exact_match, label_in_answer, option_results
from lm_eval_audio.tasks.cochlscene.data import OPTIONS

# The options the question writes as one word, and their words as an answer may space them
_SPACED = [(re.compile(r"(?<![a-z0-9])" + r"[\s_-]+".join(words) + r"(?![a-z0-9])", re.IGNORECASE), "".join(words))
           for words in (("subway", "station"), ("crowded", "indoor"), ("residential", "area"))]


def joined(response):
    """The answer with a spaced compound scene ("Subway station") written as the question's option
    (``subwaystation``), so the option reading does not take its first word for another option."""
    if not isinstance(response, str):
        return response
    for pattern, option in _SPACED:
        response = pattern.sub(option, response)
    return response


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    return {**option_results(doc, [joined(results[0])], OPTIONS),
            "exact_match": float(not missing and exact_match(results[0], doc["reference"])),
            "label_in_answer": float(not missing and label_in_answer(results[0], doc["reference"]))}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task)
