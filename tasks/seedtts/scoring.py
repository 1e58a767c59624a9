"""Seed-TTS-eval's WER, as its ``run_wer.py`` and ``average_wer.py`` compute it (BytedanceSpeech/seed-tts-eval@95003fe):

* the transcript of the model's speech (for Chinese first converted to simplified characters with
  ``zhconv.convert(..., 'zh-cn')``, as the script converts Paraformer's) and the text it was asked to say are each
  stripped of every character of ``zhon.hanzi.punctuation + string.punctuation`` except the apostrophe, their
  double spaces replaced once by one; Chinese is then split into characters joined by spaces, English lower-cased
  (``process_one``);
* the error rate of one utterance is jiwer's WER of the two (``compute_measures(truth, hypo)["wer"]``; jiwer 4's
  ``process_words`` computes the same, with the same default transform);
* a set's WER is the mean of its utterances' rates (``average_wer.py``: ``np.mean(wers)``; printed there x100 as a
  percentage, kept here as a fraction, as every error rate of this plugin is).

The script skips an utterance whose speech file is missing; here a document the model failed to speak is left out
of the mean the same way and counted (``spoken_failed``); one whose prompt clip is missing is not asked
(``audio_missing``).
"""

from __future__ import annotations

import string

WER = "seedtts_wer"


def _punctuation() -> str:
    from zhon.hanzi import punctuation

    return punctuation + string.punctuation


def normalized(text: str, language: str) -> str:
    """``process_one``'s normalization of one side."""
    for mark in _punctuation():
        if mark == "'":
            continue
        text = text.replace(mark, "")
    text = text.replace("  ", " ")
    if language == "zh":
        return " ".join(list(text))
    return text.lower()


def utterance_wer(transcript: str, text: str, language: str) -> float:
    """One utterance's error rate: ``run_wer.py``'s ``process_one(hypo=transcript, truth=text)``'s ``wer``."""
    import jiwer

    if language == "zh":
        import zhconv

        transcript = zhconv.convert(transcript, "zh-cn")
    return jiwer.process_words(normalized(text, language), normalized(transcript, language)).wer


def process_results(doc: dict, results: list, task) -> dict:
    from lm_eval_audio.metrics.spoken_answer import SpokenAnswer

    missing = bool(doc["audio_problem"])
    said = results[0] if results else None
    spoken = isinstance(said, SpokenAnswer) and not missing
    return {"audio_missing": float(missing),
            WER: utterance_wer(str(said), doc["text"], doc["language"]) if spoken else None}


def seedtts_wer(items: list, task) -> float:
    """The mean of the utterances' rates, over those spoken (``average_wer.py``)."""
    rates = [r for r in items if r is not None]
    if not rates:
        return task.not_a_number(WER, f"none of the {len(items)} document(s) was spoken (spoken_failed and "
                                 "audio_missing count them)")
    return sum(rates) / len(rates)
