"""Phi-4-multimodal: its speech LoRA, its chat template."""

from __future__ import annotations


from lm_eval_audio.model_wrappers import clip_encoding
from lm_eval_audio.model_wrappers.clip_encoding import AudioMethod
from lm_eval_audio.model_wrappers.families import Family, UnsupportedFamily
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

PHI4_MULTIMODAL = Family("Phi-4-multimodal", ("phi4_multimodal",), "microsoft/Phi-4-multimodal-instruct",
                         extra="phi4-multimodal", tiny_models=("phi4_multimodal",))

# Its audio encoder (Phi4MultimodalAudioModel: convolutional subsampling, then conformer blocks) takes the call's clips
# padded to the longest with a mask (given by the processor only for a call with several clips); a clip beside a
# longer one encodes differently. Phi4MultimodalAudioEmbedding then keeps each clip's first audio_embed_sizes rows.
PHI4_AUDIO = AudioMethod("model.embed_tokens_extend.audio_embed.encoder", "forward", "audio_input_features",
                         lambda row: ((row["audio_input_features"], row.get("audio_attention_mask")), {}),
                         clip_encoding.padded(), encoder_only=("audio_attention_mask",))


@register(PHI4_MULTIMODAL)
class Phi4MultimodalAdapter(FamilyAdapter):
    """Phi-4-multimodal-instruct: a Phi-4-mini whose speech LoRA sits in the checkpoint's ``speech-lora/``
    folder, which ``from_pretrained`` never loads (the model would answer as if deaf). It is loaded here as
    adapter ``speech`` and set on for requests with audio and off for text-only ones before every call.
    In transformers 5.23 the processor loads without the chat template its tokenizer carries; it is given
    the tokenizer's. Its audio encoder is not padding-invariant, so each request's audio is encoded on its own
    (``clip_encoding``) and the batch decoded together. The image processor needs torchvision."""

    does = ("its speech LoRA (speech-lora/) loaded and set on for audio and off for text before every call, each "
            "request's audio encoded on its own")
    audio_method = PHI4_AUDIO
    LORA_FOLDER = "speech-lora"

    def needs(self) -> list[tuple[str, str]]:
        return [("peft", f"its speech LoRA ({self.LORA_FOLDER}/)"),
                ("torchvision", "the image processor its processor loads")]

    def prepare_processor(self, processor) -> None:
        if not getattr(processor, "chat_template", None):
            processor.chat_template = getattr(processor.tokenizer, "chat_template", None)

    def attach(self, model) -> None:
        try:
            where = {"subfolder": self.LORA_FOLDER, **({"revision": self.revision} if self.revision else {})}
            model.load_adapter(self.pretrained, adapter_name="speech", adapter_kwargs=where)
        except (OSError, ValueError) as e:
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}): its speech LoRA could not be loaded from "
                f"{self.LORA_FOLDER}/ ({type(e).__name__}); download the whole checkpoint, {self.LORA_FOLDER}/ included"
            ) from e
        super().attach(model)

    def before_call(self, has_audio: bool) -> None:
        if has_audio:
            self.model.enable_adapters()
            self.model.set_adapter("speech")
        else:
            self.model.disable_adapters()

    def record(self) -> dict:
        return {"speech_lora": f"{self.LORA_FOLDER}/, on for requests with audio, off for text-only ones",
                **super().record()}
