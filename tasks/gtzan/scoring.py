"""GTZAN's score: ``acc``, MiDashengLM's single-target tagging reading (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/compute_at_acc.py:28-30): right when the genre, lower-cased, is a substring of the lower-cased, stripped
answer (``class_reading.label_in_answer``). "hip hop" or "hip-hop" does not contain "hiphop" and is read wrong, as
that script reads it. Accuracy per genre in ``lm_eval_audio_data.official_breakdown``. A missing clip has no
answer: counted (``audio_missing``) and wrong."""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown
from lm_eval_audio.benchmarks.class_reading import label_in_answer


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    right = float(not missing and label_in_answer(results[0], doc["reference"]))
    return {"acc": {"doc_id": doc["doc_id"], "score": right, "class": doc["reference"]},
            "audio_missing": float(missing)}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task)
