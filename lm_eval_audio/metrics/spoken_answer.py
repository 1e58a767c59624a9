"""A spoken answer as lm-eval carries it: the transcript of what the model said (the ``str`` its task scores), with the
model's own text and the saved audio file; and the key that asks for spoken answers.

The model wrappers make them (``model_wrappers.spoken_answers``), the seam writes them into the logged samples
(``spoken_answer``), and the spoken metrics read them (``metrics.spoken_scores``), after any filter of the task
(:meth:`SpokenAnswer.filtered`).
"""

from __future__ import annotations

KEY = "spoken_answers"  # the metadata key and model argument that ask for spoken answers


def is_spoken(metadata: dict | None) -> bool:
    """Whether a task's metadata asks for spoken answers."""
    value = (metadata or {}).get(KEY)
    return value is True or str(value).strip().lower() in ("true", "1", "yes", "on")


class SpokenAnswer(str):
    """A spoken answer: the ``str`` is its transcript, what the task scores; ``text`` the model's own text channel
    (the thinker's text, the server's ``message.content``, what the cascade's TTS read); ``audio`` the saved file
    (path, sample_rate, seconds, sha256); ``recognizer`` what transcribed it; ``quality`` its scores under the quality
    metrics its task names, once rated (``model_wrappers.answer_quality``). Called with a string alone (lm-eval's
    ``process_results`` makes the gold answer ``type(result)(gold)``) it gives that plain ``str``."""

    def __new__(cls, transcript: str, text: str | None = None, audio: dict | None = None, recognizer: str = "",
                heard: str | None = None, quality: dict | None = None):
        if audio is None:
            return str(transcript)
        obj = super().__new__(cls, transcript)
        obj.text, obj.audio, obj.recognizer = text or "", dict(audio), recognizer
        obj.transcript = transcript if heard is None else heard  # the whole transcript, whatever a filter kept
        obj.quality = quality if quality is not None else {}  # shared with what a filter makes of it
        return obj

    def __reduce__(self):  # kept through --use_cache's pickling and the gather of several ranks
        return (SpokenAnswer, (str(self), self.text, self.audio, self.recognizer, self.transcript, self.quality))

    def filtered(self, value):
        """What a task's filter made of this answer (an extracted letter, a cleaned string), still saying it was
        spoken, so that the spoken metrics read it after any filter (:func:`carried_through_filters`)."""
        if not isinstance(value, str) or isinstance(value, SpokenAnswer):
            return value
        return SpokenAnswer(value, self.text, self.audio, self.recognizer, self.transcript, self.quality)

    def record(self) -> dict:
        """What the logged sample says of it (``spoken_answer``)."""
        said = {**self.audio, "text": self.text, "transcript": self.transcript, "recognizer": self.recognizer}
        return {**said, "quality": dict(self.quality)} if self.quality else said


def flat(responses):
    """Each answer of a logged sample's ``resps`` or a document's results (nested lists), in order."""
    if isinstance(responses, (list, tuple)):
        for item in responses:
            yield from flat(item)
    else:
        yield responses


def spoken_of(responses) -> list[SpokenAnswer]:
    """The spoken answers among a logged sample's ``resps`` or a document's results."""
    return [answer for answer in flat(responses) if isinstance(answer, SpokenAnswer)]


def said(results: list, task_name: str) -> tuple[str, str]:
    """(what a document's first answer says, the model's own text): a spoken answer's transcript and text; ("", "")
    where a task answered in speech got no spoken answer (a failure the spoken metrics count); a text answer twice,
    where the run asked for text."""
    from lm_eval_audio.storage import run_state

    answer = results[0] if results else ""
    if isinstance(answer, SpokenAnswer):
        return str(answer), answer.text
    return ("", "") if task_name in run_state.current().spoken else (str(answer), str(answer))


def carried_through_filters(resps: list, filtered):
    """A document's filtered answer(s) (one filter's ``filtered_resps`` entry), each still spoken where the answer
    it was made from was: a filter that keeps one answer per repeat is read repeat by repeat, one that keeps a
    single answer (``take_first``) from the first repeat. A failed answer stays the failure it is."""
    if isinstance(filtered, list):
        if len(filtered) != len(resps):
            return filtered  # a filter that pools the repeats: no answer of its own to say it was spoken
        return [raw.filtered(v) if isinstance(raw, SpokenAnswer) else v for raw, v in zip(resps, filtered)]
    first = resps[0] if resps else None
    return first.filtered(filtered) if isinstance(first, SpokenAnswer) else filtered
