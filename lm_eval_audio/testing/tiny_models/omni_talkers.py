"""Tiny random-weight Qwen2.5-Omni and Qwen3-Omni *with* their talkers, for spoken answers: the whole model
(thinker, talker, token2wav or code2wav) of the real transformers classes, saved with its processor (and Qwen2.5-Omni's
speakers file), loading back with ``from_pretrained`` into the family's top-level class; ``generate(...,
generation_mode="audio")`` returns text ids and a waveform in a fraction of a second on CPU.

What the configurations must satisfy, found by trial (transformers 5.23): the talkers repeat the thinker's audio and
vision token ids and ``position_id_per_seconds`` (they recompute its 3D positions); a talker's ``head_dim`` halves
to the sum of its ``mrope_section``; Qwen3-Omni's talker vocabulary is its codebook plus 1,024 specials, its code
predictor's is the codebook, ``num_code_groups`` equals code2wav's ``num_quantizers``, and its turns are found by the
single token after ``<|im_start|>`` (so the role words are tokens here); Qwen2.5-Omni's DiT takes every talker code
(``num_embeds``). The vocoders' ``initializer_range`` of 0.1 gives audible, unclipped waveforms. transformers leaves
Qwen3-Omni's talker experts uninitialised (``torch.empty``: sometimes NaN), so they are drawn here.
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import PreTrainedTokenizerFast

from lm_eval_audio.testing.tiny_models.common import bpe_tokenizer, builds
from lm_eval_audio.testing.tiny_models.qwen2_5_omni import NAMED_TOKENS as NAMED_25
from lm_eval_audio.testing.tiny_models.qwen2_5_omni import QWEN2_5_OMNI_CHAT_TEMPLATE, thinker_parts
from lm_eval_audio.testing.tiny_models.qwen3_omni import INSTRUCT_CHAT_TEMPLATE, NAMED_TOKENS
from lm_eval_audio.testing.tiny_models.qwen3_omni import _thinker_config as qwen3_thinker_config

TTS_TOKENS = ["<|tts_pad|>", "<|tts_bos|>", "<|tts_eos|>"]  # thinker-vocab tokens the talkers embed
ROLES = ["system", "user", "assistant"]  # one token each: Qwen3-Omni's generate() finds turns by the role token


def _tokenizer(named: dict) -> PreTrainedTokenizerFast:
    trained = bpe_tokenizer(["<|endoftext|>", "<|im_start|>", "<|im_end|>", *named.values(), *TTS_TOKENS])
    tok = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|im_end|>",
                                  pad_token="<|endoftext|>", padding_side="left", extra_special_tokens=dict(named))
    tok.add_tokens(ROLES, special_tokens=False)
    return tok


@builds("qwen2_5_omni_talker")
def build_qwen2_5_omni_talker(out_dir: str, seed: int = 0) -> str:
    """Qwen2.5-Omni whole: thinker, talker, token2wav and the speakers file (``spk_dict.pt``: Chelsie, Ethan)."""
    from transformers import (Qwen2_5OmniConfig, Qwen2_5OmniForConditionalGeneration, Qwen2_5OmniProcessor,
                              Qwen2VLImageProcessorPil, Qwen2VLVideoProcessor, WhisperFeatureExtractor)

    tokenizer = _tokenizer(NAMED_25)
    ids = tokenizer.convert_tokens_to_ids
    # token ids the thinker and the talker must agree on (the talker recomputes the thinker's 3D RoPE positions)
    shared = dict(audio_token_index=ids("<|AUDIO|>"), image_token_index=ids("<|IMAGE|>"),
                  video_token_index=ids("<|VIDEO|>"), audio_start_token_id=ids("<|audio_bos|>"),
                  audio_end_token_id=ids("<|audio_eos|>"), vision_start_token_id=ids("<|vision_bos|>"),
                  vision_end_token_id=ids("<|vision_eos|>"), position_id_per_seconds=25, seconds_per_chunk=2,
                  initializer_range=0.2)
    thinker = dict(
        **thinker_parts(tokenizer),
        user_token_id=ids("<|im_start|>"), **shared,
    )
    # talker: codec vocab and codec special ids kept at the published values (generate()'s hard-coded default
    # talker_eos_token_id=[8292, 8294] then works); text ids are thinker-vocab ids.
    talker = dict(
        vocab_size=8448, embedding_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=2048,
        rope_parameters={"mrope_section": [1, 1, 2], "rope_type": "default", "rope_theta": 1e6},
        tts_text_start_token_id=ids("<|tts_bos|>"), tts_text_end_token_id=ids("<|tts_eos|>"),
        tts_text_pad_token_id=ids("<|tts_pad|>"), spatial_merge_size=1, **shared,
    )
    token2wav = dict(
        dit_config=dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, head_dim=16, ff_mult=2,
                        emb_dim=16, num_embeds=8448, mel_dim=80, repeats=2, block_size=24, dropout=0.0,
                        look_ahead_layers=[1], look_backward_layers=[0], max_position_embeddings=2048,
                        enc_emb_dim=16, enc_dim=16, enc_channels=[16, 16, 16], enc_kernel_sizes=[5, 3, 1],
                        enc_dilations=[1, 2, 1], enc_attention_channels=8, enc_res2net_scale=2, enc_se_channels=8),
        # real upsampling (5*3*2*2*2*2 = 240 samples per mel frame, 2 mel frames per code) on 64 channels
        bigvgan_config=dict(mel_dim=80, upsample_initial_channel=64, resblock_kernel_sizes=[3],
                            resblock_dilation_sizes=[[1, 3, 5]], initializer_range=0.1),
    )
    torch.manual_seed(seed)
    config = Qwen2_5OmniConfig(thinker_config=thinker, talker_config=talker, token2wav_config=token2wav,
                               enable_audio_output=True)
    model = Qwen2_5OmniForConditionalGeneration(config)
    model.thinker.generation_config.pad_token_id = tokenizer.pad_token_id
    model.thinker.generation_config.eos_token_id = tokenizer.eos_token_id
    processor = Qwen2_5OmniProcessor(
        image_processor=Qwen2VLImageProcessorPil(), video_processor=Qwen2VLVideoProcessor(),
        feature_extractor=WhisperFeatureExtractor(feature_size=128), tokenizer=tokenizer,
        chat_template=QWEN2_5_OMNI_CHAT_TEMPLATE,
    )
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    # from_pretrained requires spk_dict.pt: {name: {"bos_token": thinker-vocab id, "cond": (1, enc_emb_dim),
    # "ref_mel": (1, T, mel_dim)}}; generate() looks the speaker name up case-sensitively.
    g = torch.Generator().manual_seed(seed)
    speakers = {name: {"bos_token": ids("<|tts_bos|>"), "cond": torch.randn(1, 16, generator=g),
                       "ref_mel": torch.randn(1, 30, 80, generator=g)} for name in ("Chelsie", "Ethan")}
    torch.save(speakers, Path(out_dir) / "spk_dict.pt")
    return out_dir


@builds("qwen3_omni_talker")
def build_qwen3_omni_talker(out_dir: str, seed: int = 0) -> str:
    """Qwen3-Omni Instruct whole: thinker, talker (its MoE and code predictor) and code2wav; speakers in its config."""
    from transformers import (Qwen2VLImageProcessorPil, Qwen2VLVideoProcessor, Qwen3OmniMoeConfig,
                              Qwen3OmniMoeForConditionalGeneration, Qwen3OmniMoeProcessor, WhisperFeatureExtractor)

    tokenizer = _tokenizer(NAMED_TOKENS)
    tokenizer.add_tokens(["<think>", "</think>"], special_tokens=False)
    ids = tokenizer.convert_tokens_to_ids
    thinker = qwen3_thinker_config(tokenizer)
    groups = 4  # talker code groups == code2wav quantizers (published: 16)
    talker = dict(
        text_config=dict(vocab_size=3072, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8, moe_intermediate_size=16,
                         shared_expert_intermediate_size=16, num_experts=2, num_experts_per_tok=1,
                         max_position_embeddings=2048, initializer_range=0.2,
                         rope_parameters={"mrope_section": [1, 1, 2], "rope_type": "default", "rope_theta": 1e6}),
        code_predictor_config=dict(vocab_size=2048, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                                   max_position_embeddings=2048, num_code_groups=groups, initializer_range=0.2),
        num_code_groups=groups, thinker_hidden_size=32, accept_hidden_layer=1,  # thinker has 1 layer
        # codec ids as published (vocab 3072 = 2048 codes + 1024 specials; generate() suppresses the top 1024)
        codec_eos_token_id=2150, codec_nothink_id=2155, codec_think_bos_id=2156, codec_think_eos_id=2157,
        codec_pad_id=2148, codec_bos_id=2149, speaker_id={"chelsie": 2301, "ethan": 2302, "aiden": 2303},
        audio_token_id=ids("<|audio_pad|>"), image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"), audio_start_token_id=ids("<|audio_start|>"),
        position_id_per_seconds=13, spatial_merge_size=1, initializer_range=0.2,
    )
    # real upsampling (8*5*4*3 * 2*2 = 1920 samples per code, 12.5 codes/s -> 24 kHz) on tiny channels
    code2wav = dict(codebook_size=2048, hidden_size=16, num_attention_heads=2, num_key_value_heads=2,
                    intermediate_size=32, num_hidden_layers=1, num_quantizers=groups, decoder_dim=32,
                    sliding_window=72, max_position_embeddings=2048, initializer_range=0.1)
    config = Qwen3OmniMoeConfig(
        thinker_config=thinker, talker_config=talker, code2wav_config=code2wav, enable_audio_output=True,
        im_start_token_id=ids("<|im_start|>"), im_end_token_id=ids("<|im_end|>"),
        tts_pad_token_id=ids("<|tts_pad|>"), tts_bos_token_id=ids("<|tts_bos|>"), tts_eos_token_id=ids("<|tts_eos|>"),
        system_token_id=ids("system"), user_token_id=ids("user"), assistant_token_id=ids("assistant"),
    )
    torch.manual_seed(seed)
    model = Qwen3OmniMoeForConditionalGeneration(config)
    # transformers bug: no _init_weights covers the talker's MoE (Qwen3OmniMoeTalkerTextExperts stays torch.empty
    # garbage, sometimes NaN; the router stays zeros), so initialise them here or the talker samples from NaN.
    with torch.no_grad():
        for layer in model.talker.model.layers:
            for param in (layer.mlp.experts.gate_up_proj, layer.mlp.experts.down_proj, layer.mlp.gate.weight):
                param.normal_(0.0, 0.2)
    model.thinker.generation_config.pad_token_id = tokenizer.pad_token_id
    model.thinker.generation_config.eos_token_id = tokenizer.eos_token_id
    processor = Qwen3OmniMoeProcessor(
        image_processor=Qwen2VLImageProcessorPil(), video_processor=Qwen2VLVideoProcessor(),
        feature_extractor=WhisperFeatureExtractor(feature_size=128, chunk_length=300), tokenizer=tokenizer,
        chat_template=INSTRUCT_CHAT_TEMPLATE,
    )
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir
