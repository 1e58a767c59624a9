"""Per-item results and corpus scores of the speech recognition and speech translation tasks, for a task folder's
``utils.py`` to hand lm-eval (``process_results`` and the aggregations its YAML names).

A document carries ``reference`` (the text the answer is scored against), ``scoring`` (for an error rate, a rule
of ``text_normalizers.RULES``, whose unit makes the metric ``wer`` or ``cer``; for BLEU, ``bleu:<sacrebleu
tokenizer>``) and ``audio_problem`` (why its clip cannot be played, or ""). A document whose clip cannot be
played has no answer: it is counted in ``audio_missing`` and left out of the score, which is over the items the
model heard. A request that failed is answered with an empty string by the wrapper and counted in
``failed_items``: scored as an empty answer (every reference unit an error), so it shows in the score too.

Every score is corpus-level: the edits of all items over their reference units (``error_rates``), or sacrebleu's
corpus BLEU (``bleu``). No per-item value is reported for ``diagnose`` to read: it counts a document right when its
score reaches a threshold, and an error rate is lower when better.
"""

from __future__ import annotations

import logging

from lm_eval_audio.metrics import bleu as bleu_metric
from lm_eval_audio.metrics import error_rates
from lm_eval_audio.metrics.text_normalizers import rule_named

log = logging.getLogger("lm_eval.audio")
BLEU_PREFIX = "bleu:"
NOTHING_HEARD = "no item's clip could be played (audio_missing counts them; the results name why under lm_eval_audio_data)"


def metric_of(scoring: str) -> str:
    """The metric a document's ``scoring`` gives: ``wer``, ``cer`` or ``bleu``."""
    return "bleu" if scoring.startswith(BLEU_PREFIX) else rule_named(scoring).metric


def describe(scoring: str) -> str:
    """One line on how a task is scored, for the results (``lm_eval_audio_data.scoring_rules``) and the log."""
    if scoring.startswith(BLEU_PREFIX):
        return f"corpus BLEU, sacrebleu {bleu_metric.signature(scoring[len(BLEU_PREFIX):])}"
    rule = rule_named(scoring)
    return f"{rule.name}: corpus {rule.says}"


def check_ready(scoring: str) -> None:
    """The rule's normalizer runs (SpeechIO's ``cn_tn.py`` for Chinese CER is a file setup installs): checked as the
    task loads, so that its absence stops the run then, before the model has answered, naming the fix."""
    if not scoring.startswith(BLEU_PREFIX):
        try:
            rule_named(scoring).normalize("")
        except RuntimeError as e:  # cn_tn_data's: the file is not there, or not the pinned one
            raise NormalizerMissing(str(e)) from None


class NormalizerMissing(RuntimeError):
    """A scoring rule's normalizer cannot run (its data file is not installed): said as the task loads."""


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    item = {"doc_id": doc["doc_id"], "reference": doc["reference"], "response": results[0],
            "scoring": doc["scoring"], "missing": missing}
    return {metric_of(doc["scoring"]): item, "audio_missing": float(missing)}


def _heard(items: list[dict], task) -> tuple[list[dict], str | None]:
    heard = [i for i in items if not i["missing"]]
    rules = sorted({i["scoring"] for i in heard})
    if len(rules) > 1:
        raise ValueError(f"{task.name}: its documents are scored by different rules ({', '.join(rules)}); a task "
                         "is scored by one rule: give each rule its own task")
    return heard, (rules[0] if rules else None)


def error_rate(items: list[dict], task) -> float:
    """Corpus word or character error rate (a fraction) over the items the model heard (the YAMLs name it as the
    aggregation of ``wer`` or ``cer``)."""
    heard, scoring = _heard(items, task)
    if scoring is None:
        return task.not_a_number(metric_of(items[0]["scoring"]) if items else "wer", NOTHING_HEARD)
    return error_rates.rate(error_rates.total(error_rates.counts(i["reference"], i["response"], scoring)
                                              for i in heard))


def bleu(items, task):
    """Corpus BLEU (0-100) over the items the model heard, tokenized for the target language."""
    heard, scoring = _heard(items, task)
    if scoring is None:
        return task.not_a_number("bleu", NOTHING_HEARD)
    return bleu_metric.corpus_bleu([i["response"] for i in heard], [i["reference"] for i in heard],
                                   scoring[len(BLEU_PREFIX):])
