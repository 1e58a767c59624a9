"""What a model hears: the ``audio=`` ablation of every model wrapper.

    --model_args ...,audio=full            the clip as the task gives it (the default)
    --model_args ...,audio=none            no audio and no audio placeholder: the text prior
    --model_args ...,audio=silence         zeros, the clip's length and rate
    --model_args ...,audio=noise           white noise (-20 dBFS RMS, fixed seed), the clip's length and rate
    --model_args ...,audio=fragment:N:K    only the K-th of N equal contiguous slices (K from 1)

The conditions of arXiv 2604.24401 (docs/DIAGNOSTICS.md), applied where the wrappers read
a request (``model_wrappers.request_parts.split_request``): ``none`` drops the references and the
``<audio>`` markers; the others mark each reference with the :class:`AudioCondition` itself (its
``"condition"`` key; read once from ``--model_args``, never parsed again), and
``lm_eval_audio.audio.decoding`` applies the mark to the decoded samples, after the reference's own time slice and before a
wrapper's long-audio policy; a fragment is a slice of what the model hears under ``full``
(the first 30 s of a longer clip where the wrapper truncates to a 30-s window). The mark is
part of the audio's content digest, so ``--use_cache`` and the transcript cache never hand one
condition's answer to another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lm_eval_audio.audio.refs import AudioError, describe, normalize
from lm_eval_audio.audio.markers import AUDIO_PLACEHOLDER, decode_chat_context, encode_chat_context

KINDS = ("full", "none", "silence", "noise", "fragment")
NOISE_RMS = 0.1  # -20 dBFS: clearly audible, far from clipping (Gaussian peaks stay under 1.0)
NOISE_SEED = 0
HOW = "audio= takes full, none, silence, noise or fragment:N:K (the K-th of N equal slices, 1 <= K <= N)"


@dataclass(frozen=True)
class AudioCondition:
    kind: str = "full"
    n: int = 1
    k: int = 1

    @property
    def label(self) -> str:
        return f"fragment:{self.n}:{self.k}" if self.kind == "fragment" else self.kind

    @property
    def changes_samples(self) -> bool:
        return self.kind in ("silence", "noise", "fragment")

    def __str__(self) -> str:
        return self.label


FULL = AudioCondition()


def parse(value, who: str = "audio") -> AudioCondition:
    """``full``, ``none``, ``silence``, ``noise`` or ``fragment:N:K``; anything else is an error."""
    if isinstance(value, AudioCondition):
        return value
    # lm-eval reads the word "none" in --model_args as None; the default is "full", so None
    # can only mean that the user wrote audio=none.
    text = "none" if value is None else str(value).strip().lower()
    if text in ("full", "none", "silence", "noise"):
        return AudioCondition(text)
    match = re.fullmatch(r"fragment:(\d+):(\d+)", text)
    if match:
        n, k = int(match.group(1)), int(match.group(2))
        if n >= 1 and 1 <= k <= n:
            return AudioCondition("fragment", n, k)
    raise ValueError(f"{who}: audio={value!r} is not a condition; {HOW}")


def mark(ref, condition: AudioCondition, heard_seconds: float | None = None) -> dict:
    """The reference with the condition object attached (decoding applies it; ``refs.content_digest`` hashes its
    label). ``heard_seconds``: how much of the clip the model hears under ``full`` (a wrapper that truncates long
    clips to its window), so that fragments are cut from that, not from audio the ``full`` run never heard."""
    marked = {**normalize(ref), "condition": condition}
    if heard_seconds and condition.kind == "fragment":
        marked["heard_seconds"] = float(heard_seconds)
    return marked


def strip_markers(text: str) -> str:
    """The text with every ``<audio>`` marker removed, and only the spaces and line break
    that the marker itself took up; a text without markers comes back unchanged."""

    def replace(match: re.Match) -> str:
        before, newline, after = match.string[: match.start()], match.group(1), match.string[match.end() :]
        if before == "" or before.endswith("\n"):
            return ""  # the marker opened its line: the line (or its start) goes with it
        if newline or after == "":
            return newline  # the marker closed a line of text: keep the line break
        return "" if after[0] in ".,;:?!)" else " "

    marker = re.escape(AUDIO_PLACEHOLDER)
    return re.sub(rf"[ \t]*(?:{marker}[ \t]*)+(\n?)", replace, text)


def without_audio(context: str) -> str:
    """A request's context (plain or chat turns) with its audio markers removed."""
    chat = decode_chat_context(context)
    if chat is None:
        return strip_markers(context)
    messages, add_generation_prompt = chat
    cleaned = []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            content = strip_markers(content)
        else:
            content = [{**p, "text": strip_markers(p["text"])} if p.get("type") == "text" else p
                       for p in content if p.get("type") != "audio"]
        cleaned.append({**m, "content": content})
    return encode_chat_context(cleaned, add_generation_prompt)


def transform(samples: np.ndarray, sampling_rate: int, condition: AudioCondition, ref) -> np.ndarray:
    """Apply a reference's condition mark (the :class:`AudioCondition` :func:`mark` put on it) to its decoded mono
    samples."""
    if condition.kind == "silence":
        return np.zeros_like(samples)
    if condition.kind == "noise":
        rng = np.random.default_rng(NOISE_SEED)
        return (rng.standard_normal(len(samples)) * NOISE_RMS).astype(np.float32)
    if condition.kind == "fragment":
        if ref.get("heard_seconds"):
            samples = samples[: int(round(float(ref["heard_seconds"]) * sampling_rate))]
        first, last = fragment_bounds(len(samples), condition.n, condition.k)
        if last <= first:
            raise AudioError(
                f"{describe(ref)}: audio={condition.label} leaves no samples ({len(samples)} samples "
                f"in {condition.n} slices); use fewer fragments"
            )
        return samples[first:last]
    return samples


def fragment_bounds(n_samples: int, n: int, k: int) -> tuple[int, int]:
    """Sample range of the K-th (from 1) of N equal contiguous slices."""
    return (k - 1) * n_samples // n, k * n_samples // n
