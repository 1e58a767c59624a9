"""A tiny random-weight Qwen3-Omni (``qwen3_omni_moe``), built offline with its real transformers classes: the
Instruct layout (one config.json, ``enable_audio_output`` set, the thinker's weights under ``thinker.``), the
Thinking layout (the same without a talker, the template opening a ``<think>`` trace), or a thinker saved on its
own (``qwen3_omni_moe_thinker``)."""

from __future__ import annotations

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, builds

NAMED_TOKENS = {"image_token": "<|image_pad|>", "audio_token": "<|audio_pad|>", "video_token": "<|video_pad|>",
                "vision_bos_token": "<|vision_start|>", "vision_eos_token": "<|vision_end|>",
                "audio_bos_token": "<|audio_start|>", "audio_eos_token": "<|audio_end|>"}

# The turns of Qwen3-Omni-30B-A3B's chat template, as its model card and transformers' processor render them: no
# default system turn, an audio part as <|audio_start|><|audio_pad|><|audio_end|> (the processor expands the pad to
# the clip's audio tokens), content parts in the order given. The Thinking checkpoint's generation prompt opens the
# trace (``<think>\n``): Qwen3's thinking templates do, and the model then writes the trace and ``</think>``.
_TURNS = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'audio' or 'audio' in content or 'audio_url' in content %}"
    "<|audio_start|><|audio_pad|><|audio_end|>"
    "{% elif content['type'] == 'image' or 'image' in content %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}"
)
INSTRUCT_CHAT_TEMPLATE = _TURNS + "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
THINKING_CHAT_TEMPLATE = _TURNS + "{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}"


def _tokenizer() -> PreTrainedTokenizerFast:
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *NAMED_TOKENS.values()]
    trained = bpe_tokenizer(specials)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|im_end|>",
                                        pad_token="<|endoftext|>", padding_side="left",
                                        extra_special_tokens=dict(NAMED_TOKENS))
    # Qwen3's trace markers: added tokens that are not special (decoding keeps them), as in the checkpoints.
    tokenizer.add_tokens(["<think>", "</think>"], special_tokens=False)
    return tokenizer


def _thinker_config(tokenizer):
    from transformers import Qwen3OmniMoeThinkerConfig

    ids = tokenizer.convert_tokens_to_ids
    return Qwen3OmniMoeThinkerConfig(
        audio_config={"d_model": 32, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 64,
                      "num_mel_bins": 128, "max_source_positions": 1500, "n_window": 50, "n_window_infer": 800,
                      "downsample_hidden_size": 32, "output_dim": 32, "initializer_range": 0.2},
        vision_config={"depth": 1, "embed_dim": 32, "hidden_size": 32, "out_hidden_size": 32, "intermediate_size": 24,
                       "num_heads": 2, "patch_size": 16, "spatial_merge_size": 1, "temporal_patch_size": 2,
                       "deepstack_visual_indexes": [0]},
        text_config={"vocab_size": len(tokenizer), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16, "moe_intermediate_size": 32,
                     "num_experts": 4, "num_experts_per_tok": 2, "max_position_embeddings": 4096,
                     "rope_parameters": {"mrope_section": [2, 3, 3], "rope_type": "default", "rope_theta": 1e6,
                                         "interleaved": True},
                     "pad_token_id": tokenizer.pad_token_id, "eos_token_id": tokenizer.eos_token_id,
                     "tie_word_embeddings": False, "initializer_range": 0.2},
        audio_token_id=ids("<|audio_pad|>"), image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
        audio_start_token_id=ids("<|audio_start|>"), audio_end_token_id=ids("<|audio_end|>"),
        vision_start_token_id=ids("<|vision_start|>"), vision_end_token_id=ids("<|vision_end|>"),
        user_token_id=ids("<|im_start|>"), position_id_per_seconds=13, seconds_per_chunk=2, initializer_range=0.2,
    )  # fmt: skip


@builds("qwen3_omni")
@builds("qwen3_omni_thinking", variant="thinking")
@builds("qwen3_omni_thinker", variant="thinker")
def build_qwen3_omni(out_dir: str, seed: int = 0, variant: str = "instruct") -> str:
    """``variant``: ``instruct`` (saved as the published Instruct checkpoint: one config.json for the whole model with
    ``enable_audio_output`` set, so transformers' top-level class would build and run the talker; the thinker's
    weights under ``thinker.``; no talker weights are saved, hf-audio never loads them), ``thinking`` (the Thinking
    checkpoint: no talker, a template that opens the trace) or ``thinker`` (a ``qwen3_omni_moe_thinker`` saved on
    its own)."""
    import json
    from pathlib import Path

    from transformers import (
        Qwen2VLImageProcessorPil,
        Qwen2VLVideoProcessor,
        Qwen3OmniMoeConfig,
        Qwen3OmniMoeForConditionalGeneration,
        Qwen3OmniMoeProcessor,
        Qwen3OmniMoeThinkerForConditionalGeneration,
        WhisperFeatureExtractor,
    )

    tokenizer = _tokenizer()
    thinker = _thinker_config(tokenizer)
    torch.manual_seed(seed)
    if variant == "thinker":
        model = Qwen3OmniMoeThinkerForConditionalGeneration(thinker)
        generation = model.generation_config
    else:
        model = Qwen3OmniMoeForConditionalGeneration(Qwen3OmniMoeConfig(thinker_config=thinker,
                                                                       enable_audio_output=False))
        generation = model.thinker.generation_config
    generation.pad_token_id, generation.eos_token_id = tokenizer.pad_token_id, tokenizer.eos_token_id
    # The published preprocessor: a Whisper feature extractor, 128 mel bins, chunk_length 300 (the processor pads
    # to the longest clip of a call and truncates nothing).
    processor = Qwen3OmniMoeProcessor(
        image_processor=Qwen2VLImageProcessorPil(), video_processor=Qwen2VLVideoProcessor(),
        feature_extractor=WhisperFeatureExtractor(feature_size=128, chunk_length=300), tokenizer=tokenizer,
        chat_template=THINKING_CHAT_TEMPLATE if variant == "thinking" else INSTRUCT_CHAT_TEMPLATE,
    )
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    if variant == "instruct":
        config_file = Path(out_dir) / "config.json"
        config = json.loads(config_file.read_text())
        config["enable_audio_output"] = True  # as published
        config_file.write_text(json.dumps(config, indent=2))
    return out_dir
