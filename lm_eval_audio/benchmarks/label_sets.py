"""Class names read from a free-text answer, as the tagging evaluations of audio-LM model cards read them: one label
found in the answer (single-target tagging, scored by accuracy) and a set of labels split out of it (multi-target
tagging, scored by mean average precision over the classes). The task folders say whose reading each one is.

(The single-target reading, a label found in the answer, is ``class_reading.label_in_answer``.)

* :func:`answer_labels`: the answer split into labels by one of the three rules of the same repository's
  evaluate/compute_map.py:23-42 (``process_text``), which picks one by the model's name; ``joins_commas`` is that
  rule's branch for its multi-target sound-event set (chosen there by the dataset's name), where an AudioSet-style
  "A, B" name is read as that set's "A and B".
* :func:`mean_average_precision`: compute_map.py:45-53 (``get_mAP``): labels outside the references' vocabulary
  dropped, the sets made 0/1 indicator rows, and scikit-learn's ``average_precision_score(average="macro")``
  restated here (step-wise precision-recall area per class, the mean over the classes that occur in the references).
"""

from __future__ import annotations

# The splitting rules of compute_map.py's process_text, by the model name it tests ("qwen" in it, "kimi" in it,
# anything else: MiDashengLM's own).
READINGS = ("semicolons", "qwen", "kimi")


def answer_labels(response, reading: str = "semicolons", joins_commas: bool = True) -> list[str]:
    """The labels a free-text answer names, lower-cased, by compute_map.py's ``process_text``:

    * ``semicolons`` (its default branch): split on ";", each stripped; with ``joins_commas`` ", and " and then ", "
      inside a label become " and ".
    * ``qwen``: split on ";" where the answer has one, else on ","; each stripped, "_" made " ", and " - " made
      " and " (``joins_commas``) or ", ".
    * ``kimi``: split on ","; each stripped, "_" made " ".
    """
    if not isinstance(response, str):
        return []
    text = response.lower()
    if reading == "qwen":
        parts = text.split(";") if ";" in text else text.split(",")
        return [p.strip().replace("_", " ").replace(" - ", " and " if joins_commas else ", ") for p in parts]
    if reading == "kimi":
        return [p.strip().replace("_", " ") for p in text.split(",")]
    if reading != "semicolons":
        raise ValueError(f"unknown label reading {reading!r}: one of {', '.join(READINGS)}")
    parts = [p.strip() for p in text.split(";")]
    return [p.replace(", and ", " and ").replace(", ", " and ") for p in parts] if joins_commas else parts


def average_precision(truth: list[int], scores: list[float]) -> float:
    """scikit-learn's ``average_precision_score`` of one class: the sum over the distinct scores, highest first, of
    (recall gained) x (precision at that threshold). With 0/1 scores: a class predicted for some items scores
    recall(1) x precision(1) + (1 - recall(1)) x prevalence; predicted for none (or all), its prevalence."""
    positives = sum(truth)
    if not positives:
        return 0.0  # scikit-learn's value (with a warning) for a class with no positive; never met in get_mAP
    total, recall_before = 0.0, 0.0
    for threshold in sorted(set(scores), reverse=True):
        chosen = [t for t, s in zip(truth, scores) if s >= threshold]
        hits = sum(chosen)
        recall = hits / positives
        total += (recall - recall_before) * (hits / len(chosen))
        recall_before = recall
    return total


def mean_average_precision(references: list[list[str]], predictions: list[list[str]]) -> tuple[float, dict]:
    """(mAP, per-class {label: {"items": positives, "ap": AP}}) of predicted label sets against the reference sets:
    compute_map.py's get_mAP. The classes are the labels the references hold; a predicted label outside them is
    dropped (it can neither help nor hurt); each class's AP over the 0/1 rows; the mAP their plain mean."""
    classes = sorted({label for labels in references for label in labels})
    per_class = {}
    for label in classes:
        truth = [int(label in labels) for labels in references]
        scores = [float(label in labels) for labels in predictions]
        per_class[label] = {"items": sum(truth), "ap": average_precision(truth, scores)}
    if not per_class:
        return float("nan"), {}
    return sum(c["ap"] for c in per_class.values()) / len(per_class), per_class
