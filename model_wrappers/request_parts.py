"""What a model wrapper reads from one lm-eval request.

Requests arrive as ``(context, gen_kwargs | continuation[, {"audio": [ref, ...]}])``, or
``(text[, {"audio": ...}])`` for rolling log-likelihoods; text-only and audio requests of
different tasks come mixed in one call. Every wrapper splits them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_audio.audio.conditions import FULL, AudioCondition, mark, without_audio
from lm_eval_audio.audio.refs import AudioError, unavailable_reason


@dataclass
class RequestParts:
    index: int
    context: str
    second: object  # gen_kwargs (generation) or continuation (log-likelihood)
    refs: list = field(default_factory=list)
    seconds: float = 0.0  # total audio length, when measured (for batching)
    unavailable: str | None = None  # the loader's reason, when a clip is missing or empty


def split_request(
    index: int, args: tuple, who: str, measure: bool = False, condition: AudioCondition = FULL
) -> RequestParts:
    """The request's parts, as the model is to hear them under ``condition`` (``audio=``);
    ``measure`` reads the clips' lengths from their headers."""
    context, rest = args[0], list(args[1:])
    extra = rest.pop() if rest and isinstance(rest[-1], dict) and ("audio" in rest[-1] or "visual" in rest[-1]) else None
    second = rest[0] if rest else None
    refs = []
    if extra:
        if "visual" in extra:
            raise ValueError(f"{who} serves audio and text; this request carries images ('visual')")
        refs = extra.get("audio")
        if not isinstance(refs, (list, tuple)):
            refs = [refs]  # doc_to_audio should return a list; one reference is unambiguous
        refs = [r for r in refs if r is not None]
        if not refs:
            # lm-eval drops None from doc_to_audio: a document whose audio is missing would
            # otherwise be answered from its text alone.
            raise AudioError(
                f"request {index} of an audio task carries no audio (doc_to_audio gave nothing for this "
                f"document; prompt starts {str(context)[:80]!r}); fix the data or the task's doc_to_audio"
            )
    reasons = [r for r in map(unavailable_reason, refs) if r]
    if reasons:
        # Skipped under every condition, so that each condition scores the same items.
        return RequestParts(index, context, second, list(refs), 0.0, reasons[0])
    if refs and condition.kind == "none":
        return RequestParts(index, without_audio(context), second)
    if condition.changes_samples:
        refs = [mark(r, condition) for r in refs]
    seconds = 0.0
    if measure:
        from lm_eval_audio.audio import decoding as audio_io

        seconds = sum(audio_io.duration_seconds(r) for r in refs)
    return RequestParts(index, context, second, list(refs), seconds)
