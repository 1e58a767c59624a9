"""Granite-Speech (3.3 and 4.1 plus): its speech LoRA, its model card's system prompt."""

from __future__ import annotations


from lm_eval_audio.model_wrappers import clip_encoding
from lm_eval_audio.model_wrappers.clip_encoding import AudioMethod
from lm_eval_audio.model_wrappers.families import Family, UnsupportedFamily
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

GRANITE_SPEECH = Family("Granite-Speech", ("granite_speech", "granite_speech_plus"), "ibm-granite/granite-speech-3.3-2b",
                        extra="granite-speech", tiny_models=("granite_speech", "granite_speech_plus"))

# GraniteSpeechModel.get_audio_features(input_features): the encoder (no attention mask) and the windowed projector,
# one row of projected frames per clip; the model keeps each clip's valid ones (input_features_mask).
GRANITE_AUDIO = AudioMethod("model", "get_audio_features", "input_features", lambda row: ((row["input_features"],), {}),
                            clip_encoding.padded())


# granite-speech-3.3-2b's model card, the transformers usage example: its system prompt, word for word (the
# checkpoint's chat_template.jinja would otherwise write today's date into every prompt).
GRANITE_MODEL_CARD_SYSTEM_PROMPT = (
    "Knowledge Cutoff Date: April 2024.\nToday's Date: April 9, 2025.\n"
    "You are Granite, developed by IBM. You are a helpful AI assistant"
)


@register(GRANITE_SPEECH)
class GraniteSpeechAdapter(FamilyAdapter):
    """granite-speech-3.x and granite-speech-4.1 plus (whose encoder also passes some middle layers' outputs to the
    projector; processor, prompt and LoRA are the same): a Granite LLM whose speech LoRA (q_proj, v_proj; ``adapter_config.json`` at the
    checkpoint's root, loaded by transformers through peft) is meant to be on only for audio: the model's
    own ``generate()`` switches it by whether audio features are passed, and nothing switches it for a
    plain forward, so scoring would inherit whatever the last ``generate()`` left. Here the state is set
    before every call. The checkpoint's template takes string content with ``<|audio|>`` where the
    audio goes (typed content parts raise a TypeError in it)."""

    does = ("its speech LoRA set on for audio and off for text before every call, <|audio|> in string content, "
            "each request's audio encoded on its own")
    # Its encoder takes no attention mask and the feature extractor pads a call's clips to the longest: a clip next
    # to a longer one encodes differently (a request's log-probs move by 4 in the tiny model), so each request's audio
    # is encoded on its own.
    audio_method = GRANITE_AUDIO

    def _has_lora(self) -> bool:
        return bool(self.config.get("has_lora_adapter"))

    def needs(self) -> list[tuple[str, str]]:
        return [("peft", "its speech LoRA (has_lora_adapter in config.json)")] if self._has_lora() else []

    def attach(self, model) -> None:
        if self._has_lora() and not getattr(model, "_hf_peft_config_loaded", False):
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}): config.json says has_lora_adapter but no speech "
                "LoRA was loaded (adapter_config.json and adapter_model.safetensors belong next to config.json); "
                "download the whole checkpoint"
            )
        super().attach(model)

    def default_system_prompt(self) -> str:
        return GRANITE_MODEL_CARD_SYSTEM_PROMPT

    def messages(self, messages: list[dict], audio_token: str | None) -> list[dict]:
        def flat(content):
            if isinstance(content, str):
                return content
            return "".join(audio_token if part.get("type") == "audio" else part.get("text", "") for part in content)

        return [{**m, "content": flat(m["content"])} for m in messages]

    def before_call(self, has_audio: bool) -> None:
        if self._has_lora():
            (self.model.enable_adapters if has_audio else self.model.disable_adapters)()

    def record(self) -> dict:
        lora = "on for requests with audio, off for text-only ones" if self._has_lora() else "none in this checkpoint"
        return {"speech_lora": lora, **super().record()}
