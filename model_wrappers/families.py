"""Which model families ``hf-audio`` runs, found from the checkpoint's ``config.json`` before any weight loads.

A family is run only where a tiny model of its real transformers classes shows the prompt tokens, batch
invariance and audio reaching the model (``tests/test_model_families.py``). A family that is known to go
wrong through the generic path (processor ``audio=``, chat template, ``generate``, one forward for
scoring) stops at load with one line that names it and what to do instead, because its numbers would look
fine and be wrong. An audio family we know nothing about stops too, unless ``family=generic`` asks for
the generic path explicitly; text-only causal LMs (the cascade's LLM) need no family.
"""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_audio.model_wrappers import served_families

GENERIC = "generic"


@dataclass(frozen=True)
class Family:
    name: str
    model_types: tuple[str, ...]
    example: str


QWEN2_AUDIO = Family("Qwen2-Audio", ("qwen2_audio",), "Qwen/Qwen2-Audio-7B-Instruct")
GRANITE_SPEECH = Family("Granite-Speech", ("granite_speech", "granite_speech_plus"), "ibm-granite/granite-speech-3.3-2b")
GEMMA3N = Family("Gemma 3n", ("gemma3n",), "google/gemma-3n-E4B-it")
QWEN2_5_OMNI = Family("Qwen2.5-Omni", ("qwen2_5_omni",), "Qwen/Qwen2.5-Omni-7B")
PHI4_MULTIMODAL = Family("Phi-4-multimodal", ("phi4_multimodal",), "microsoft/Phi-4-multimodal-instruct")
VOXTRAL = Family("Voxtral", ("voxtral",), "mistralai/Voxtral-Mini-3B-2507")
GEMMA4 = Family("Gemma 4", ("gemma4",), "google/gemma-4-E4B-it")
AUDIO_FLAMINGO_3 = Family("Audio Flamingo 3", ("audioflamingo3",), "nvidia/audio-flamingo-3-hf")
MUSIC_FLAMINGO = Family("Music Flamingo", ("musicflamingo",), "nvidia/music-flamingo-2601-hf")
QWEN3_OMNI = Family("Qwen3-Omni", ("qwen3_omni_moe", "qwen3_omni_moe_thinker"), "Qwen/Qwen3-Omni-30B-A3B-Instruct")
TEXT_ONLY = Family("text-only causal LM", (), "HuggingFaceTB/SmolLM2-135M-Instruct")
GENERIC_PATH = Family("generic (family=generic)", (), "")

# How each runs: family_adapters.py.
PROVEN = (QWEN2_AUDIO, GRANITE_SPEECH, GEMMA3N, QWEN2_5_OMNI, PHI4_MULTIMODAL, VOXTRAL, QWEN3_OMNI, AUDIO_FLAMINGO_3,
          MUSIC_FLAMINGO, GEMMA4)

_SERVE = "serve it with its own server (e.g. vLLM) and use --model openai-audio"

# model_type -> (family, what goes wrong through the generic path). Each reason was measured with a
# tiny model of the family's own classes (transformers 5.23); see the family table in docs/MODELS.md, "Model families".
_NEMOTRON_OMNI = ("Nemotron-H Omni", "its Mamba layers' state cannot be reused for the options of multiple-choice scoring "
                  "(the generic path crashes there), its sound encoder is not padding-invariant for some clip lengths, "
                  "and the published checkpoint carries custom code (model_type NemotronH_Nano_Omni_Reasoning_V3); not "
                  "adapted yet")
