"""GTZAN's scores, by the two readings (the results name both, ``lm_eval_audio_data.scoring_rules``):

* ``acc``: UltraEval-Audio's ``prefix-match`` evaluator (``PrefixMatch(ignore_case=True)``,
  OpenBMB/UltraEval-Audio@9b69da6 audio_evals/evaluator/base.py:60-79; registry/evaluator/common.yaml:13-15), the one
  GTZAN's eval task ``music_genre`` names (registry/eval_task/music.yaml:19-26), averaged as its ``acc`` aggregation
  does (audio_evals/agg/base.py:64-70: scikit-learn's ``accuracy_score`` of the evaluator's ``ref`` and ``pred``,
  which are equal exactly when it found a match). Restated in :func:`prefix_match`; run against that code by
  ``scripts/check_gtzan_reading_against_ultraeval.py``. "Jazz." and "jazz music" are right; "The genre is jazz"
  and "hip hop" (for hiphop) are wrong.
* ``label_in_answer``: MiDashengLM's single-target tagging reading (xiaomi-research/dasheng-lm@2e3f2b0
  evaluate/compute_at_acc.py:28-30, ``class_reading.label_in_answer``): the label, lower-cased, anywhere in the
  lower-cased answer ("The genre is jazz" right; "hip hop" still wrong).

Accuracy per genre for each, in ``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted
(``audio_missing``) and wrong in both. (UltraEval-Audio has no such item: its ``load_dataset`` fails on an
undecodable clip; an answer its evaluator cannot read, not a string, is left out of its acc and counted in its
``fail_rate``: here every answer is a string.)
"""

from __future__ import annotations

from lm_eval_audio.benchmarks import class_reading
from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown


def prefix_match(response, label) -> bool:
    """UltraEval-Audio's ``PrefixMatch._eval`` with ``ignore_case=True``: the answer (``.lower().strip()``) begins
    with the label (``str(label).lower().strip()``); failing that, where the label holds a space and the answer none,
    its first ``len(label)`` characters equal the label with its spaces removed (a spaced label read unspaced)."""
    if not isinstance(response, str):
        return False
    answer, reference = response.lower().strip(), str(label).lower().strip()
    n = len(reference)
    if answer[:n] == reference:
        return True
    return " " in reference and " " not in answer and answer[:n] == reference.replace(" ", "")


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    response = None if missing else results[0]
    return {
        "acc": {"doc_id": doc["doc_id"], "score": float(prefix_match(response, doc["reference"])),
                "class": doc["genre"]},
        "label_in_answer": {"doc_id": doc["doc_id"], "class": doc["genre"],
                            "score": float(class_reading.label_in_answer(response, doc["reference"]))},
        "audio_missing": float(missing)}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task)


def label_in_answer_acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task, metric="label_in_answer")
