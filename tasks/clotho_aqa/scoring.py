"""Clotho-AQA's scores, by the two readings its exact-match evaluations use (the results name all three numbers):

* ``exact_match`` (lmms-eval's ``clotho_aqa_test.yaml:12-17``, EvolvingLMMs-Lab/lmms-eval@75571cf, whose
  ``api/metrics.py:188-220`` ``exact_match_hf_evaluate`` it names with ``ignore_case`` and ``ignore_punctuation``):
  the answer stripped of surrounding white space first (its task's ``process_results``, ``api/task.py:1586-1590``
  and ``1675``: None read as ""), then the answer and the reference (not stripped) lower-cased, every
  ``string.punctuation`` character removed from both, then equal. " yes" is "yes" there, and here; "yes sir" is not.
* ``acc`` and ``acc_yes_no`` (Qwen-Audio's ``eval_audio/evaluate_aqa.py:162,205-222``, QwenLM/Qwen-Audio@b50fb95, as
  the Qwen-Audio card's Clotho-AQA numbers are scored): the answer stripped of surrounding white space (its decode
  step) equal to the reference as written (scikit-learn's ``accuracy_score`` on the strings: case counts); over all
  items, and over those whose reference is yes or no, any case (its ``bi_ACC_score``).

Fractions of 1. A missing clip has no answer: counted (``audio_missing``) and wrong.
"""

from __future__ import annotations

import string

from lm_eval_audio.benchmarks.class_reading import as_numpy_holds, exact_match
from lm_eval_audio.metrics.stderr import proportion_stderr

_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)


def lmms_eval_match(response, reference: str) -> bool:
    """``exact_match_hf_evaluate(ignore_case=True, ignore_punctuation=True)`` on one pair, the response stripped
    first as lmms-eval's ``Task.process_results`` strips it (``api/task.py:1588-1590,1675``); trailing NUL characters
    dropped after the punctuation, as its numpy arrays drop them at every step (``api/metrics.py:201-211``)."""
    if not isinstance(response, str):
        return False
    return (as_numpy_holds(response.strip().lower().translate(_NO_PUNCTUATION))
            == as_numpy_holds(reference.lower().translate(_NO_PUNCTUATION)))


def qwen_audio_match(response, reference: str) -> bool:
    """``accuracy_score`` on one pair, the response stripped as ``evaluate_aqa.py:162`` decodes it (the scene sets'
    exact match: trailing NUL characters dropped from both, as ``accuracy_score``'s numpy arrays drop them)."""
    return exact_match(response, reference)


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    response = "" if missing else results[0]
    qwen = float(qwen_audio_match(response, doc["reference"]))
    return {"exact_match": float(lmms_eval_match(response, doc["reference"])), "acc": qwen,
            "acc_yes_no": {"doc_id": doc["doc_id"], "score": qwen, "yes_no": doc["yes_no"]},
            "audio_missing": float(missing)}


def acc_yes_no(items: list[dict], task) -> float:
    """Qwen-Audio's ``bi_ACC_score``: accuracy over the items whose reference is yes or no."""
    scored = [i["score"] for i in items if i["yes_no"]]
    if not scored:
        return task.not_a_number("acc_yes_no", "no item's reference is yes or no")
    value = sum(scored) / len(scored)
    task.report_stderr("acc_yes_no", proportion_stderr(value, len(scored)))
    return value
