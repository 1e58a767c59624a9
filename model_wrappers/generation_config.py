"""Greedy means greedy: the checkpoint's own ``generation_config.json`` settings, set aside.

``generate()`` fills every setting the caller leaves unset from the checkpoint's generation config, so
``do_sample=False`` alone still decodes Qwen2-Audio-7B-Instruct with its ``repetition_penalty=1.1``.
lm-eval tasks state how to decode; what the checkpoint adds on top is neutralized (set to transformers'
global default) unless ``generation_config=model`` asks to keep it. Either way the results record it.
"""

from __future__ import annotations

CHOICES = ("neutral", "model")

# Not decoding behaviour: token ids the model needs, bookkeeping, and the length we set per request.
_KEPT = {
    "bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id", "transformers_version",
    "_from_model_config", "use_cache", "cache_implementation", "max_length", "max_new_tokens",
}  # fmt: skip
_OUTPUT = ("output_", "return_")  # what generate() returns, not how it decodes


def checkpoint_settings(generation_config) -> dict:
    """The decoding settings a checkpoint's generation config sets away from transformers' defaults."""
    if generation_config is None:
        return {}
    from transformers import GenerationConfig

    known = set(GenerationConfig().to_dict())
    defaults = GenerationConfig._get_default_generation_params()
    return {k: v for k, v in generation_config.to_diff_dict().items()
            if k in known and k not in _KEPT and not k.startswith(_OUTPUT) and v != defaults.get(k)}


def neutralizing_kwargs(generation_config) -> dict:
    """``generate()`` keyword arguments that put each of the checkpoint's settings back to the default
    (``None`` where transformers has no default, which switches the setting off)."""
    from transformers import GenerationConfig

    defaults = GenerationConfig._get_default_generation_params()
    return {k: defaults.get(k) for k in checkpoint_settings(generation_config)}


def record(choice: str, generation_config) -> dict:
    """What the results JSON says about decoding: which settings applied, and the checkpoint's own."""
    settings = checkpoint_settings(generation_config)
    applied = "the checkpoint's generation_config.json, under the task's settings" if choice == "model" else (
        "the task's settings only; the checkpoint's own were set aside" if settings else "the task's settings only")
    return {"generation_config": choice, "applied": applied, "checkpoint_settings": _jsonable(settings)}


def _jsonable(settings: dict) -> dict:
    import json

    return json.loads(json.dumps(settings, default=repr))
