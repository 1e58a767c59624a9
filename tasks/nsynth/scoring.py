"""NSynth's score: ``acc``, MiDashengLM's single-target tagging reading (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/compute_at_acc.py:28-30), the one behind its card's NSynth accuracy: right when the class (the instrument
family, or the source), lower-cased, is a substring of the lower-cased, stripped answer
(``class_reading.label_in_answer``). "synth lead" does not contain "synth_lead"; "electric guitar" contains "guitar"
(read right), as that script reads them. Accuracy per class, and per family or source (the other attribute), in
``lm_eval_audio_data.official_breakdown``. A missing clip has no answer: counted (``audio_missing``) and wrong."""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_with_breakdown
from lm_eval_audio.benchmarks.class_reading import label_in_answer


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    right = float(not missing and label_in_answer(results[0], doc["reference"]))
    return {"acc": {"doc_id": doc["doc_id"], "score": right, "class": doc["reference"], "family": doc["family"],
                    "source": doc["source"]},
            "audio_missing": float(missing)}


def acc(items: list[dict], task) -> float:
    return accuracy_with_breakdown(items, task, ("class", "family", "source"))
