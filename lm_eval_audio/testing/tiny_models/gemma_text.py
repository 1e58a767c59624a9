"""A tiny random-weight Gemma (text), built offline with its real transformers classes."""

from __future__ import annotations

import torch

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, builds


# The prompt format of the Gemma model cards ("<bos><start_of_turn>user\n{prompt}<end_of_turn>\n
# <start_of_turn>model\n", https://ai.google.dev/gemma/docs/core/prompt-structure): the template writes
# the BOS itself, and the tokenizer adds one too when asked for special tokens, the double-BOS trap.
GEMMA_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for content in message['content'] %}{% if content['type'] == 'text' %}{{ content['text'] }}"
    "{% endif %}{% endfor %}{% endif %}<end_of_turn>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


@builds("gemma_text")
def build_gemma_text(out_dir: str, seed: int = 0) -> str:
    """A text-only Gemma whose tokenizer adds BOS, as Gemma's does."""
    from tokenizers import processors
    from transformers import GemmaConfig, GemmaForCausalLM

    specials = ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"]
    tokenizer = bpe_tokenizer(specials, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>")
    tokenizer._tokenizer.post_processor = processors.TemplateProcessing(
        single="<bos> $A", pair="<bos> $A $B", special_tokens=[("<bos>", tokenizer.convert_tokens_to_ids("<bos>"))]
    )
    tokenizer.chat_template = GEMMA_CHAT_TEMPLATE
    config = GemmaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, head_dim=16, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
        initializer_range=0.2,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = GemmaForCausalLM(config)
    tokenizer.save_pretrained(out_dir)
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.eval().save_pretrained(out_dir)
    return out_dir
