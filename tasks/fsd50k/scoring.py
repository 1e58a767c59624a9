"""FSD50K's score: ``mAP``, MiDashengLM's multi-target tagging evaluation (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/compute_map.py), the one behind its card's FSD50K mAP (37.58 there is this number x 100):

* the answer, lower-cased, split into labels by the reading the run names (``--metadata '{"label_reading": ...}'``;
  ``semicolons``, MiDashengLM's own, by default: split on ";", and an AudioSet-style "A, B" read as FSD50K's
  "A and B"; ``qwen`` and ``kimi`` are that script's readings of those models' answers), ``label_sets.answer_labels``;
* the reference labels lower-cased; a predicted label outside the labels the references hold is dropped;
* per label, the average precision of the 0/1 predictions; the mAP is their mean over the labels
  (``label_sets.mean_average_precision``, scikit-learn's macro ``average_precision_score`` restated).

The cards give no accuracy for FSD50K: none is computed. AP per label in ``lm_eval_audio_data.per_label_ap``.
A missing clip has no answer: counted (``audio_missing``) and read as naming no label.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.label_sets import answer_labels, mean_average_precision


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    predicted = [] if missing else answer_labels(results[0], doc["label_reading"])
    return {"mAP": {"doc_id": doc["doc_id"], "labels": [label.lower() for label in doc["labels"]],
                    "predicted": predicted},
            "audio_missing": float(missing)}


def mean_ap(items: list[dict], task) -> float:
    if not items:
        return task.not_a_number("mAP", "the task has no item to score")
    value, per_class = mean_average_precision([i["labels"] for i in items], [i["predicted"] for i in items])
    # not official_breakdown: the run pools those entries as accuracies over a group (choice_layout.pooled_by_group)
    task.note_for_task("per_label_ap", "mAP", {"class": per_class})
    return value
