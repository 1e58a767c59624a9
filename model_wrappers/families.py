"""What a model family is to ``hf-audio`` (:class:`Family`), and the families it refuses (:data:`REFUSED`); which
family a checkpoint is, from its ``config.json`` before any weight loads, is ``family_adapters.resolve``.

A family is run only where a tiny model of its real transformers classes shows the prompt tokens, batch
invariance and audio reaching the model (``tests/test_model_families.py``). A family that is known to go
wrong through the generic path (processor ``audio=``, chat template, ``generate``, one forward for
scoring) stops at load with one line that names it and what to do instead, because its numbers would look
fine and be wrong. An audio family we know nothing about stops too, unless ``family=generic`` asks for
the generic path explicitly; text-only causal LMs (the cascade's LLM) need no family.
"""

from __future__ import annotations

from dataclasses import dataclass

GENERIC = "generic"


@dataclass(frozen=True)
class Family:
    name: str
    model_types: tuple[str, ...]
    example: str


TEXT_ONLY = Family("text-only causal LM", (), "HuggingFaceTB/SmolLM2-135M-Instruct")
GENERIC_PATH = Family("generic (family=generic)", (), "")

SERVE = "serve it with its own server (e.g. vLLM) and use --model openai-audio"

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
    # transformers 5.24: OmniASRProcessor.apply_transcription_request(audio, language=) writes the whole prompt
    # (clip, language token, BOS); OmniASRCTCProcessor takes audio alone.
    "omniasr": ("Omnilingual ASR", f"{_ASR_ONLY}: its prompt is the clip and a language code, with no place for an "
                "instruction"),
    "omniasr_ctc": ("Omnilingual ASR CTC", f"{_ASR_ONLY}: a CTC model with no language model or prompt"),
}


class UnsupportedFamily(ValueError):
    """A checkpoint whose family hf-audio does not run; the message is one line saying what to do."""
