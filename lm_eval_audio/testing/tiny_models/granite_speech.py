"""A tiny random-weight Granite Speech, built offline with its real transformers classes."""

from __future__ import annotations

import torch

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish, builds


# granite-speech-3.3-2b's chat_template.jinja, the parts a plain chat takes (no tools, documents or
# thinking): string content only, a default system turn that writes today's date, every turn closed by
# <|end_of_text|> and a newline, the assistant header after the last turn. Its model card's usage example
# renders "<|start_of_role|>system<|end_of_role|>{system}<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>
# <|audio|>{instruction}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>".
GRANITE_SPEECH_CHAT_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{%- set system_message = messages[0]['content'] %}{%- set loop_messages = messages[1:] %}"
    "{%- else %}"
    "{%- set system_message = \"Knowledge Cutoff Date: April 2024.\\nToday's Date: \" + strftime_now('%B %d, %Y') + "
    "\".\\nYou are Granite, developed by IBM. You are a helpful AI assistant.\" %}"
    "{%- set loop_messages = messages %}"
    "{%- endif %}"
    "{{- '<|start_of_role|>system<|end_of_role|>' + system_message + '<|end_of_text|>\\n' }}"
    "{%- for message in loop_messages %}"
    "{{- '<|start_of_role|>' + message['role'] + '<|end_of_role|>' + message['content'] + '<|end_of_text|>\\n' }}"
    "{%- if loop.last and add_generation_prompt %}{{- '<|start_of_role|>assistant<|end_of_role|>' }}{%- endif %}"
    "{%- endfor %}"
)


@builds("granite_speech", needs=("peft",))
@builds("granite_speech_plus", needs=("peft",), plus=True)
def build_granite_speech(out_dir: str, seed: int = 0, lora: bool = True, plus: bool = False) -> str:
    """granite-speech-3.x in small. The published checkpoints carry a speech LoRA (rank 64 on q_proj and
    v_proj, ``adapter_config.json`` next to ``config.json``); ``lora`` gives this one a rank-4 LoRA there,
    with random weights on both sides so that switching it changes the outputs (needs peft). ``plus``:
    granite-speech-4.1-2b-plus (``granite_speech_plus``), whose encoder also hands its layer-1 output to the
    projector (``cat_hidden_layers=[1]``, so the Q-Former reads 2 x 32 features); the processor, the prompt format
    and the LoRA are Granite Speech's."""
    import transformers
    from transformers import Blip2QFormerConfig, GraniteConfig, GraniteSpeechFeatureExtractor, GraniteSpeechProcessor
    from transformers import PreTrainedModel

    kind = "GraniteSpeechPlus" if plus else "GraniteSpeech"
    config_class, encoder_class = getattr(transformers, f"{kind}Config"), getattr(transformers, f"{kind}EncoderConfig")
    model_class = getattr(transformers, f"{kind}ForConditionalGeneration")

    # As the checkpoint's tokenizer: <|end_of_text|> is BOS, EOS and padding, and no BOS is added.
    specials = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|audio|>"]
    tokenizer = bpe_tokenizer(specials, eos_token="<|end_of_text|>", bos_token="<|end_of_text|>",
                               pad_token="<|end_of_text|>")
    text_config = GraniteConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=False, initializer_range=0.2,  # as Qwen2-Audio's: else the input barely matters
    )  # fmt: skip
    encoder_config = encoder_class(
        input_dim=160, num_layers=2, hidden_dim=32, feedforward_mult=2, num_heads=2, output_dim=8,
        context_size=200, max_pos_emb=512, dropout=0.0, conv_kernel_size=15, **({"cat_hidden_layers": [1]} if plus else {}),
    )  # fmt: skip (input_dim = 2 stacked frames x 80 mel bins)
    projector_config = Blip2QFormerConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        encoder_hidden_size=32 * (2 if plus else 1), cross_attention_frequency=1, max_position_embeddings=512,
        initializer_range=0.2,
    )  # fmt: skip
    config = config_class(
        text_config=text_config, encoder_config=encoder_config, projector_config=projector_config,
        audio_token_index=tokenizer.convert_tokens_to_ids("<|audio|>"),
        has_lora_adapter=lora, window_size=15, downsample_rate=5, initializer_range=0.2,
        tie_word_embeddings=False,  # tied tiny random embeddings just echo the last prompt token forever
    )  # fmt: skip
    torch.manual_seed(seed)
    model = model_class(config)
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
        # The adapter alone (adapter_config.json, adapter_model.safetensors): GraniteSpeech's own
        # save_pretrained would write the LoRA-wrapped layers over the base weights too.
        PreTrainedModel.save_pretrained(model, out_dir)
    return out_dir
