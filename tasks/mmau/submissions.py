"""Predictions for a test set whose answers are withheld (MMAU test: scored by the benchmark's own server).

The task keeps each response beside the item's id and fields, under the key the official evaluation reads
(MMAU's ``evaluation.py``: ``model_output``), and the startup hook writes them as one JSON list,
``<task>_submission_<date>.json``, beside the results, as the official script's input.
"""

from __future__ import annotations

from lm_eval_audio.storage import run_state

FIELDS = ("uniq_id", "question", "choices", "task", "difficulty", "category", "sub_category", "source")
RENAMED = {"uniq_id": "id", "sub_category": "sub-category", "source": "dataset"}


def entry(doc: dict, response: str, key: str) -> dict:
    item = {RENAMED.get(k, k): doc[k] for k in FIELDS if k in doc}
    item["split"] = "test"
    item[key] = response
    return {"doc_id": doc["doc_id"], "item": item}


def collect(entries: list[dict]) -> int:
    """Keep the run's predictions for the results writer; the number of items kept."""
    state = run_state.current()
    state.submissions[state.task] = [e["item"] for e in sorted(entries, key=lambda e: e["doc_id"])]
    return len(entries)
