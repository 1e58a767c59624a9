"""How the spoken answers of a task sound: the quality metrics a task's YAML names in its ``metric_list``, read off
each document's spoken answers once they are rated (``model_wrappers.answer_quality`` rates them in batches, before
the task is scored, with the raters of ``model_wrappers.quality_raters``).

* ``utmos``: UTMOS22 strong's predicted MOS, 1-5;
* ``dnsmos_sig``, ``dnsmos_bak``, ``dnsmos_ovrl``: DNSMOS P.835 (speech signal, background, overall), 1-5;
* ``dnsmos_p808``: DNSMOS P.808, 1-5;
* ``speaker_similarity``: the cosine between speaker embeddings of the answer and of the document's own clip
  (the voice it was asked to keep), -1 to 1;
* ``speech_unrated``: the documents with a spoken answer that a named metric could not rate (an answer with no
  samples, a document without a reference clip, a clip the rater failed on), each left out of the means above.

A document's value is the mean over the spoken answers its task's filter keeps; a task's, the mean over the
documents that have one. Documents with no spoken answer are counted in ``spoken_failed`` (``spoken_scores``).
"""

from __future__ import annotations

from lm_eval_audio.metrics.spoken_answer import SpokenAnswer, spoken_of
from lm_eval_audio.metrics.spoken_scores import failed, mean_of_documents

# metric -> what it measures, its range
QUALITY = {
    "utmos": "UTMOS22 strong's predicted mean opinion score, 1-5",
    "dnsmos_sig": "DNSMOS P.835 speech signal quality, 1-5",
    "dnsmos_bak": "DNSMOS P.835 background noise quality, 1-5",
    "dnsmos_ovrl": "DNSMOS P.835 overall quality, 1-5",
    "dnsmos_p808": "DNSMOS P.808 overall quality, 1-5",
    "speaker_similarity": "cosine between the speaker embeddings of the answer and of the document's clip, -1 to 1",
}
UNRATED = "speech_unrated"
AGGREGATION = "mean_of_rated"  # the name lm-eval knows their aggregation by: the mean over the rated documents


def named(metric_list) -> list[str]:
    """The quality metrics among a task's ``metric_list`` entries, in its order."""
    return [entry["metric"] for entry in (metric_list or [])
            if isinstance(entry, dict) and entry.get("metric") in QUALITY]


def value_of(answer, metric: str):
    """One answer's score under ``metric`` (None where it was not rated); lm-eval's per-document metric function
    for a task without a ``process_results`` of its own."""
    if not isinstance(answer, SpokenAnswer):
        raise ValueError(f"{metric} rates spoken answers, and this answer is text: name it only in a task answered "
                         "in speech (spoken_answers: true, docs/SPOKEN.md)")
    return answer.quality.get(metric)


def per_document(metrics: list[str], results: list) -> dict:
    """The quality items of one document: each metric's mean over its rated spoken answers, None where none was
    rated, and whether a named metric could not rate it (``speech_unrated``; a document that failed to speak is
    counted in ``spoken_failed`` instead)."""
    answers = spoken_of(results)
    out = {}
    for metric in metrics:
        values = [a.quality[metric] for a in answers if a.quality.get(metric) is not None]
        out[metric] = sum(values) / len(values) if values else None
    out[UNRATED] = int(bool(answers) and any(out[m] is None for m in metrics))
    return out


def aggregations(metrics: list[str]) -> dict:
    return {**{metric: mean_of_documents for metric in metrics}, UNRATED: failed}


def higher_is_better(metrics: list[str]) -> dict:
    return {**{metric: True for metric in metrics}, UNRATED: False}
