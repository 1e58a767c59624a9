"""What a task answered in speech reports beside its own scores, read off each document's spoken answer.

* ``speech_text_wer`` (``speech_text_cer`` for Mandarin): how far the transcript of what the model said strays from
  what it wrote: URO-Bench's text-speech consistency (Ruiqi-Yan/URO-Bench@9e74bc04 metrics/mark_wer.py:16-24 and
  104-116), the error rate of each answer's transcript against the model's own text answer (the reference), averaged
  over the answers; an answer whose text is empty counts 1, as URO-Bench counts one jiwer cannot score. English is
  compared after Whisper's ``EnglishTextNormalizer`` (URO-Bench's, after lower-casing), Mandarin by characters after
  SpeechIO's ``cn_tn`` (as Qwen2-Audio's evaluate_asr.py scores Chinese; URO-Bench removes punctuation and reads
  numbers with cn2an instead), any other language after Whisper's ``BasicTextNormalizer``
  (``metrics.text_normalizers.RULES``). A recognizer's own errors count here too: the bundled tiny.en's are large.
* ``answer_seconds``: the mean length of the spoken answers, in seconds;
* ``words_per_minute``: the words of the transcripts over the minutes spoken (all answers together);
* ``spoken_failed``: the documents whose spoken answer failed (a counted failure of the model), left out of the
  three above and scored by the task as it scores an empty answer.

A document's results hold the answers of its repeats: its error rate and length are the means over them.
"""

from __future__ import annotations

from lm_eval_audio.metrics import error_rates
from lm_eval_audio.storage import run_state

# language -> (text_normalizers rule, metric name)
_RULES = {"en": ("whisper_english", "speech_text_wer"), "zh": ("cn_tn_chars", "speech_text_cer")}
_OTHER = ("whisper_basic", "speech_text_wer")
DURATION, RATE, FAILED = "answer_seconds", "words_per_minute", "spoken_failed"


def rule_and_metric(language: str | None) -> tuple[str, str]:
    return _RULES.get(language or "en", _OTHER)


def is_spoken(metadata: dict | None) -> bool:
    """Whether a task's metadata asks for spoken answers."""
    value = (metadata or {}).get("spoken_answers")
    return value is True or str(value).strip().lower() in ("true", "1", "yes", "on")


def _language(task: str) -> str | None:
    spec = run_state.current().spoken.get(task)
    return getattr(spec, "language", None)


def metric_names(task: str) -> tuple[str, ...]:
    return rule_and_metric(_language(task))[1], DURATION, RATE, FAILED


def per_document(task: str, results: list) -> dict:
    """The spoken metrics' items of one document: its spoken answers' edit counts, seconds and words (None where it
    has none), and whether it failed."""
    rule, metric = rule_and_metric(_language(task))
    answers = [r for r in _flat(results) if hasattr(r, "audio") and hasattr(r, "transcript")]
    if not answers:
        return {metric: None, DURATION: None, RATE: None, FAILED: 1}
    rates = []
    for a in answers:
        edits = error_rates.counts(a.text, a.transcript, rule)
        rates.append(edits.errors / edits.length if edits.length else 1.0)
    seconds = [float(a.audio["seconds"]) for a in answers]
    # each metric's item is what the logged sample shows under its name: the document's own value
    return {metric: sum(rates) / len(rates), DURATION: sum(seconds) / len(seconds),
            RATE: {"words": sum(len(a.transcript.split()) for a in answers), "seconds": round(sum(seconds), 3)},
            FAILED: 0}


def _flat(results):
    for r in results:
        if isinstance(r, (list, tuple)):
            yield from _flat(r)
        else:
            yield r


def _kept(items) -> list:
    return [item for item in items if item is not None]


def mean_of_documents(items) -> float:
    """The mean over the documents with a spoken answer (each document's own mean over its repeats)."""
    kept = _kept(items)
    return sum(kept) / len(kept) if kept else float("nan")


def words_per_minute(items) -> float:
    """The words of every transcript over the minutes of every answer."""
    kept = _kept(items)
    seconds = sum(i["seconds"] for i in kept)
    return 60.0 * sum(i["words"] for i in kept) / seconds if seconds else float("nan")


def failed(items) -> int:
    return int(sum(items))


def aggregations(task: str) -> dict:
    metric, duration, rate, fail = metric_names(task)
    return {metric: mean_of_documents, duration: mean_of_documents, rate: words_per_minute, fail: failed}


def higher_is_better(task: str) -> dict:
    metric, duration, rate, fail = metric_names(task)
    return {metric: False, duration: True, rate: True, fail: False}
