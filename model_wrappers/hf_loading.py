"""hf-audio's loading: the auto class that loads a checkpoint, and how much of a clip its
feature extractor keeps."""

from __future__ import annotations

import logging

log = logging.getLogger("lm_eval.audio.hf_audio")


def audio_window_seconds(feature_extractor, sampling_rate: int) -> float | None:
    """How much of a clip the feature extractor keeps: Whisper-style ``n_samples`` or ``chunk_length``,
    or the ``max_length`` (in samples) its ``__call__`` truncates to by default (Gemma 3n's 480,000)."""
    import inspect

    n_samples = getattr(feature_extractor, "n_samples", None)
    if n_samples:
        return n_samples / sampling_rate
    chunk = getattr(feature_extractor, "chunk_length", None)
    if chunk:
        return float(chunk)
    try:
        params = inspect.signature(feature_extractor.__call__).parameters
    except (TypeError, ValueError, AttributeError):
        return None
    max_length, truncation = params.get("max_length"), params.get("truncation")
    if max_length is not None and isinstance(max_length.default, int) and truncation is not None \
            and truncation.default is True:
        return max_length.default / sampling_rate
    return None


def load_model(pretrained: str, **kwargs):
    """AutoModelForMultimodalLM first; other auto classes for architectures mapped elsewhere."""
    import transformers

    tried = []
    for name in (
        "AutoModelForMultimodalLM",
        "AutoModelForImageTextToText",
        "AutoModelForSpeechSeq2Seq",
        "AutoModelForCausalLM",
    ):
        auto = getattr(transformers, name, None)
        if auto is None:
            continue
        try:
            model = auto.from_pretrained(pretrained, **kwargs)
        except ValueError as e:  # "Unrecognized configuration class ..." for this auto class
            if "Unrecognized configuration class" not in str(e):
                raise
            tried.append(name)
            continue
        log.info("hf-audio: loaded %s with %s", type(model).__name__, name)
        return model
    raise ValueError(
        f"hf-audio: no transformers auto class can load {pretrained!r} (tried {', '.join(tried)}); "
        "if the model ships its own code, add trust_remote_code=True to --model_args"
    )
