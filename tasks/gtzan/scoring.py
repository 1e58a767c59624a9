"""GTZAN's score: ``acc``, MiDashengLM's single-target tagging reading (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/compute_at_acc.py:28-30): right when the genre, lower-cased, is a substring of the lower-cased, stripped
answer (``class_reading.label_in_answer``). "hip hop" or "hip-hop" does not contain "hiphop" and is read wrong, as
that script reads it. Accuracy per genre in ``lm_eval_audio_data.official_breakdown``. A missing clip has no
answer: counted (``audio_missing``) and wrong."""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_by
from lm_eval_audio.benchmarks.class_reading import label_in_answer
from lm_eval_audio.metrics.stderr import proportion_stderr


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    right = float(not missing and label_in_answer(results[0], doc["reference"]))
    return {"acc": {"doc_id": doc["doc_id"], "score": right, "class": doc["reference"]},
            "audio_missing": float(missing)}


def acc(items: list[dict], task) -> float:
    task.note_for_task("official_breakdown", "acc", {"class": accuracy_by("class", [(i, i["score"]) for i in items])})
    task.report_item_scores("acc", [(i["doc_id"], i["score"]) for i in items])
    if not items:
        return task.not_a_number("acc", "the task has no item to score")
    value = sum(i["score"] for i in items) / len(items)
    task.report_stderr("acc", proportion_stderr(value, len(items)))
    return value
