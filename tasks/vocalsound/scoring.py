"""VocalSound's scores, by the two readings its reference evaluations use (the results name both):

* ``acc`` (lmms-eval's ``tasks/vocalsound/utils.py``, EvolvingLMMs-Lab/lmms-eval@75571cf, which reproduces
  Qwen2-Audio-Instruct's number): the first of Laughter, Sniff, Throat, Cough, Sigh, Sneeze found in the
  lower-cased answer, case-insensitively ("Throat" read as Throat clearing); none found, wrong. "laughing" and
  "sneezing" contain no class name and are read as none (as lmms-eval reads them).
* ``exact_match`` (Qwen2-Audio's ``eval_audio/evaluate_vocal_sound.py``, QwenLM/Qwen2-Audio@595360e): the answer,
  left-stripped, equal to the class name, as the model cards' base-model numbers are scored.

Accuracy per class, gender and age group (the dataset's own breakdown) in
``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted (``audio_missing``) and wrong.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown

SEARCH_ORDER = ("Laughter", "Sniff", "Throat", "Cough", "Sigh", "Sneeze")


def substring_class(response) -> str | None:
    """lmms-eval's ``get_answer``."""
    if not isinstance(response, str):
        return None
    lowered = response.lower()
    for name in SEARCH_ORDER:
        if name.lower() in lowered:
            return "Throat clearing" if name == "Throat" else name
    return None


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    response = "" if missing else results[0]
    right = float(substring_class(response) == doc["reference"])
    item = {"doc_id": doc["doc_id"], "score": right, "class": doc["reference"], "gender": doc["gender"],
            "age": doc["age"]}
    return {"acc": item, "exact_match": float(isinstance(response, str) and response.lstrip() == doc["reference"]),
            "audio_missing": float(missing)}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task, ("class", "gender", "age"))
