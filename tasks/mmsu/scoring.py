"""MMSU's scoring, as ``mmsu_evaluation.py`` (github.com/dingdongwang/MMSU@217d1d3) scores a response.

Reading (``official_letter``): the response stripped, every newline removed; empty or exactly ``None``: no answer
(counted, wrong); else its first character if it is one of A-D (upper case only), else its second-to-last
character if that is; else the script prints "Wrong format response" and leaves the item out of every
denominator. Right when the chosen choice's text equals ``answer_gt`` exactly.

* ``official_acc``: right over the items the script counts (a task per category: its "Category: X, Average
  Accuracy"), with the script's lines per category x sub-category, and the leaderboard's columns (Semantics,
  Phonology, Paralinguistics) and the 47 tasks, in ``lm_eval_audio_data.official_breakdown``; pooled over the
  ``mmsu`` group, its ``overall`` is the script's "Overall Accuracy".
* ``acc_all_items``: the same reading with every item counted (those the script leaves out counted wrong): not the
  script's number; the two agree when it leaves none out.
* ``left_out_rate``: the share of items the script would leave out.

A missing clip has no response: counted, wrong (``audio_missing``).
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_by
from lm_eval_audio.metrics.stderr import proportion_stderr
from lm_eval_audio.tasks.mmsu.data import LETTERS

LEFT_OUT = "left out"  # the script's "Wrong format response" (and a response that is not text)


def official_letter(response) -> str | None:
    """The letter the script reads, None for no answer (counted wrong), ``LEFT_OUT`` where it skips the item."""
    if not isinstance(response, str):
        return LEFT_OUT  # "Error prediction!"
    predict = response.strip().replace("\n", "")
    if predict == "None" or not predict:
        return None
    if predict[0] in LETTERS:
        return predict[0]
    if len(predict) > 1 and predict[-2] in LETTERS:
        return predict[-2]
    return LEFT_OUT


def _leaderboard_column(doc: dict) -> str:
    """The README leaderboard's column: Semantics or Phonology within Linguistics, Paralinguistics whole."""
    part = doc["sub_sub_category"] if doc["sub_category"] == "Linguistics" else doc["sub_category"]
    return f"{part} ({doc['category'][:3]}.)"


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    letter = None if missing else official_letter(results[0])
    left_out = letter == LEFT_OUT
    right = letter in LETTERS and doc["choices"][LETTERS.index(letter)] == doc["answer"]
    item = {"doc_id": doc["doc_id"], "score": float(right), "left_out": left_out, "overall": "all",
            "category": doc["category"], "category_sub_category": f"{doc['category']} / {doc['sub_category']}",
            "leaderboard_column": _leaderboard_column(doc), "task_name": doc["task_name"]}
    return {"official_acc": item, "acc_all_items": float(right), "left_out_rate": float(left_out),
            "audio_missing": float(missing)}


BREAKDOWN = ("overall", "category", "category_sub_category", "leaderboard_column", "task_name")


def official_acc(items: list[dict], task) -> float:
    counted = [i for i in items if not i["left_out"]]
    task.report_item_scores("official_acc", [(i["doc_id"], None if i["left_out"] else i["score"]) for i in items])
    pairs = [(i, i["score"]) for i in counted]
    task.note_for_task("official_breakdown", "official_acc", {f: accuracy_by(f, pairs) for f in BREAKDOWN})
    if not counted:
        return task.not_a_number("official_acc", "every item was left out of mmsu_evaluation.py's denominator (no "
                                 "answer it could read, or no clip: left_out_rate and audio_missing count them); "
                                 "acc_all_items scores them wrong")
    acc = sum(i["score"] for i in counted) / len(counted)
    task.report_stderr("official_acc", proportion_stderr(acc, len(counted)))
    return acc
