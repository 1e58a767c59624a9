"""Predictions for a test set whose answers are withheld (MMAU test: scored by the benchmark's own server).

The task keeps each response beside the item's id and fields, under the key the official evaluation reads
(MMAU's ``evaluation.py``: ``model_output``), and the startup hook writes them as one JSON list,
``<task>_submission_<date>.json``, beside the results, as the official script's input.
"""

from __future__ import annotations

FIELDS = ("uniq_id", "question", "choices", "task", "difficulty", "category", "sub_category", "source")
RENAMED = {"uniq_id": "id", "sub_category": "sub-category", "source": "dataset"}


def entry(doc: dict, response: str, key: str) -> dict:
    item = {RENAMED.get(k, k): doc[k] for k in FIELDS if k in doc}
    item["split"] = "test"
    item[key] = response
    return {"doc_id": doc["doc_id"], "item": item}


def collect(entries: list[dict], task) -> int:
    """Keep the run's predictions for the results writer (``task``: the task's ``TaskScoring``); the number of
    items kept."""
    task.submit([e["item"] for e in sorted(entries, key=lambda e: e["doc_id"])])
    return len(entries)
