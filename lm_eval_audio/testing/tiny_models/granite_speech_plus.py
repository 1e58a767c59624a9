"""A tiny random-weight Granite Speech Plus, built offline with its real transformers classes.

Granite Speech Plus (``granite_speech_plus``; ibm-granite/granite-speech-4.1-2b-plus) is Granite Speech with one
change in the model: the encoder's outputs at ``cat_hidden_layers`` are concatenated with its last layer's
before the projector. Processor (``GraniteSpeechProcessor``), feature extractor, ``<|audio|>`` placeholder, LoRA
switching in ``generate()`` and the role-marker prompt format are Granite Speech's, so this builder reuses them.
"""

from __future__ import annotations

import torch

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish
from lm_eval_audio.testing.tiny_models.granite_speech import GRANITE_SPEECH_CHAT_TEMPLATE


def build_granite_speech_plus(out_dir: str, seed: int = 0, lora: bool = True) -> str:
    """granite-speech-4.1-2b-plus in small: a 2-layer conformer whose layer-1 output is concatenated with its
    last (``cat_hidden_layers=[1]``, so the Q-Former reads 2 x 32 features), a 1-layer Granite LM, and (``lora``)
    a rank-4 speech LoRA on q_proj/v_proj saved as ``adapter_config.json`` next to ``config.json`` (needs peft)."""
    from transformers import (
        Blip2QFormerConfig,
        GraniteConfig,
        GraniteSpeechFeatureExtractor,
        GraniteSpeechPlusConfig,
        GraniteSpeechPlusEncoderConfig,
        GraniteSpeechPlusForConditionalGeneration,
        GraniteSpeechProcessor,
        PreTrainedModel,
    )

    specials = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|audio|>"]
    tokenizer = bpe_tokenizer(specials, eos_token="<|end_of_text|>", bos_token="<|end_of_text|>",
                               pad_token="<|end_of_text|>")
    text_config = GraniteConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=False, initializer_range=0.2,
    )  # fmt: skip
    encoder_config = GraniteSpeechPlusEncoderConfig(
        input_dim=160, num_layers=2, hidden_dim=32, feedforward_mult=2, num_heads=2, output_dim=8,
        context_size=200, max_pos_emb=512, dropout=0.0, conv_kernel_size=15, cat_hidden_layers=[1],
    )  # fmt: skip
    projector_config = Blip2QFormerConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        encoder_hidden_size=32 * 2, cross_attention_frequency=1, max_position_embeddings=512, initializer_range=0.2,
    )  # fmt: skip
    config = GraniteSpeechPlusConfig(
        text_config=text_config, encoder_config=encoder_config, projector_config=projector_config,
        audio_token_index=tokenizer.convert_tokens_to_ids("<|audio|>"),
        has_lora_adapter=lora, window_size=15, downsample_rate=5, initializer_range=0.2,
        tie_word_embeddings=False,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = GraniteSpeechPlusForConditionalGeneration(config)
    processor = GraniteSpeechProcessor(
        audio_processor=GraniteSpeechFeatureExtractor(n_mels=80, projector_window_size=15, projector_downsample_rate=5),
        tokenizer=tokenizer,
        audio_token="<|audio|>",
        chat_template=GRANITE_SPEECH_CHAT_TEMPLATE,
    )
    finish(model, tokenizer, processor, out_dir)
    if lora:
        from peft import LoraConfig

        model.add_adapter(LoraConfig(r=4, lora_alpha=32, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM",
                                     init_lora_weights=False))
        PreTrainedModel.save_pretrained(model, out_dir)
    return out_dir
