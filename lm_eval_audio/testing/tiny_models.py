"""Tiny random-weight audio-language models + processors, built fully offline.

Each ``build_*(out_dir)`` saves a model and processor so that
``AutoProcessor.from_pretrained(out_dir)`` and ``AutoModelForMultimodalLM.from_pretrained(out_dir)``
load them back. The tokenizer is a byte-level BPE trained on inline text with the ``tokenizers`` library.
"""

from __future__ import annotations

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

_CORPUS = (
    "The quick brown fox jumps over the lazy dog. What is in this audio? Please transcribe the speech. "
    "You are a helpful assistant. The sound is a sine wave with some noise. Describe the audio clip in English. "
    "Yes, no, maybe. One two three four five six seven eight nine ten. Hello world, how are you today? "
)


def _bpe_tokenizer(special_tokens: list[str], vocab_size: int = 384, **kwargs) -> PreTrainedTokenizerFast:
    """Byte-level BPE trained on the inline corpus; ``special_tokens`` get ids 0..n-1 and are never split."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([_CORPUS] * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, padding_side="left", **kwargs)


def _finish(model, tokenizer, processor, out_dir):
    gc = model.generation_config
    gc.pad_token_id, gc.eos_token_id = tokenizer.pad_token_id, tokenizer.eos_token_id
    gc.bos_token_id = getattr(tokenizer, "bos_token_id", None)
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir


# ----------------------------------------------------------------------------------------------- Qwen2-Audio
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
    tokenizer = _bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>")
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
    return _finish(model, tokenizer, processor, out_dir)


# ---------------------------------------------------------------------------------------------- Granite Speech
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


def build_granite_speech(out_dir: str, seed: int = 0, lora: bool = True) -> str:
    """granite-speech-3.x in small. The published checkpoints carry a speech LoRA (rank 64 on q_proj and
    v_proj, ``adapter_config.json`` next to ``config.json``); ``lora`` gives this one a rank-4 LoRA there,
    with random weights on both sides so that switching it changes the outputs (needs peft)."""
    from transformers import (
        Blip2QFormerConfig,
        GraniteConfig,
        GraniteSpeechConfig,
        GraniteSpeechEncoderConfig,
        GraniteSpeechFeatureExtractor,
        GraniteSpeechForConditionalGeneration,
        GraniteSpeechProcessor,
        PreTrainedModel,
    )

    # As the checkpoint's tokenizer: <|end_of_text|> is BOS, EOS and padding, and no BOS is added.
    specials = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|audio|>"]
    tokenizer = _bpe_tokenizer(specials, eos_token="<|end_of_text|>", bos_token="<|end_of_text|>",
                               pad_token="<|end_of_text|>")
    text_config = GraniteConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=False, initializer_range=0.2,  # as Qwen2-Audio's: else the input barely matters
    )  # fmt: skip
    encoder_config = GraniteSpeechEncoderConfig(
        input_dim=160, num_layers=2, hidden_dim=32, feedforward_mult=2, num_heads=2, output_dim=8,
        context_size=200, max_pos_emb=512, dropout=0.0, conv_kernel_size=15,
    )  # fmt: skip (input_dim = 2 stacked frames x 80 mel bins)
    projector_config = Blip2QFormerConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        encoder_hidden_size=32, cross_attention_frequency=1, max_position_embeddings=512, initializer_range=0.2,
    )  # fmt: skip
    config = GraniteSpeechConfig(
        text_config=text_config, encoder_config=encoder_config, projector_config=projector_config,
        audio_token_index=tokenizer.convert_tokens_to_ids("<|audio|>"),
        has_lora_adapter=lora, window_size=15, downsample_rate=5, initializer_range=0.2,
        tie_word_embeddings=False,  # tied tiny random embeddings just echo the last prompt token forever
    )  # fmt: skip
    torch.manual_seed(seed)
    model = GraniteSpeechForConditionalGeneration(config)
    processor = GraniteSpeechProcessor(
        audio_processor=GraniteSpeechFeatureExtractor(n_mels=80, projector_window_size=15, projector_downsample_rate=5),
        tokenizer=tokenizer,
        audio_token="<|audio|>",
        chat_template=GRANITE_SPEECH_CHAT_TEMPLATE,
    )
    _finish(model, tokenizer, processor, out_dir)
    if lora:
        from peft import LoraConfig

        model.add_adapter(LoraConfig(r=4, lora_alpha=32, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM",
                                     init_lora_weights=False))
        # The adapter alone (adapter_config.json, adapter_model.safetensors): GraniteSpeech's own
        # save_pretrained would write the LoRA-wrapped layers over the base weights too.
        PreTrainedModel.save_pretrained(model, out_dir)
    return out_dir


# ----------------------------------------------------------------------------------------------- Gemma (text)
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


def build_gemma_text(out_dir: str, seed: int = 0) -> str:
    """A text-only Gemma whose tokenizer adds BOS, as Gemma's does."""
    from tokenizers import processors
    from transformers import GemmaConfig, GemmaForCausalLM

    specials = ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"]
    tokenizer = _bpe_tokenizer(specials, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>")
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


# ---------------------------------------------------------------------------------------------- Qwen2.5-Omni
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

    named = {"image_token": "<|IMAGE|>", "audio_token": "<|AUDIO|>", "video_token": "<|VIDEO|>",
             "vision_bos_token": "<|vision_bos|>", "vision_eos_token": "<|vision_eos|>",
             "audio_bos_token": "<|audio_bos|>", "audio_eos_token": "<|audio_eos|>"}
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *named.values()]
    trained = _bpe_tokenizer(specials)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|im_end|>",
                                        pad_token="<|endoftext|>", padding_side="left", extra_special_tokens=named)
    ids = tokenizer.convert_tokens_to_ids
    thinker = Qwen2_5OmniThinkerConfig(
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


# ------------------------------------------------------------------------------------------ Phi-4-multimodal
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
    trained = _bpe_tokenizer(specials)
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
    _finish(model, tokenizer, processor, out_dir)
    if lora:
        from peft import LoraConfig

        # The published speech LoRA's target (transformers' conversion script): the decoder's layers only.
        target = r"model.layers.\d+.((self_attn.(qkv|o)_proj)|(mlp.(gate_up|down)_proj))"
        model.add_adapter(LoraConfig(r=4, lora_alpha=8, target_modules=target, task_type="CAUSAL_LM",
                                     init_lora_weights=False), adapter_name="speech")
        PreTrainedModel.save_pretrained(model, str(Path(out_dir) / "speech-lora"))
    return out_dir


# ------------------------------------------------------------------------------------------------- Gemma 3n
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
    trained = _bpe_tokenizer(specials)
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
    return _finish(model, tokenizer, processor, out_dir)


# --------------------------------------------------------------------------------------------------- Voxtral
# Voxtral-Mini-3B-2507's tokenizer is a tekken.json read by mistral_common, which renders the prompt itself (the
# model card's usage goes through processor.apply_chat_template; there is no Jinja template). A tekken file in
# small: the 256 byte tokens as the whole vocabulary, the special tokens at the checkpoint's ranks (<s> 1, </s> 2,
# [INST] 3, [/INST] 4, <pad> 11, [SYSTEM_PROMPT] 17, [AUDIO] 24, [BEGIN_AUDIO] 25, [TRANSCRIBE] 34), version v7,
# and the checkpoint's audio section: 16 kHz, 12.5 audio tokens per second, 128 mel bins, hop 160, window 400,
# clips padded to multiples of 30 s.
VOXTRAL_SPECIAL_TOKENS = {0: "<unk>", 1: "<s>", 2: "</s>", 3: "[INST]", 4: "[/INST]", 5: "[AVAILABLE_TOOLS]",
                          6: "[/AVAILABLE_TOOLS]", 7: "[TOOL_RESULTS]", 8: "[/TOOL_RESULTS]", 9: "[TOOL_CALLS]",
                          10: "[IMG]", 11: "<pad>", 12: "[IMG_BREAK]", 13: "[IMG_END]", 14: "[PREFIX]", 15: "[MIDDLE]",
                          16: "[SUFFIX]", 17: "[SYSTEM_PROMPT]", 18: "[/SYSTEM_PROMPT]", 19: "[TOOL_CONTENT]",
                          20: "[ARGS]", 21: "[CALL_ID]", 24: "[AUDIO]", 25: "[BEGIN_AUDIO]", 34: "[TRANSCRIBE]"}
VOXTRAL_SPECIAL_TOKENS_IDS = {token: rank for rank, token in VOXTRAL_SPECIAL_TOKENS.items()}
_VOXTRAL_NUM_SPECIAL = 40  # the checkpoint has 1,000; the others are unused fillers
_TEKKEN_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|"
    r"\s*[\r\n]+|\s+(?!\S)|\s+"
)


