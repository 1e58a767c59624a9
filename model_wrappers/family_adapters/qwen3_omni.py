"""Qwen3-Omni (Instruct, Thinking, Captioner): its thinker alone, its thinking budget."""

from __future__ import annotations


from lm_eval_audio.model_wrappers import clip_encoding, families, reasoning
from lm_eval_audio.model_wrappers.clip_encoding import AudioMethod
from lm_eval_audio.model_wrappers.families import Family, Talker
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

QWEN3_OMNI = Family(
    "Qwen3-Omni", ("qwen3_omni_moe", "qwen3_omni_moe_thinker"), "Qwen/Qwen3-Omni-30B-A3B-Instruct",
    name_parts=("qwen3-omni",), extra="qwen3-omni",
    tiny_models=("qwen3_omni", "qwen3_omni_thinker", "qwen3_omni_thinking", "qwen3_omni_talker"),
    # Qwen3-Omni-30B-A3B-Thinking: the model card's (QwenLM/Qwen3-Omni README, "vLLM Usage") sampling settings for
    # the Thinking model give max_tokens=16384 (with max_model_len 32768).
    thinking_budget=16384,
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation"
    authors_notes="Qwen3-Omni's README: no system prompt for any evaluation benchmark; the text after the audio; "
    "Instruct models decode greedily, Thinking models with their generation_config.json",
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Change voice type" (Ethan, Chelsie, Aiden; Ethan by default) and its
    # examples' samplerate=24000; only the Instruct checkpoint has a talker
    talker=Talker("Qwen3OmniMoeForConditionalGeneration", ("Ethan", "Chelsie", "Aiden"), "Ethan", 24000,
                  source="QwenLM/Qwen3-Omni README (voices, default Ethan, 24 kHz); the Instruct checkpoint only"))



def _whole_chunks(row: dict, config) -> bool:
    """Whether each clip of a request holds at least one whole encoder chunk (2 x n_window frames: 100, 1 s): its last
    chunk is then padded to the chunk length alone as in any call, so it encodes exactly alike beside others
    (tests/test_batched_audio_encoders.py)."""
    return bool((row["feature_attention_mask"].sum(dim=-1) >= 2 * config.audio_config.n_window).all())


# The thinker's audio: Qwen3OmniMoeThinkerModel.get_audio_features(input_features, feature_attention_mask) returns the
# clips' frames packed one after another. Its audio tower pads every chunk of the call to the longest chunk before three
# strided convolutions, whose second and third read the first one's output over that padding: a clip shorter than one
# chunk (100 frames, 1 s) is heard differently beside a longer one, and is encoded alone; longer ones share a call.
QWEN3_OMNI_AUDIO = AudioMethod("model", "get_audio_features", "input_features",
                               lambda row: ((row["input_features"], row["feature_attention_mask"]), {}),
                               clip_encoding.packed, together=_whole_chunks)


@register(QWEN3_OMNI)
class Qwen3OmniAdapter(FamilyAdapter):
    """Qwen3-Omni (Instruct, Thinking, Captioner; and a thinker saved on its own, ``qwen3_omni_moe_thinker``): the
    thinker alone. The Instruct checkpoint sets ``enable_audio_output``, so transformers' top-level class builds
    the speech talker and code2wav as well, its ``generate()`` runs them and caps the answer at its own
    ``thinker_max_new_tokens``. The thinker (audio encoder, vision encoder, MoE text model) loads from any of the
    layouts, generates text with the task's settings and scores continuations; the talker's weights stay on disk.
    Its processor pads the clips of a call to the longest and truncates none (chunk_length 300 s, truncation off),
    so a clip is heard whole; a clip padded next to a longer one encodes differently at its last frames, so each
    request's audio is encoded on its own (``clip_encoding``) and the batch decoded together. The processor loads a
    torchvision video processor."""

    does = "the thinker alone (no talker or code2wav loaded), each request's audio encoded on its own"
    audio_method = QWEN3_OMNI_AUDIO

    def needs(self) -> list[tuple[str, str]]:
        return [("torchvision", "the video processor its processor loads")]

    def load(self, load_kwargs: dict):
        from transformers import Qwen3OmniMoeThinkerForConditionalGeneration

        return Qwen3OmniMoeThinkerForConditionalGeneration.from_pretrained(self.pretrained, **load_kwargs)

    def audio_window_seconds(self, from_processor: float | None) -> float | None:
        return None  # the processor truncates nothing: the whole clip reaches the audio encoder

    def trace_markers(self, processor) -> reasoning.TraceMarkers | None:
        # The Thinking checkpoint, by its name (the Hub id's or the folder's own, not a parent folder's), whether or
        # not its template opens the trace in the prompt.
        thinking = "thinking" in families.checkpoint_name(self.pretrained).lower()
        return super().trace_markers(processor) or (reasoning.THINK if thinking else None)

    def record(self) -> dict:
        return {"model": "the thinker only (text out); the speech talker and code2wav are not loaded",
                **super().record()}
