"""A tiny random-weight Gemma 3n, built offline with its real transformers classes."""

from __future__ import annotations

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish, builds


# The chat template transformers' Gemma 3n conversion script writes into the instruction-tuned checkpoints
# (models/gemma3n/convert_gemma3n_weights.py, _CHAT_TEMPLATE): BOS written by the template, a system turn folded into the first
# user turn, "model" for the assistant, text parts trimmed, an audio part as one <audio_soft_token> that the
# processor expands to "\n\n<start_of_audio>" + 188 soft tokens + "<end_of_audio>\n\n".
GEMMA3N_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- if messages[0]['content'] is string -%}{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}"
    "{%- else -%}{%- set first_user_prefix = messages[0]['content'][0]['text'] + '\\n\\n' -%}{%- endif -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}"
    "{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}{%- else -%}{%- set role = message['role'] -%}"
    "{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}"
    "{%- if message['content'] is string -%}{{ message['content'] | trim }}"
    "{%- elif message['content'] is iterable -%}{%- for item in message['content'] -%}"
    "{%- if item['type'] == 'audio' -%}{{ '<audio_soft_token>' }}"
    "{%- elif item['type'] == 'image' -%}{{ '<image_soft_token>' }}"
    "{%- elif item['type'] == 'text' -%}{{ item['text'] | trim }}{%- endif -%}"
    "{%- endfor -%}"
    "{%- else -%}{{ raise_exception('Invalid content type') }}{%- endif -%}"
    "{{ '<end_of_turn>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)


@builds("gemma3n")
def build_gemma3n(out_dir: str, seed: int = 0) -> str:
    """Gemma 3n in small. Its vocabulary as the checkpoint's: text tokens, then the vision tokens (from
    <end_of_image>, with <image_soft_token> next), then the audio tokens (from <end_of_audio>, with
    <audio_soft_token> next), the last id an audio token (the model pads clips with it); a BOS-adding
    tokenizer. The vision tower is timm's smallest test network instead of MobileNetV5 (300M parameters):
    no test shows it an image. Needs timm, as the real checkpoints do."""
    from tokenizers import processors
    from transformers import (
        Gemma3nAudioConfig,
        Gemma3nAudioFeatureExtractor,
        Gemma3nConfig,
        Gemma3nForConditionalGeneration,
        Gemma3nProcessor,
        Gemma3nTextConfig,
        Gemma3nVisionConfig,
        SiglipImageProcessorPil,
    )

    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>",
                "<start_of_audio>"]
    trained = bpe_tokenizer(specials)
    n_text, n_vision, n_audio = len(trained), 8, 8
    backend = trained._tokenizer
    backend.add_special_tokens(["<end_of_image>", "<image_soft_token>", *[f"<vision_{i}>" for i in range(n_vision - 2)],
                                "<end_of_audio>", "<audio_soft_token>", *[f"<audio_{i}>" for i in range(n_audio - 2)]])
    backend.post_processor = processors.TemplateProcessing(
        single="<bos> $A", pair="<bos> $A $B", special_tokens=[("<bos>", backend.token_to_id("<bos>"))])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
        padding_side="left", extra_special_tokens={
            "image_token": "<image_soft_token>", "boi_token": "<start_of_image>", "eoi_token": "<end_of_image>",
            "audio_token": "<audio_soft_token>", "boa_token": "<start_of_audio>", "eoa_token": "<end_of_audio>"},
    )  # fmt: skip
    ids = tokenizer.convert_tokens_to_ids
    text_config = Gemma3nTextConfig(
        vocab_size=n_text + n_vision + n_audio, vocab_size_per_layer_input=n_text, hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=16, hidden_size_per_layer_input=8,
        altup_num_inputs=2, laurel_rank=4, num_kv_shared_layers=0, sliding_window=64,
        layer_types=["sliding_attention", "full_attention"], activation_sparsity_pattern=[0.0, 0.0],
        max_position_embeddings=2048, pad_token_id=ids("<pad>"), eos_token_id=ids("<eos>"), bos_token_id=ids("<bos>"),
        initializer_range=0.2,
    )  # fmt: skip
    audio_config = Gemma3nAudioConfig(
        vocab_size=n_audio, vocab_offset=n_text + n_vision, input_feat_size=128, hidden_size=32,
        conf_num_attention_heads=2, conf_num_hidden_layers=1, sscp_conv_channel_size=(8, 4), initializer_range=0.2,
    )  # fmt: skip
    vision_config = Gemma3nVisionConfig(architecture="test_efficientnet", hidden_size=32, vocab_size=n_vision,
                                        vocab_offset=n_text, initializer_range=0.2)
    config = Gemma3nConfig(
        text_config=text_config, audio_config=audio_config, vision_config=vision_config,
        boi_token_id=ids("<start_of_image>"), eoi_token_id=ids("<end_of_image>"), image_token_id=ids("<image_soft_token>"),
        boa_token_id=ids("<start_of_audio>"), eoa_token_id=ids("<end_of_audio>"), audio_token_id=ids("<audio_soft_token>"),
        initializer_range=0.2,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = Gemma3nForConditionalGeneration(config)
    processor = Gemma3nProcessor(feature_extractor=Gemma3nAudioFeatureExtractor(), image_processor=SiglipImageProcessorPil(),
                                 tokenizer=tokenizer, chat_template=GEMMA3N_CHAT_TEMPLATE)
    return finish(model, tokenizer, processor, out_dir)
