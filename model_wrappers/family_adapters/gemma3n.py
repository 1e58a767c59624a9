"""Gemma 3n: its timm vision tower's package, each request's audio encoded on its own."""

from __future__ import annotations


from lm_eval_audio.model_wrappers import clip_encoding
from lm_eval_audio.model_wrappers.clip_encoding import AudioMethod
from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

GEMMA3N = Family("Gemma 3n", ("gemma3n",), "google/gemma-3n-E4B-it", extra="gemma3n", tiny_models=("gemma3n",))

# Gemma3nModel.get_audio_features(input_features, inverted mask): the audio tower's output and its mask (True:
# padding), one row per clip; the model puts its audio padding embedding where the mask says padding, and up to 188
# soft tokens per clip.
GEMMA3N_AUDIO = AudioMethod("model", "get_audio_features", "input_features",
                            lambda row: ((row["input_features"], ~row["input_features_mask"]), {}),
                            clip_encoding.padded({"audio_mel_mask": True}))


@register(GEMMA3N)
class Gemma3nAdapter(FamilyAdapter):
    """Gemma 3n: the generic path, with one package and one batching rule. Loading the model builds its timm
    vision tower even for audio (timm). Its audio encoder is not padding-invariant: a clip padded to a longer
    one in its batch gets up to three more valid mel frames, and its last frames see the padding through the
    subsampling convolutions, so its last audio token changes. Each request's audio is therefore encoded on its own
    (``clip_encoding``) and the batch decoded together (multiple-choice scoring runs each document's prompt in a pass
    of its own anyway: its text model has sliding-window layers). Its template writes ``{{ bos_token }}`` itself,
    which the generic path tokenizes without adding a second BOS."""

    does = "each request's audio encoded on its own (its audio encoder is not padding-invariant)"
    audio_method = GEMMA3N_AUDIO

    def needs(self) -> list[tuple[str, str]]:
        return [("timm", "the vision tower every Gemma 3n model builds at load, audio or not")]
