"""Tiny random-weight Audio Flamingo 3 (``audioflamingo3``) and Music Flamingo (``musicflamingo``), built offline with
their real transformers classes and the processors' chat templates as transformers' conversion scripts write them."""

from __future__ import annotations

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, finish, builds

AF3_SYSTEM_PROMPT = "You are a helpful assistant."
# Music Flamingo's default system prompt, as transformers' convert_musicflamingo_to_hf.py writes it into the
# checkpoint's template (its typos included: they are what the model was evaluated with).
MUSIC_FLAMINGO_SYSTEM_PROMPT = (
    "You are Music Flamingo, a multimodal assistant for language and music. On each turn you receive an audio clip "
    "which contains music and optional text, you will receive at least one or both; use your world knowledge and "
    "reasoning to help the user with any task. Interpret the entirety of the content any input music--regardlenss of "
    "whether the user calls it audio, music, or sound."
)


def flamingo_chat_template(system_prompt: str) -> str:
    """The processors' chat template of transformers' convert_audioflamingo3_to_hf.py (``write_processor``): a default
    system turn, and in a user turn one ``<sound>`` first (wherever the audio part stands), then the text parts."""
    return (
        "{% if messages[0]['role'] != 'system' %}<|im_start|>system\n" + system_prompt + "<|im_end|>\n{% endif %}"
        "{% for m in messages if m['content'] is not none %}<|im_start|>{{ m['role'] }}\n"
        "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
        "{% set audio = namespace(found=False) %}{% set text_buf = namespace(v='') %}"
        "{% for c in m['content'] %}{% if c.get('type') == 'audio' or 'audio' in c %}{% set audio.found = True %}"
        "{% elif c.get('type') == 'text' or 'text' in c %}{% set text_buf.v = text_buf.v + c['text'] %}{% endif %}"
        "{% endfor %}{% if audio.found %}{{ '<sound>' }}{% endif %}{{ text_buf.v }}{% endif %}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )


def _tokenizer() -> PreTrainedTokenizerFast:
    trained = bpe_tokenizer(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<sound>", "<|sound_bos|>", "<|sound_eos|>"])
    return PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", padding_side="left")


def _text_config(tokenizer) -> dict:
    return {"model_type": "qwen2", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "num_key_value_heads": 2, "vocab_size": len(tokenizer),
            "max_position_embeddings": 2048, "pad_token_id": tokenizer.pad_token_id,
            "eos_token_id": tokenizer.eos_token_id, "initializer_range": 0.2}


# Each 30 s window is 3,000 mel frames, 1,500 encoder positions; 128 mel bins as the checkpoints' feature extractor.
_AUDIO_CONFIG = {"model_type": "audioflamingo3_encoder", "hidden_size": 16, "num_attention_heads": 2,
                 "intermediate_size": 32, "num_hidden_layers": 1, "num_mel_bins": 128, "max_source_positions": 1500,
                 "initializer_range": 0.2}


@builds("audioflamingo3")
def build_audioflamingo3(out_dir: str, seed: int = 0) -> str:
    from transformers import (AudioFlamingo3Config, AudioFlamingo3ForConditionalGeneration, AudioFlamingo3Processor,
                              WhisperFeatureExtractor)

    tokenizer = _tokenizer()
    processor = AudioFlamingo3Processor(feature_extractor=WhisperFeatureExtractor(feature_size=128,
                                                                                  return_attention_mask=True),
                                        tokenizer=tokenizer, chat_template=flamingo_chat_template(AF3_SYSTEM_PROMPT))
    config = AudioFlamingo3Config(text_config=_text_config(tokenizer), audio_config=dict(_AUDIO_CONFIG),
                                  audio_token_id=processor.audio_token_id)
    torch.manual_seed(seed)
    model = AudioFlamingo3ForConditionalGeneration(config)
    # The checkpoint's generation_config.json samples (T 0.7, top_k 20, top_p 0.8, repetition penalty 1.05).
    generation = model.generation_config
    generation.do_sample, generation.temperature, generation.top_k, generation.top_p = True, 0.7, 20, 0.8
    generation.repetition_penalty = 1.05
    return finish(model, tokenizer, processor, out_dir)


@builds("musicflamingo")
def build_musicflamingo(out_dir: str, seed: int = 0) -> str:
    from transformers import (MusicFlamingoConfig, MusicFlamingoForConditionalGeneration, MusicFlamingoProcessor,
                              WhisperFeatureExtractor)

    tokenizer = _tokenizer()
    processor = MusicFlamingoProcessor(feature_extractor=WhisperFeatureExtractor(feature_size=128,
                                                                                 return_attention_mask=True),
                                       tokenizer=tokenizer,
                                       chat_template=flamingo_chat_template(MUSIC_FLAMINGO_SYSTEM_PROMPT))
    config = MusicFlamingoConfig(text_config=_text_config(tokenizer), audio_config=dict(_AUDIO_CONFIG),
                                 audio_token_id=processor.audio_token_id,
                                 audio_bos_token_id=processor.audio_bos_token_id,
                                 audio_eos_token_id=processor.audio_eos_token_id,
                                 rope_parameters={"rope_type": "default", "rope_theta": 1200})
    torch.manual_seed(seed)
    return finish(MusicFlamingoForConditionalGeneration(config), tokenizer, processor, out_dir)
