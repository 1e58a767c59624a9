"""Predictions for a test set whose answers are withheld (MMAU test: scored by the benchmark's own server).

MMAU's instructions ask for the benchmark file itself with each answer added: the task keeps each item's record
exactly as the file has it (every key and value, in its order; ``choice_layout`` keeps it on the document as
``record``) plus the response under the key the official evaluation reads (``evaluation.py``:
``model_output``), and the startup hook writes them as one JSON list, ``<task>_submission_<date>.json``, beside
the results, in the file's order.
"""

from __future__ import annotations

import json


def entry(doc: dict, response: str, key: str) -> dict:
    item = json.loads(doc["record"])
    item[key] = response
    return {"doc_id": doc["doc_id"], "item": item}


def collect(entries: list[dict], task) -> int:
    """Keep the run's predictions for the results writer (``task``: the task's ``TaskScoring``); the number of
    items kept."""
    task.submit([e["item"] for e in sorted(entries, key=lambda e: e["doc_id"])])
    return len(entries)
