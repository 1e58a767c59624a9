"""How the spoken answers of a task sound: the quality metrics a task's YAML names in its ``metric_list``, read off
each document's spoken answers once they are rated (``model_wrappers.answer_quality`` rates them in batches, before
the task is scored, with the raters of ``model_wrappers.quality_raters``).

* ``utmos``: UTMOS22 strong's predicted MOS, 1-5;
* ``dnsmos_sig``, ``dnsmos_bak``, ``dnsmos_ovrl``: DNSMOS P.835 (speech signal, background, overall), 1-5;
* ``dnsmos_p808``: DNSMOS P.808, 1-5;
* ``speaker_similarity``: the cosine between speaker embeddings of the answer and of the document's own clip
  (the voice it was asked to keep), -1 to 1;
* ``emotion``: how much of the emotion the document asks for (its ``target_emotion``) emotion2vec+ large hears in
  the answer, 0-1 (or the weights' scale): for a label (angry, disgusted, fearful, happy, neutral, other, sad,
  surprised, unknown), its probability among all nine, as URO-Bench's GenEmotion reads it; for a mapping of labels
  to weights, the weights' mean under the probabilities of those labels scaled to sum to one, as VocalBench's
  acoustic emotion score reads its five;
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
    "emotion": "emotion2vec+ large's reading of the emotion the document asks for (its target_emotion)",
}
TARGET = "target_emotion"  # the document field the emotion metric reads
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
    return None if metric == "emotion" else answer.quality.get(metric)  # emotion reads the document: per_document


def emotion_score(probabilities: dict[str, float], target) -> float | None:
    """The ``emotion`` of one answer (emotion2vec's label -> probability) for a document's ``target_emotion``: a
    label's probability; for a mapping label -> weight, the weights' mean under those labels' probabilities scaled
    to sum to one. None (unrated, counted) where the target names no label the recognizer has or a weight is no
    number: a document's field never stops the scoring after the model has answered."""
    if isinstance(target, str):
        return probabilities.get(target.strip().lower())
    if isinstance(target, dict) and target and all(str(k).lower() in probabilities and isinstance(v, (int, float))
                                                   for k, v in target.items()):
        weights = {str(k).lower(): float(v) for k, v in target.items()}
        total = sum(probabilities[k] for k in weights)
        return sum(probabilities[k] / total * w for k, w in weights.items()) if total > 0 else None
    return None


def answer_value(answer: SpokenAnswer, metric: str, doc: dict | None):
    """One rated answer's value under ``metric``: the rater's score, or for ``emotion`` its reading against the
    document's target (:func:`emotion_score`); None where it was not rated."""
    rated = answer.quality.get(metric)
    if metric != "emotion" or rated is None:
        return rated
    return emotion_score(rated, (doc or {}).get(TARGET))


def shown(metric: str, value) -> str:
    """A rated answer's value as the answers page prints it: emotion's likeliest label and its probability."""
    if isinstance(value, dict):
        label, probability = max(value.items(), key=lambda item: item[1])
        return f"{metric} {label} {probability:.3f}"
    return f"{metric} {value:.3f}"


def per_document(metrics: list[str], results: list, doc: dict | None = None) -> dict:
    """The quality items of one document: each metric's mean over its rated spoken answers, None where none was
    rated (or, for ``emotion``, where the document names no emotion it has), and whether a named metric could not
    rate it (``speech_unrated``; a document that failed to speak is counted in ``spoken_failed`` instead). A
    document whose ``target_emotion`` is null asks for no emotion (a task where only some items do): its ``emotion``
    is None and not counted; one without the field at all is counted, as a document the task failed to describe."""
    answers = spoken_of(results)
    out = {}
    for metric in metrics:
        values = [v for v in (answer_value(a, metric, doc) for a in answers) if v is not None]
        out[metric] = sum(values) / len(values) if values else None
    asked = [m for m in metrics if not (m == "emotion" and doc is not None and TARGET in doc and doc[TARGET] is None)]
    out[UNRATED] = int(bool(answers) and any(out[m] is None for m in asked))
    return out


def aggregations(metrics: list[str]) -> dict:
    return {**{metric: mean_of_documents for metric in metrics}, UNRATED: failed}


def higher_is_better(metrics: list[str]) -> dict:
    return {**{metric: True for metric in metrics}, UNRATED: False}
