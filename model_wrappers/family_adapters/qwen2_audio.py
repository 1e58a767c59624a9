"""Qwen2-Audio: the generic path, unchanged (its chat template, the processor's ``audio=``, ``generate``)."""

from __future__ import annotations

from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import register_generic

QWEN2_AUDIO = Family("Qwen2-Audio", ("qwen2_audio",), "Qwen/Qwen2-Audio-7B-Instruct")
register_generic(QWEN2_AUDIO)
