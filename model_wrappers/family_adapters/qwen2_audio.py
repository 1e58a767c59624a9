"""Qwen2-Audio: the generic path, unchanged (its chat template, the processor's ``audio=``, ``generate``)."""

from __future__ import annotations

from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import register_families

QWEN2_AUDIO = Family(
    "Qwen2-Audio", ("qwen2_audio",), "Qwen/Qwen2-Audio-7B-Instruct", name_parts=("qwen2-audio",),
    tiny_models=("qwen2_audio",),
    # QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_asr.py:61 and :209
    authors_notes="Qwen2-Audio's evaluation ran the BASE model (Qwen/Qwen2-Audio-7B) with no chat template: "
    "'<|audio_bos|><|AUDIO|><|audio_eos|>' then the prompt (eval_audio/evaluate_asr.py:61), greedy, max_new_tokens=256; "
    "an Instruct checkpoint or a chat template is another setting (hf-audio: the base checkpoint with "
    "chat_template=false comes closest). The prompt texts live in jsonl files on Alibaba's OSS, not in the "
    "repository: as Kimi-Audio-Evalkit reproduces them (almeval/models/qwen_audio.py)")
register_families(QWEN2_AUDIO)
