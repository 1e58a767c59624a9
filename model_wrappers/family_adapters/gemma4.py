"""Gemma 4: its processor's packages, the checkpoints without an audio tower refused."""

from __future__ import annotations


from lm_eval_audio.model_wrappers.families import Family, UnsupportedFamily
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

GEMMA4 = Family("Gemma 4", ("gemma4",), "google/gemma-4-E4B-it", extra="gemma4", tiny_models=("gemma4",))


@register(GEMMA4)
class Gemma4Adapter(FamilyAdapter):
    """Gemma 4: the generic path (its template writes BOS, which the generic path does not add again; its audio
    encoder is padding-invariant, so clips are batched), with one package and one refusal. Its processor loads
    torchvision image and video processors. Only the small checkpoints (E2B, E4B) have an audio tower; the larger
    ones share the model_type and the processor's feature extractor, and would run deaf. Its thinking mode is off
    unless a template is asked to enable it, which hf-audio never does (its thought markers are special tokens,
    which decoding would drop into the answer)."""

    does = "checkpoints without an audio tower refused"

    def needs(self) -> list[tuple[str, str]]:
        return [("torchvision", "the image and video processors its processor loads")]

    def check_checkpoint(self) -> None:
        if not self.config.get("audio_config"):
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}) has no audio tower (config.json has no "
                "audio_config: only the E2B and E4B checkpoints hear audio); evaluate one of those")
