"""AudioCaps captioning's scores: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: UltraEval-Audio's caption task (OpenBMB/UltraEval-Audio@9b69da6 registry/eval_task/caption.yaml, agg ``coco``: audio_evals/agg/base.py:141-155, the coco-caption metrics); Audio Flamingo 3 and MiDashengLM print AudioCaps numbers (CIDEr; FENSE) from their own evaluation files).

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