def write_tekken(path: str, num_special: int = _VOXTRAL_NUM_SPECIAL) -> str:
    """A tekken.json that mistral_common loads: byte tokens only, Voxtral's special tokens and audio section."""
    import base64
    import json

    specials = [{"rank": i, "token_str": VOXTRAL_SPECIAL_TOKENS.get(i, f"<SPECIAL_{i}>"), "is_control": True}
                for i in range(num_special)]
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode("ascii"),
              "token_str": chr(i) if 32 <= i < 127 else None} for i in range(256)]
    data = {
        "config": {"pattern": _TEKKEN_PATTERN, "num_vocab_tokens": 256, "default_vocab_size": num_special + 256,
                   "default_num_special_tokens": num_special, "version": "v7"},
        "vocab": vocab, "special_tokens": specials,
        "audio": {"sampling_rate": 16000, "frame_rate": 12.5, "chunk_length_s": 30.0,
                  "audio_encoding_config": {"num_mel_bins": 128, "hop_length": 160, "window_size": 400}},
    }  # fmt: skip
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


def build_voxtral(out_dir: str, seed: int = 0) -> str:
    """Voxtral in small: a Whisper-style encoder over 30 s windows of 128 mel bins (1,500 frames), a projector
    that stacks 4 frames per audio token (its input is the encoder's intermediate size, 4 x its hidden size), a
    Llama text model, the tekken tokenizer above. Needs mistral_common[audio]."""
    from pathlib import Path

    from transformers import VoxtralConfig, VoxtralForConditionalGeneration, VoxtralProcessor, WhisperFeatureExtractor
    from transformers.tokenization_mistral_common import MistralCommonBackend

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    # The backend keeps reading its tekken.json (save_pretrained copies it), so it is written where it stays.
    write_tekken(str(Path(out_dir) / "tekken.json"))
    tokenizer = MistralCommonBackend.from_pretrained(out_dir)
    config = VoxtralConfig(
        audio_config={"model_type": "voxtral_encoder", "hidden_size": 32, "intermediate_size": 128,
                      "num_hidden_layers": 1, "num_attention_heads": 2, "num_mel_bins": 128,
                      "max_source_positions": 1500, "initializer_range": 0.2},
        text_config={"model_type": "llama", "vocab_size": _VOXTRAL_NUM_SPECIAL + 256, "hidden_size": 32,
                     "intermediate_size": 64,
                     "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
                     "max_position_embeddings": 4096, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 11,
                     "tie_word_embeddings": False, "initializer_range": 0.2},
        audio_token_id=VOXTRAL_SPECIAL_TOKENS_IDS["[AUDIO]"], projector_hidden_act="gelu",
    )  # fmt: skip
    torch.manual_seed(seed)
    model = VoxtralForConditionalGeneration(config)
    processor = VoxtralProcessor(feature_extractor=WhisperFeatureExtractor(feature_size=128), tokenizer=tokenizer)
    gc = model.generation_config
    gc.bos_token_id, gc.eos_token_id, gc.pad_token_id = 1, 2, 11
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir


BUILDERS = {"qwen2_audio": build_qwen2_audio, "granite_speech": build_granite_speech, "gemma_text": build_gemma_text,
            "gemma3n": build_gemma3n, "qwen2_5_omni": build_qwen2_5_omni, "phi4_multimodal": build_phi4_multimodal,
            "voxtral": build_voxtral}


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m lm_eval_audio.testing.tiny_models",
        description="Save a tiny random-weight audio LM (real transformers classes, no download) for smoke runs.",
    )
    parser.add_argument("out_dir")
    parser.add_argument("--arch", choices=sorted(BUILDERS), default="qwen2_audio")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(BUILDERS[args.arch](args.out_dir, seed=args.seed))


if __name__ == "__main__":
    main()
