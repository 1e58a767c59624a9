"""A tiny random-weight Qwen2.5-Omni, built offline with its real transformers classes."""

from __future__ import annotations

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, builds


# Qwen2.5-Omni-7B's chat template (as transformers' own processor tests carry it): Qwen2-Audio's turns with a
# "You are a helpful assistant." system turn by default, an audio part as <|audio_bos|><|AUDIO|><|audio_eos|>
# with no "Audio N:" label unless add_audio_id is set.
QWEN2_5_OMNI_CHAT_TEMPLATE = (
    "{% set audio_count = namespace(value=0) %}{% set image_count = namespace(value=0) %}"
    "{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "{% endif %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}Picture {{ image_count.value }}: "
    "{% endif %}<|vision_bos|><|IMAGE|><|vision_eos|>"
    "{% elif content['type'] == 'audio' or 'audio' in content or 'audio_url' in content %}"
    "{% set audio_count.value = audio_count.value + 1 %}{% if add_audio_id %}Audio {{ audio_count.value }}: "
    "{% endif %}<|audio_bos|><|AUDIO|><|audio_eos|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}Video {{ video_count.value }}: "
    "{% endif %}<|vision_bos|><|VIDEO|><|vision_eos|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


NAMED_TOKENS = {"image_token": "<|IMAGE|>", "audio_token": "<|AUDIO|>", "video_token": "<|VIDEO|>",
                "vision_bos_token": "<|vision_bos|>", "vision_eos_token": "<|vision_eos|>",
                "audio_bos_token": "<|audio_bos|>", "audio_eos_token": "<|audio_eos|>"}


def thinker_parts(tokenizer) -> dict:
    """The tiny thinker's audio, vision and text configurations (the thinker alone, and the whole model with its
    talker: ``omni_talkers``)."""
    return dict(
        audio_config={"d_model": 32, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 64,
                      "num_mel_bins": 128, "max_source_positions": 1500, "n_window": 100, "output_dim": 32,
                      "initializer_range": 0.2},
        vision_config={"depth": 1, "embed_dim": 32, "hidden_size": 32, "out_hidden_size": 32, "intermediate_size": 24,
                       "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1, "temporal_patch_size": 2,
                       "fullatt_block_indexes": [0]},
        text_config={"vocab_size": len(tokenizer), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "num_key_value_heads": 2, "max_position_embeddings": 2048,
                     "rope_parameters": {"mrope_section": [2, 3, 3], "rope_type": "default", "rope_theta": 1e6},
                     "pad_token_id": tokenizer.pad_token_id, "eos_token_id": tokenizer.eos_token_id,
                     "tie_word_embeddings": False, "initializer_range": 0.2},
    )


@builds("qwen2_5_omni")
def build_qwen2_5_omni(out_dir: str, seed: int = 0) -> str:
    """Qwen2.5-Omni in small, saved as the published checkpoints are: one config.json for the whole model
    (``enable_audio_output`` true, so transformers' top-level class would build and run the speech talker),
    the thinker's weights under ``thinker.``. No talker weights are saved: hf-audio never loads it."""
    import json
    from pathlib import Path

    from transformers import (
        Qwen2_5OmniConfig,
        Qwen2_5OmniForConditionalGeneration,
        Qwen2_5OmniProcessor,
        Qwen2_5OmniThinkerConfig,
        Qwen2VLImageProcessorPil,
        Qwen2VLVideoProcessor,
        WhisperFeatureExtractor,
    )

    named = NAMED_TOKENS
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *named.values()]
    trained = bpe_tokenizer(specials)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|im_end|>",
                                        pad_token="<|endoftext|>", padding_side="left", extra_special_tokens=named)
    ids = tokenizer.convert_tokens_to_ids
    thinker = Qwen2_5OmniThinkerConfig(
        **thinker_parts(tokenizer),
        audio_token_index=ids("<|AUDIO|>"), image_token_index=ids("<|IMAGE|>"), video_token_index=ids("<|VIDEO|>"),
        audio_start_token_id=ids("<|audio_bos|>"), audio_end_token_id=ids("<|audio_eos|>"),
        vision_start_token_id=ids("<|vision_bos|>"), vision_end_token_id=ids("<|vision_eos|>"),
        user_token_id=ids("<|im_start|>"), position_id_per_seconds=25, seconds_per_chunk=2, initializer_range=0.2,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = Qwen2_5OmniForConditionalGeneration(Qwen2_5OmniConfig(thinker_config=thinker, enable_audio_output=False))
    processor = Qwen2_5OmniProcessor(
        image_processor=Qwen2VLImageProcessorPil(), video_processor=Qwen2VLVideoProcessor(),
        feature_extractor=WhisperFeatureExtractor(feature_size=128), tokenizer=tokenizer,
        chat_template=QWEN2_5_OMNI_CHAT_TEMPLATE,
    )
    model.thinker.generation_config.pad_token_id = tokenizer.pad_token_id
    model.thinker.generation_config.eos_token_id = tokenizer.eos_token_id
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    config_file = Path(out_dir) / "config.json"
    config = json.loads(config_file.read_text())
    config["enable_audio_output"] = True  # as published
    config_file.write_text(json.dumps(config, indent=2))
    return out_dir
