"""A tiny random-weight Voxtral, built offline with its real transformers classes."""

from __future__ import annotations

from lm_eval_audio.testing.tiny_models.common import builds

import torch

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


@builds("voxtral")
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
