"""Audio-LM families transformers does not implement, each with the way to evaluate it here: the server that
implements it, its serve command and the ``--model openai-audio`` line. ``hf-audio`` refuses their checkpoints with
that one line (:func:`refusal`); docs/SERVING.md holds the whole recipe of each, with its sources and what could not
be confirmed (no serve command here was run: the developers' machine has no GPU and no Hub access).

A checkpoint is recognised by lower-case substrings of its Hub id, ``architectures`` and ``model_type``
(docs/SERVING.md, "Identifying the checkpoints"); the more specific ones come first (Step-Audio-R1 before
Step-Audio 2, which it builds on)."""

from __future__ import annotations

from typing import NamedTuple

_OPENAI = "--model openai-audio --model_args base_url=http://HOST:8000/v1,model={model}"


class ServedFamily(NamedTuple):
    name: str
    substrings: tuple[str, ...]
    server: str  # which server implements it, and from which version (as far as confirmed)
    serve: str  # the serve command ("" where no server is known)
    model: str  # the model= to pass (the served name)


SERVED: tuple[ServedFamily, ...] = (
    ServedFamily("Kimi-Audio", ("kimi-audio", "kimi_audio", "kimia"),
                 "vLLM (text-output subset; the release that added it is not confirmed, it is in v0.22.1)",
                 "vllm serve moonshotai/Kimi-Audio-7B-Instruct --trust-remote-code --limit-mm-per-prompt "
                 "'{\"audio\":1}'", "moonshotai/Kimi-Audio-7B-Instruct"),
    ServedFamily("MiDashengLM", ("midashenglm",), "vLLM (0.11.1 or later recommended)",
                 "vllm serve mispeech/midashenglm-7b --trust-remote-code --max-model-len 4096",
                 "mispeech/midashenglm-7b"),
    ServedFamily("Step-Audio-R1", ("step-audio-r1", "step_audio_r1"),
                 "StepFun's vLLM fork (docker stepfun2025/vllm:step-audio-2-v20250909)",
                 "vllm serve /Step-Audio-R1 --served-model-name Step-Audio-R1 --trust-remote-code --chat-template "
                 "<the template in its README> -tp 4", "Step-Audio-R1"),
    ServedFamily("Step-Audio 2", ("step-audio-2", "stepaudio2", "step_audio_2"),
                 "StepFun's vLLM fork (docker stepfun2025/vllm:step-audio-2-v20250909)",
                 "vllm serve /Step-Audio-2-mini --served-model-name step-audio-2-mini --tokenizer-mode step_audio_2 "
                 "--trust-remote-code", "step-audio-2-mini"),
    ServedFamily("MiMo-Audio", ("mimo-audio", "mimoaudio"),
                 "vLLM-Omni (the release that added it is not confirmed)",
                 "vllm serve XiaomiMiMo/MiMo-Audio-7B-Instruct --omni --served-model-name MiMo-Audio-7B-Instruct "
                 "--chat-template <vLLM-Omni's mimo_audio template>", "MiMo-Audio-7B-Instruct,audio_part=audio_url"),
    ServedFamily("LongCat-Flash-Omni", ("longcat-flash-omni", "longcat_flash_omni"),
                 "the authors' SGLang branch only (XiaoBin1992/sglang@longcat_omni_v0.5.3.post3, 8 GPUs or more; "
                 "its OpenAI-compatible server is not confirmed)",
                 "python -m sglang.launch_server --model-path <dir> --tp 8 --ep-size 8 --trust-remote-code",
                 "<served name>"),
    ServedFamily("Baichuan-Audio", ("baichuan-audio", "baichuan_audio"), "", "", ""),
    ServedFamily("SALMONN", ("salmonn",), "", "", ""),
)


def recognise(pretrained: str, config: dict | None) -> ServedFamily | None:
    """The served family of a checkpoint, from its name, ``architectures`` and ``model_type``."""
    text = " ".join([str(pretrained), *(str(v) for v in (config or {}).get("architectures") or ()),
                     str((config or {}).get("model_type", ""))]).lower()
    return next((family for family in SERVED if any(key in text for key in family.substrings)), None)


def refusal(family: ServedFamily, pretrained: str) -> str:
    """The one line hf-audio stops with: the family, and how to evaluate it here."""
    start = f"hf-audio: {pretrained!r} is a {family.name} checkpoint, a family transformers does not implement; "
    if not family.serve:
        return start + ("no OpenAI-compatible server implements it that we could confirm (no vLLM or SGLang support; "
                        "its authors ship their own demo code), so it cannot be evaluated here yet (docs/SERVING.md)")
    return (start + f"serve it with {family.server}: {family.serve}, then "
            + _OPENAI.format(model=family.model) + " (docs/SERVING.md)")
