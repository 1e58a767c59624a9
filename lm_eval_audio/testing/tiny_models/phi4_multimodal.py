"""A tiny random-weight Phi-4-multimodal, built offline with its real transformers classes."""

from __future__ import annotations

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish, builds


# Phi-4-multimodal-instruct's chat template in its transformers form (as transformers' processor tests carry it):
# "<|{role}|>" + content + "<|end|>" per turn, an audio part as <|audio|>, "<|assistant|>" as the generation
# prompt, no default system turn. The model card's speech format, "<|user|><|audio_1|>{task prompt}<|end|>
# <|assistant|>", is the same with the remote-code checkpoint's numbered audio marker.
PHI4_MULTIMODAL_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ '<|' + message['role'] + '|>' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' %}{{ '<|image|>' }}{% elif content['type'] == 'audio' %}{{ '<|audio|>' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if message['role'] == 'system' and 'tools' in message and message['tools'] is not none %}"
    "{{ '<|tool|>' + message['tools'] + '<|/tool|>' + '<|end|>' }}{% endif %}"
    "{{ '<|end|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% else %}{{ eos_token }}{% endif %}"
)


@builds("phi4_multimodal", needs=("peft",))
def build_phi4_multimodal(out_dir: str, seed: int = 0, lora: bool = True) -> str:
    """Phi-4-multimodal in small, laid out as the checkpoint: the base model at the root, the chat template
    with the tokenizer, and a speech LoRA (rank 4 on the decoder's qkv_proj, o_proj, gate_up_proj and down_proj,
    random on both sides so that it changes the outputs) in ``speech-lora/``, which from_pretrained does not load.
    Needs peft and torchvision."""
    from pathlib import Path

    from transformers import (
        Phi4MultimodalConfig,
        Phi4MultimodalFeatureExtractor,
        Phi4MultimodalForCausalLM,
        Phi4MultimodalImageProcessor,
        Phi4MultimodalProcessor,
        PreTrainedModel,
    )

    named = {"image_token": "<|image|>", "audio_token": "<|audio|>"}
    specials = ["<|endoftext|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>", *named.values()]
    trained = bpe_tokenizer(specials)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=trained._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
        pad_token="<|endoftext|>", padding_side="left", extra_special_tokens=named,
    )  # fmt: skip
    ids = tokenizer.convert_tokens_to_ids
    config = Phi4MultimodalConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=2048, original_max_position_embeddings=2048,
        bos_token_id=ids("<|endoftext|>"), eos_token_id=[ids("<|end|>"), ids("<|endoftext|>")],
        pad_token_id=ids("<|endoftext|>"), initializer_range=0.2,
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_token_id": ids("<|image|>")},
        audio_config={"hidden_size": 32, "intermediate_size": 64, "num_blocks": 1, "num_attention_heads": 2,
                      "ext_pw_out_channel": 32, "depthwise_separable_out_channel": 32, "nemo_conv_channels": 32,
                      "audio_token_id": ids("<|audio|>"), "initializer_range": 0.2},
    )  # fmt: skip
    torch.manual_seed(seed)
    model = Phi4MultimodalForCausalLM(config)
    tokenizer.chat_template = PHI4_MULTIMODAL_CHAT_TEMPLATE
    processor = Phi4MultimodalProcessor(image_processor=Phi4MultimodalImageProcessor(),
                                        audio_processor=Phi4MultimodalFeatureExtractor(), tokenizer=tokenizer,
                                        chat_template=PHI4_MULTIMODAL_CHAT_TEMPLATE)
    finish(model, tokenizer, processor, out_dir)
    if lora:
        from peft import LoraConfig

        # The published speech LoRA's target (transformers' conversion script): the decoder's layers only.
        target = r"model.layers.\d+.((self_attn.(qkv|o)_proj)|(mlp.(gate_up|down)_proj))"
        model.add_adapter(LoraConfig(r=4, lora_alpha=8, target_modules=target, task_type="CAUSAL_LM",
                                     init_lora_weights=False), adapter_name="speech")
        PreTrainedModel.save_pretrained(model, str(Path(out_dir) / "speech-lora"))
    return out_dir
