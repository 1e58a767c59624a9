"""Clotho captioning's scores: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: Qwen-Audio's model card (Clotho CIDEr 0.441, SPICE 0.136, SPIDEr 0.288) scored by QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:27-49 (caption-evaluation-tools' coco_caption: PTB tokenizer, Cider, Meteor, Spice; SPIDEr their mean), on its own ``data/caption/clotho_eval.jsonl``, not a Hub copy).

A clip that is missing or unplayable has no answer: counted (``audio_missing``) and scored as the empty caption
(it stays in the corpus, whose CIDEr-D IDF counts its references). The answer is scored as the model wrote it (the
PTB tokenizer lower-cases it and drops punctuation).
"""

from __future__ import annotations

from lm_eval_audio.metrics import captioning


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    entry = captioning.item(doc["doc_id"], "" if missing else results[0], doc["references"])
    return {**{metric: entry for metric in captioning.METRICS}, "audio_missing": float(missing)}


def cider_d(items, task):
    return captioning.aggregate("cider_d", items, task)


def spice(items, task):
    return captioning.aggregate("spice", items, task)


def spider(items, task):
    return captioning.aggregate("spider", items, task)


def meteor_dcase(items, task):
    return captioning.aggregate("meteor_dcase", items, task)
