"""What a model wrapper reads from one lm-eval request.

Requests arrive as ``(context, gen_kwargs | continuation[, {"audio": [ref, ...]}])``, or
``(text[, {"audio": ...}])`` for rolling log-likelihoods; text-only and audio requests of
different tasks come mixed in one call. Every wrapper splits them the same way
(:func:`split_request`), reads their turns the same way (:func:`chat_messages`) and their
generation settings the same way (:func:`generation_settings`, :func:`cut_at_stops`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_audio.audio.conditions import FULL, AudioCondition, mark, without_audio
from lm_eval_audio.audio.markers import decode_chat_context
from lm_eval_audio.audio.refs import AudioError, is_text_instead, unavailable_reason


@dataclass
class RequestParts:
    index: int
    context: str
    second: object  # gen_kwargs (generation) or continuation (log-likelihood)
    refs: list = field(default_factory=list)
    seconds: float = 0.0  # total audio length, when measured (for batching)
    unavailable: str | None = None  # the loader's reason, when a clip is missing or empty
    # The request came with audio (under audio=none too, where ``refs`` is empty): an audio task's prompt, always
    # asked in the model's chat template, as under audio=full, so that the conditions differ by the audio alone.
    audio_task: bool | None = None  # None: whether it carries ``refs``

    def __post_init__(self) -> None:
        if self.audio_task is None:
            self.audio_task = bool(self.refs)


def is_multimodal_part(arg) -> bool:
    """lm-eval's multimodal argument: the dict of audio (or visual) inputs that ends a request's arguments."""
    return isinstance(arg, dict) and ("audio" in arg or "visual" in arg)


def split_request(
    index: int, args: tuple, who: str, measure: bool = False, condition: AudioCondition = FULL,
    heard_seconds: float | None = None,
) -> RequestParts:
    """The request's parts, as the model is to hear them under ``condition`` (``audio=``);
    ``measure`` reads the clips' lengths from their headers; ``heard_seconds``: the wrapper hears only the first
    so many seconds of a clip (fragments are cut from those)."""
    context, rest = args[0], list(args[1:])
    extra = rest.pop() if rest and is_multimodal_part(rest[-1]) else None
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
    if refs and all(map(is_text_instead, refs)):
        return RequestParts(index, context, second, audio_task=True)  # text in place of the audio, by design
    reasons = [r for r in map(unavailable_reason, refs) if r]
    if reasons:
        # Skipped under every condition, so that each condition scores the same items.
        return RequestParts(index, context, second, list(refs), 0.0, reasons[0])
    if refs and condition.kind == "none":
        return RequestParts(index, without_audio(context), second, audio_task=True)
    if condition.changes_samples:
        refs = [mark(r, condition, heard_seconds) for r in refs]
    seconds = 0.0
    if measure:
        from lm_eval_audio.audio import decoding

        seconds = sum(decoding.duration_seconds(r) for r in refs)
    return RequestParts(index, context, second, list(refs), seconds)


def chat_messages(context: str, system_prompt: str | None = None) -> tuple[list[dict], bool | None]:
    """The request's turns, with ``system_prompt`` first where they have no system turn, and
    the generation-prompt flag of turns that lm-eval's ``--apply_chat_template`` encoded (None
    for a plain-text context, which is one user turn)."""
    chat = decode_chat_context(context)
    messages, add_generation_prompt = chat if chat is not None else ([{"role": "user", "content": context}], None)
    if system_prompt and messages[0]["role"] != "system":
        messages = [{"role": "system", "content": system_prompt}] + messages
    return messages, add_generation_prompt


@dataclass
class GenerationSettings:
    until: list[str]
    max_new_tokens: int
    do_sample: bool
    temperature: float
    other: dict  # the task's remaining gen_kwargs (top_p, ...), for the wrapper to pass or refuse


def generation_settings(gen_kwargs, default_max_new_tokens: int) -> GenerationSettings:
    """A task's ``generation_kwargs`` as lm-eval's own models read them (``normalize_gen_kwargs``:
    ``max_gen_toks`` or the default, ``until`` as a list), empty stop strings dropped."""
    from lm_eval.models.utils import normalize_gen_kwargs

    kwargs = normalize_gen_kwargs(dict(gen_kwargs or {}), default_max_gen_toks=default_max_new_tokens)
    return GenerationSettings(
        until=[s for s in kwargs.pop("until", None) or [] if s],
        max_new_tokens=int(kwargs.pop("max_gen_toks")),
        do_sample=bool(kwargs.pop("do_sample", False)),
        temperature=float(kwargs.pop("temperature", 0.0) or 0.0),
        other=kwargs,
    )


def cut_at_stops(text: str, until: list[str]) -> str:
    """The answer up to its first stop string, as lm-eval's models return it."""
    for stop in until:
        text = text.split(stop, 1)[0]
    return text
