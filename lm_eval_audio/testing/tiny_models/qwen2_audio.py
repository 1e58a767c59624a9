"""A tiny random-weight Qwen2-Audio, built offline with its real transformers classes."""

from __future__ import annotations

import torch

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish, builds


# Same rendering as the Qwen2-Audio-7B-Instruct hub template.
QWEN2_AUDIO_CHAT_TEMPLATE = (
    "{% set audio_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}"
    "{% for content in message['content'] %}"
    "{% if content['type'] == 'audio' or 'audio' in content or 'audio_url' in content %}"
    "{% set audio_count.value = audio_count.value + 1 %}"
    "Audio {{ audio_count.value }}: <|audio_bos|><|AUDIO|><|audio_eos|>\n"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@builds("qwen2_audio")
def build_qwen2_audio(out_dir: str, seed: int = 0) -> str:
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioEncoderConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
        Qwen2Config,
        WhisperFeatureExtractor,
    )

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"]
    tokenizer = bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    text_config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        initializer_range=0.2,  # the default 0.02 makes a 1-layer model nearly ignore its input
    )  # fmt: skip
    audio_config = Qwen2AudioEncoderConfig(
        d_model=32, encoder_layers=1, encoder_attention_heads=2, encoder_ffn_dim=64, num_mel_bins=128,
        initializer_range=0.2, max_source_positions=1500,  # fixed by the 30 s / 3000-frame padding of WhisperFeatureExtractor
    )  # fmt: skip
    config = Qwen2AudioConfig(
        audio_config=audio_config, text_config=text_config,
        audio_token_index=tokenizer.convert_tokens_to_ids("<|AUDIO|>"),
    )  # fmt: skip
    torch.manual_seed(seed)
    model = Qwen2AudioForConditionalGeneration(config)
    processor = Qwen2AudioProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=128),
        tokenizer=tokenizer,
        chat_template=QWEN2_AUDIO_CHAT_TEMPLATE,
    )
    return finish(model, tokenizer, processor, out_dir)
