"""The families ``hf-audio`` does not run, each with the way to evaluate it here.

``REFUSED``: families transformers builds, each known (measured with a tiny model of its own classes, transformers
5.23) to go wrong through the generic path: ``hf-audio`` refuses their ``model_type`` at load, with why. ``SERVED``:
audio-LM families transformers does not implement, each with the server that does; ``hf-audio`` refuses their
checkpoints, recognised by name, with that recipe (docs/SERVING.md holds each, with its sources and what could not be
confirmed; no serve command here was run: the developers' machine has no GPU and no Hub access). The more specific
name parts come first (Step-Audio-R1 before Step-Audio 2, which it builds on).
"""

from __future__ import annotations

from lm_eval_audio.model_wrappers.families import Family, Served
from lm_eval_audio.model_wrappers.family_adapters import register_families

_ASR_ONLY = "a speech recognizer, not a model that answers a benchmark's instruction"

REFUSED = (
    Family("Qwen2.5-Omni thinker", ("qwen2_5_omni_thinker",), refused="a thinker saved on its own is not adapted (the "
           "published checkpoints, model_type qwen2_5_omni, are)"),
    Family("Nemotron-H Omni", ("nemotron_h_omni", "NemotronH_Nano_Omni_Reasoning_V3"),
           refused="its Mamba layers' state cannot be reused for the options of multiple-choice scoring (the generic "
           "path crashes there), its sound encoder is not padding-invariant for some clip lengths, and the published "
           "checkpoint carries custom code (model_type NemotronH_Nano_Omni_Reasoning_V3); not adapted yet"),
    Family("Cosmos3-Omni", ("cosmos3_omni",), refused="transformers builds only its text and vision parts (its audio "
           "towers are dropped at load): it would answer without hearing"),
    Family("Qwen3-ASR", ("qwen3_asr",), refused=f"{_ASR_ONLY}: its transcripts start with 'language X<asr_text>', "
           "which a WER would count as words"),
    Family("VibeVoice-ASR", ("vibevoice_asr",), refused=f"{_ASR_ONLY}: it writes JSON with speakers and timestamps, "
           "which a WER would count as words"),
    Family("MOSS-Transcribe-Diarize", ("moss_transcribe_diarize",), refused=f"{_ASR_ONLY}: its transcripts carry "
           "speaker and time tags, which a WER would count as words"),
    Family("Voxtral Realtime", ("voxtral_realtime",), refused=f"{_ASR_ONLY}: a streaming model whose processor takes "
           "audio alone, so no instruction reaches it"),
    Family("Kyutai STT", ("kyutai_speech_to_text",), refused=f"{_ASR_ONLY}: a streaming model that takes no text "
           "prompt"),
    Family("GLM-ASR", ("glmasr",), refused=f"{_ASR_ONLY}: its processor takes exactly one clip per prompt and no "
           "text-only row"),
    Family("Fun-ASR-Nano", ("fun_asr_nano",), refused=f"{_ASR_ONLY}: it is asked with its own fixed Chinese "
           "instruction"),
    Family("Granite Speech 5 CTC", ("granite_speech5_ctc",), refused=f"{_ASR_ONLY}: a CTC model with no language "
           "model, prompt or generate()"),
    Family("Cohere ASR", ("cohere_asr",), refused=f"{_ASR_ONLY}: an encoder-decoder with no chat template or "
           "instruction"),
    Family("Nemotron 3.5 Transcribe", ("nemo_speechlm",), refused=f"{_ASR_ONLY}: its transcripts carry speaker tags "
           "(<spk:N>), which a WER would count as words"),
    # transformers 5.24: OmniASRProcessor.apply_transcription_request(audio, language=) writes the whole prompt
    # (clip, language token, BOS); OmniASRCTCProcessor takes audio alone.
    Family("Omnilingual ASR", ("omniasr",), refused=f"{_ASR_ONLY}: its prompt is the clip and a language code, with "
           "no place for an instruction"),
    Family("Omnilingual ASR CTC", ("omniasr_ctc",), refused=f"{_ASR_ONLY}: a CTC model with no language model or "
           "prompt"),
)

KIMI_AUDIO = Family("Kimi-Audio", name_parts=("kimi-audio", "kimi_audio", "kimia"), served=Served(
        "vLLM (text-output subset; the release that added it is not confirmed, it is in v0.22.1)",
        "vllm serve moonshotai/Kimi-Audio-7B-Instruct --trust-remote-code --limit-mm-per-prompt '{\"audio\":1}'",
        "moonshotai/Kimi-Audio-7B-Instruct"),
        # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:18-57
        authors_notes="Kimi-Audio-Evalkit sends the text BEFORE the audio (almeval/models/kimi_audio.py:31-57); "
        "here the model wrapper's order applies. transformers does not implement Kimi-Audio: serve it, use "
        "openai-audio")
# Qwen-Audio (2023; Qwen2-Audio's predecessor) ships custom code only; its authors published prompts
QWEN_AUDIO = Family("Qwen-Audio", name_parts=("qwen-audio", "qwen_audio"), served=Served(),
           # QwenLM/Qwen-Audio@b50fb95 eval_audio/evaluate_aqa.py:108
           authors_notes="Qwen-Audio's evaluation ran the base model (Qwen/Qwen-Audio) with its own task tags "
           "(<|startofanalysis|><|en|><|question|>) before the question (eval_audio/evaluate_aqa.py:108)")
_STEPFUN = "StepFun's vLLM fork (docker stepfun2025/vllm:step-audio-2-v20250909)"
SERVED = (
    KIMI_AUDIO,
    Family("MiDashengLM", name_parts=("midashenglm",), served=Served(
        "vLLM (0.11.1 or later recommended)", "vllm serve mispeech/midashenglm-7b --trust-remote-code "
        "--max-model-len 4096", "mispeech/midashenglm-7b")),
    Family("Step-Audio-R1", name_parts=("step-audio-r1", "step_audio_r1"), served=Served(
        _STEPFUN, "vllm serve /Step-Audio-R1 --served-model-name Step-Audio-R1 --trust-remote-code --chat-template "
        "<the template in its README> -tp 4", "Step-Audio-R1")),
    Family("Step-Audio 2", name_parts=("step-audio-2", "stepaudio2", "step_audio_2"), served=Served(
        _STEPFUN, "vllm serve /Step-Audio-2-mini --served-model-name step-audio-2-mini --tokenizer-mode step_audio_2 "
        "--trust-remote-code", "step-audio-2-mini")),
    Family("MiMo-Audio", name_parts=("mimo-audio", "mimoaudio"), served=Served(
        "vLLM-Omni (the release that added it is not confirmed)", "vllm serve XiaomiMiMo/MiMo-Audio-7B-Instruct "
        "--omni --served-model-name MiMo-Audio-7B-Instruct --chat-template <vLLM-Omni's mimo_audio template>",
        "MiMo-Audio-7B-Instruct,audio_part=audio_url")),
    Family("LongCat-Flash-Omni", name_parts=("longcat-flash-omni", "longcat_flash_omni"), served=Served(
        "the authors' SGLang branch only (XiaoBin1992/sglang@longcat_omni_v0.5.3.post3, 8 GPUs or more; its "
        "OpenAI-compatible server is not confirmed)", "python -m sglang.launch_server --model-path <dir> --tp 8 "
        "--ep-size 8 --trust-remote-code", "<served name>")),
    Family("Baichuan-Audio", name_parts=("baichuan-audio", "baichuan_audio"), served=Served()),
    Family("SALMONN", name_parts=("salmonn",), served=Served()),
    QWEN_AUDIO,
)

register_families(*REFUSED, *SERVED)
