"""What a task answered in speech reports beside its own scores, read off each document's spoken answer.

* ``speech_text_wer`` (``speech_text_cer`` for Mandarin): how far the transcript of what the model said strays from
  what it wrote: URO-Bench's text-speech consistency (Ruiqi-Yan/URO-Bench@9e74bc04 metrics/mark_wer.py:16-24 and
  104-116), the error rate of each answer's transcript against the model's own text answer (the reference), averaged
  over the answers; an answer whose text is empty counts 1, as URO-Bench counts one jiwer cannot score. English is
  compared after Whisper's ``EnglishTextNormalizer`` (URO-Bench's, after lower-casing), Mandarin by characters after
  SpeechIO's ``cn_tn`` (as Qwen2-Audio's evaluate_asr.py scores Chinese; URO-Bench removes punctuation and reads
  numbers with cn2an instead), any other language (or one Whisper detects) after Whisper's ``BasicTextNormalizer``
  (``metrics.text_normalizers.RULES``). A recognizer's own errors count here too: the bundled tiny.en's are large.
* ``answer_seconds``: the mean length of the spoken answers, in seconds;
* ``words_per_minute`` (``characters_per_minute`` for Mandarin): the transcripts' words (characters) over the minutes
  spoken, all answers together;
* ``spoken_failed``: the documents whose spoken answer failed (a counted failure of the model), left out of the
  three above and scored by the task as it scores an empty answer.

A document's error rate and length are the means over the spoken answers its task's filter keeps (one, under
lm-eval's default ``take_first``).
"""

from __future__ import annotations

from lm_eval_audio.metrics import error_rates
from lm_eval_audio.metrics.spoken_answer import spoken_of
from lm_eval_audio.storage import run_state

# language -> (text_normalizers rule, the consistency metric, the pace metric: words, or characters for Mandarin)
_BY_LANGUAGE = {"en": ("whisper_english", "speech_text_wer", "words_per_minute"),
                "zh": ("cn_tn_chars", "speech_text_cer", "characters_per_minute")}
_OTHER = ("whisper_basic", "speech_text_wer", "words_per_minute")
DURATION, FAILED = "answer_seconds", "spoken_failed"


def by_language(language: str | None) -> tuple[str, str, str]:
    """The normalization rule, the consistency metric and the pace metric of answers spoken in ``language``."""
    return _BY_LANGUAGE.get(language or "en", _OTHER)


def _language(task: str) -> str | None:
    spec = run_state.current().spoken.get(task)
    return getattr(spec, "language", None)


def metric_names(task: str) -> tuple[str, ...]:
    _, consistency, pace = by_language(_language(task))
    return consistency, DURATION, pace, FAILED


def _units(text: str, pace: str) -> int:
    return len([c for c in text if not c.isspace()]) if pace == "characters_per_minute" else len(text.split())


def per_document(task: str, results: list) -> dict:
    """The spoken metrics' items of one document, each what the logged sample shows under its name: the mean error
    rate and length of the spoken answers the task's filter kept, their words (or characters) and seconds; None for
    each where none was spoken, and the document counted in ``spoken_failed``."""
    rule, consistency, pace = by_language(_language(task))
    answers = spoken_of(results)
    if not answers:
        return {consistency: None, DURATION: None, pace: None, FAILED: 1}
    rates = []
    for a in answers:
        edits = error_rates.counts(a.text, a.transcript, rule)
        rates.append(edits.errors / edits.length if edits.length else 1.0)
    seconds = [float(a.audio["seconds"]) for a in answers]
    return {consistency: sum(rates) / len(rates), DURATION: sum(seconds) / len(seconds),
            pace: {"units": sum(_units(a.transcript, pace) for a in answers), "seconds": round(sum(seconds), 3)},
            FAILED: 0}


def _kept(items) -> list:
    return [item for item in items if item is not None]


def mean_of_documents(items) -> float:
    """The mean over the documents with a spoken answer."""
    kept = _kept(items)
    return sum(kept) / len(kept) if kept else float("nan")


def per_minute(items) -> float:
    """The words (or characters) of every transcript over the minutes of every answer."""
    kept = _kept(items)
    seconds = sum(i["seconds"] for i in kept)
    return 60.0 * sum(i["units"] for i in kept) / seconds if seconds else float("nan")


def failed(items) -> int:
    return int(sum(items))


def aggregations(task: str) -> dict:
    consistency, duration, pace, fail = metric_names(task)
    return {consistency: mean_of_documents, duration: mean_of_documents, pace: per_minute, fail: failed}


def higher_is_better(task: str) -> dict:
    """Lower consistency error and fewer failures are better; length and pace have no better (None, as lm-eval
    writes a metric without a direction)."""
    consistency, duration, pace, fail = metric_names(task)
    return {consistency: False, duration: None, pace: None, fail: False}