_ASR_ONLY = "a speech recognizer, not a model that answers a benchmark's instruction"
REFUSED: dict[str, tuple[str, str]] = {
    "qwen2_5_omni_thinker": ("Qwen2.5-Omni", "a thinker saved on its own is not adapted (the published "
                             "checkpoints, model_type qwen2_5_omni, are)"),
    "nemotron_h_omni": _NEMOTRON_OMNI,
    "NemotronH_Nano_Omni_Reasoning_V3": _NEMOTRON_OMNI,
    "cosmos3_omni": ("Cosmos3-Omni", "transformers builds only its text and vision parts (its audio towers are dropped "
                     "at load): it would answer without hearing"),
    "qwen3_asr": ("Qwen3-ASR", f"{_ASR_ONLY}: its transcripts start with 'language X<asr_text>', which a WER would "
                  "count as words"),
    "vibevoice_asr": ("VibeVoice-ASR", f"{_ASR_ONLY}: it writes JSON with speakers and timestamps, which a WER would "
                      "count as words"),
    "moss_transcribe_diarize": ("MOSS-Transcribe-Diarize", f"{_ASR_ONLY}: its transcripts carry speaker and time "
                                "tags, which a WER would count as words"),
    "voxtral_realtime": ("Voxtral Realtime", f"{_ASR_ONLY}: a streaming model whose processor takes audio alone, so "
                         "no instruction reaches it"),
    "kyutai_speech_to_text": ("Kyutai STT", f"{_ASR_ONLY}: a streaming model that takes no text prompt"),
    "glmasr": ("GLM-ASR", f"{_ASR_ONLY}: its processor takes exactly one clip per prompt and no text-only row"),
    "fun_asr_nano": ("Fun-ASR-Nano", f"{_ASR_ONLY}: it is asked with its own fixed Chinese instruction"),
    "granite_speech5_ctc": ("Granite Speech 5 CTC", f"{_ASR_ONLY}: a CTC model with no language model, prompt or "
                            "generate()"),
    "cohere_asr": ("Cohere ASR", f"{_ASR_ONLY}: an encoder-decoder with no chat template or instruction"),
    "nemo_speechlm": ("Nemotron 3.5 Transcribe", f"{_ASR_ONLY}: its transcripts carry speaker tags (<spk:N>), which a "
                      "WER would count as words"),
}

class UnsupportedFamily(ValueError):
    """A checkpoint whose family hf-audio does not run; the message is one line saying what to do."""


def refuse_known(pretrained: str, config: dict | None, family: str | None) -> None:
    """:class:`UnsupportedFamily` for a family known to go wrong, or one transformers does not implement;
    checked before the processor loads (a refused family's processor may need packages we do not install)."""
    if family not in (None, GENERIC):
        raise UnsupportedFamily(f"hf-audio: family={family!r} is not an option; leave it out, or pass family=generic")
    model_type = str((config or {}).get("model_type", ""))
    # A model_type we know decides (a fine-tuned Qwen2-Audio in a folder named after another family is Qwen2-Audio);
    # the name is read for checkpoints whose config.json says nothing we know.
    served = None if proven(config) or model_type in REFUSED else served_families.recognise(pretrained, config)
    if served:
        raise UnsupportedFamily(served_families.refusal(served, pretrained))
    if model_type in REFUSED:
        name, why = REFUSED[model_type]
        raise UnsupportedFamily(
            f"hf-audio: {name} ({pretrained!r}, model_type {model_type}) is not supported yet: {why}; {_SERVE}, "
            "or evaluate a supported family (see docs/MODELS.md, 'Model families')"
        )


def proven(config: dict | None) -> Family | None:
    """The proven family of a checkpoint's config.json, if it is one."""
    model_type = str((config or {}).get("model_type", ""))
    return next((f for f in PROVEN if model_type in f.model_types), None)


def resolve(pretrained: str, config: dict | None, has_audio_processor: bool, family: str | None) -> Family:
    """The family to run ``pretrained`` as, or :class:`UnsupportedFamily`.

    ``config`` is the checkpoint's config.json as a dict (None if unreadable); ``family`` the ``family=``
    model argument (None or ``generic``).
    """
    refuse_known(pretrained, config, family)
    model_type = str((config or {}).get("model_type", ""))
    if family == GENERIC:
        return GENERIC_PATH
    if family_of_config := proven(config):
        return family_of_config
    if not has_audio_processor:
        return TEXT_ONLY
    raise UnsupportedFamily(
        f"hf-audio: {pretrained!r} (model_type {model_type or 'unknown'}) is an audio family hf-audio has not been "
        f"proven on ({', '.join(f.name for f in PROVEN)} are); pass family=generic in --model_args to run it through "
        "the generic path (processor audio=, chat template, generate) and check the prompts in the logged samples, "
        f"or {_SERVE}"
    )
