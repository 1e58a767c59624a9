"""Qwen2.5-Omni: its thinker alone."""

from __future__ import annotations


from lm_eval_audio.model_wrappers.families import Family, Talker
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

QWEN2_5_OMNI = Family(
    "Qwen2.5-Omni", ("qwen2_5_omni",), "Qwen/Qwen2.5-Omni-7B", name_parts=("qwen2.5-omni",), extra="qwen2-5-omni",
    tiny_models=("qwen2_5_omni", "qwen2_5_omni_talker"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:27-66
    authors_notes="the prompts as Kimi-Audio-Evalkit reproduces them from the Qwen2.5-Omni cookbooks "
    "(almeval/models/qwen_omni.py:27-66), each with a system prompt of its task (in notes): a model argument here, "
    "system_prompt= in --model_args",
    # QwenLM/Qwen2.5-Omni@f8bf58c6 README.md:831 (the system prompt its speech needs), 885-888 (the voices, Chelsie by
    # default), 710 (24 kHz); transformers 5.23 Qwen2_5OmniForConditionalGeneration.generate (speaker="Chelsie")
    talker=Talker("Qwen2_5OmniForConditionalGeneration", ("Chelsie", "Ethan"), "Chelsie", 24000,
                  system_prompt="You are Qwen, a virtual human developed by the Qwen Team, Alibaba Group, capable of "
                  "perceiving auditory and visual inputs, as well as generating text and speech.",
                  source="QwenLM/Qwen2.5-Omni README (voices, default Chelsie, 24 kHz; the system prompt audio output "
                         "needs)"))


@register(QWEN2_5_OMNI)
class Qwen25OmniAdapter(FamilyAdapter):
    """Qwen2.5-Omni: the thinker alone. The published checkpoints set ``enable_audio_output``, so transformers'
    top-level class builds the speech talker and token2wav too (about 2 GB more), its ``generate()`` speaks every
    answer and returns ``(text_ids, wav)``, caps the answer at its own ``thinker_max_new_tokens`` (1,024) instead
    of the task's, and it has no forward for log-likelihoods. The thinker (the audio encoder and the text model)
    loads from the same checkpoint, generates text with the task's settings and scores continuations. Its
    processor loads a torchvision video processor, and pads every clip to 30 s as Qwen2-Audio's does."""

    does = "the thinker alone (audio encoder and text model), without the speech talker"

    def needs(self) -> list[tuple[str, str]]:
        return [("torchvision", "the video processor its processor loads")]

    def load(self, load_kwargs: dict):
        from transformers import Qwen2_5OmniThinkerForConditionalGeneration

        return Qwen2_5OmniThinkerForConditionalGeneration.from_pretrained(self.pretrained, **load_kwargs)

    def record(self) -> dict:
        return {"model": "the thinker only (text out); the speech talker is not loaded"}
