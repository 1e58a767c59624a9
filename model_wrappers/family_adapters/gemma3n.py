"""Gemma 3n: its timm vision tower's package, one request with audio per generate()."""

from __future__ import annotations


from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

GEMMA3N = Family("Gemma 3n", ("gemma3n",), "google/gemma-3n-E4B-it")


@register(GEMMA3N)
class Gemma3nAdapter(FamilyAdapter):
    """Gemma 3n: the generic path, with one package and one batching rule. Loading the model builds its timm
    vision tower even for audio (timm). Its audio encoder is not padding-invariant: a clip padded to a longer
    one in its batch gets up to three more valid mel frames, and its last frames see the padding through the
    subsampling convolutions, so its last audio token changes. Requests with audio are therefore generated one
    at a time (multiple-choice scoring runs each document's clip alone anyway). Its template writes
    ``{{ bos_token }}`` itself, which the generic path tokenizes without adding a second BOS."""

    does = "requests with audio generated one at a time (its audio encoder is not padding-invariant)"
    clips_alone = True

    def needs(self) -> list[tuple[str, str, str]]:
        return [("timm", "gemma3n", "the vision tower every Gemma 3n model builds at load, audio or not")]
