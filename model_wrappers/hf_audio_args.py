"""``hf-audio``'s model arguments, each declared once (``endpoints.model_args.Arg``): what ``HFAudioLM`` reads from
``--model_args``, ``lm-eval-audio model-args hf-audio`` prints, and docs/MODELS.md tabulates."""

from __future__ import annotations

from lm_eval_audio.endpoints.model_args import Arg, choice, flag, whole
from lm_eval_audio.model_wrappers import checkpoints
from lm_eval_audio.model_wrappers import generation_config as greedy
from lm_eval_audio.model_wrappers.spoken_answers import speaking_args
from lm_eval_audio.model_wrappers.wrapper_base import audio_arg, lm_eval_args, prompts_arg

LONG_AUDIO_POLICIES = ("truncate", "chunk")


def _dtype(who: str, name: str, value):
    if value != "auto":
        import torch

        if not isinstance(getattr(torch, str(value), None), torch.dtype):
            raise ValueError(f"{who}: dtype={value!r} is not a torch dtype; use auto, float32, bfloat16 or float16")
    return value


def _max_audio_seconds(who: str, name: str, value):
    if value is not None and float(value) <= 0:
        raise ValueError(f"{who}: max_audio_seconds must be positive, got {value!r} "
                         "(leave it out to use the processor's own window)")
    return float(value) if value else None


HF_AUDIO_ARGS = (
    Arg("pretrained", None, "hub id or local folder; the results folder is named after it", "(required)",
        read=lambda who, name, value: None if value is None else checkpoints.local_path(value)),
    Arg("dtype", "auto", "`auto`, `float32`, `bfloat16`, `float16`", read=_dtype),
    Arg("device", None, "the device the model runs on (lm-eval's `--device` sets it too)",
        "cuda if available, else cpu"),
    Arg("device_map", None, "`device_map=auto` shards one model over several GPUs"),
    Arg("trust_remote_code", False, "for models that ship their own code", read=flag),
    Arg("attn_implementation", None, "e.g. `sdpa`, `flash_attention_2`, `eager`", "transformers' choice"),
    Arg("revision", None, "a hub revision (branch, tag or commit)", "the default branch"),
    Arg("gguf_file", None, "a GGUF file inside `pretrained`'s folder, loaded through transformers' GGUF support"),
    Arg("max_new_tokens", 256, "used when a task sets no `max_gen_toks`", read=lambda who, name, value: int(value)),
    Arg("system_prompt", None, "prepended as a system turn where a templated request has none (not to plain "
        "text-only requests, which go as lm-eval's `hf` sends them); recorded in the results "
        "(`lm_eval_audio_model.system_prompt`)", "the family's (see the family table), else none"),
    Arg("chat_template", True, "(`true`/`false`) render prompts with the processor's chat template (audio as "
        "`{\"type\": \"audio\"}` parts). `False`: plain text, each clip replaced by `audio_prompt`", read=flag),
    Arg("audio_prompt", None, "the model's audio marker for `chat_template=False`, e.g. "
        "`<|audio_bos|><|AUDIO|><|audio_eos|>` for Qwen2-Audio", "from the processor"),
    Arg("max_audio_seconds", None, "longer clips follow `long_audio`",
        "the feature extractor's window (30 s for Whisper-style encoders)", read=_max_audio_seconds),
    Arg("long_audio", "truncate", "`truncate` keeps the first `max_audio_seconds`; `chunk` cuts the clip into "
        "windows passed as consecutive audio parts (for models that accept several clips). The log says which "
        "policy ran and how many clips it touched", read=choice(*LONG_AUDIO_POLICIES)),
    *lm_eval_args(1, 64, read_batch=lambda who, name, value: None if str(value).startswith("auto") else int(value),
                  read_max_batch=lambda who, name, value: int(value or 64), device=False),
    Arg("max_length", None, "context limit for text-only log-likelihoods (left-truncated)", "model config",
        read=lambda who, name, value: int(value) if value else None),
    audio_arg(),
    Arg("family", None, "`generic`: run an audio family hf-audio has not been proven on through the generic path "
        "(see the family table); refused for a family with its own adapter", "from `config.json`"),
    Arg("generation_config", "neutral", "`neutral`: the task's decoding settings only; the checkpoint's "
        "`generation_config.json` settings (sampling, `repetition_penalty`, ...) are set back to transformers' "
        "defaults. `model`: keep them under the task's. The results JSON records which (`lm_eval_audio_model`)",
        read=choice(*greedy.CHOICES)),
    Arg("thinking", "auto", "whether the model thinks: `auto` reads it from the checkpoint (its template opens "
        "`<think>` in the generation prompt, or its family says so), `true`, `false`",
        read=lambda who, name, value: choice("auto", "true", "false")(who, name, str(value).lower())),
    Arg("thinking_budget", None, "for a model that thinks: its replies get at least this many new tokens for trace "
        "and answer together (a task's `max_gen_toks` is written for the answer alone), stop strings apply to the "
        "answer after the trace. `--gen_kwargs max_gen_toks=N` sets it too. See \"Thinking models\" below",
        "the family's documented budget for a thinking checkpoint (Qwen3-Omni Thinking: 16,384), else none",
        read=whole(optional=True)),
    prompts_arg("`authors`: ask each benchmark's items with the prompts the model's authors published for it, where "
                "they did ([BENCHMARKS.md, \"The authors' prompts\"](BENCHMARKS.md#the-model-authors-prompts-"
                "promptsauthors)); which prompt each task used is recorded in the results "
                "(`lm_eval_audio_data.prompts`, `prompt_source`)"),
    Arg("talker_max_new_tokens", None, "with `spoken_answers=true`: the most speech tokens a talker says per answer",
        "`generate()`'s (4,096)", read=whole(optional=True)),
    *speaking_args("the model card's: Chelsie (Qwen2.5-Omni), Ethan (Qwen3-Omni); the speakers a family ships are in "
                   "docs/SPOKEN.md"),
)
