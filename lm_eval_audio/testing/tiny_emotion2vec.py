"""A tiny random-weight emotion2vec, laid out as ``emotion2vec/emotion2vec_plus_large`` is on the Hub
(``config.yaml``, ``model.pt``, ``tokens.txt``), for tests and offline smoke runs of the ``emotion`` metric: FunASR's
own ``Emotion2vec`` class (data2vec 2.0's audio encoder) at a width of 32 and two blocks, where the real model is
1024 wide. The configuration keys are data2vec 2.0's, as FunASR's emotion2vec configs carry them.

    python -m lm_eval_audio.testing.tiny_emotion2vec OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

# tokens.txt as the model's own lists its nine labels: Chinese and English, then <unk>
TOKENS = ["生气/angry", "厌恶/disgusted", "恐惧/fearful", "开心/happy", "中立/neutral", "其他/other", "难过/sad",
          "吃惊/surprised", "<unk>"]


def config() -> dict:
    """``config.yaml``: the encoder's settings (data2vec 2.0's keys), small."""
    audio = {
        "type": "AUDIO", "prenet_depth": 1, "prenet_layerdrop": 0.0, "prenet_dropout": 0.0,
        "start_drop_path_rate": 0.0, "end_drop_path_rate": 0.0, "num_extra_tokens": 2, "init_extra_token_zero": True,
        "mask_noise_std": 0.01, "mask_prob_min": None, "mask_prob": 0.5, "inverse_mask": False,
        "mask_prob_adjust": 0.05, "keep_masked_pct": 0.0, "mask_length": 5, "add_masks": False,
        "remove_masks": False, "mask_dropout": 0.0, "encoder_zero_mask": True, "mask_channel_prob": 0.0,
        "mask_channel_length": 64, "ema_local_encoder": False, "local_grad_mult": 1.0, "use_alibi_encoder": True,
        "alibi_scale": 1.0, "learned_alibi": False, "alibi_max_pos": None, "learned_alibi_scale": True,
        "learned_alibi_scale_per_head": True, "learned_alibi_scale_per_layer": False, "num_alibi_heads": 2,
        "model_depth": 2, "decoder": None, "extractor_mode": "layer_norm",
        # seven convolutions of stride 320 in all, as wav2vec 2.0's: 50 frames a second
        "feature_encoder_spec": "[(32, 10, 5)] + [(32, 3, 2)] * 4 + [(32,2,2)] + [(32,2,2)]",
        "conv_pos_width": 15, "conv_pos_groups": 4, "conv_pos_depth": 2, "conv_pos_pre_ln": False,
    }
    model = {
        "loss_beta": 0.0, "loss_scale": None, "depth": 2, "start_drop_path_rate": 0.0, "end_drop_path_rate": 0.0,
        "num_heads": 2, "norm_eps": 1e-5, "norm_affine": True, "encoder_dropout": 0.0, "post_mlp_drop": 0.0,
        "attention_dropout": 0.0, "activation_dropout": 0.0, "dropout_input": 0.0, "layerdrop": 0.0,
        "embed_dim": 32, "mlp_ratio": 4.0, "layer_norm_first": False, "average_top_k_layers": 2,
        "end_of_block_targets": False, "clone_batch": 1, "layer_norm_target_layer": False,
        "batch_norm_target_layer": False, "instance_norm_target_layer": True, "instance_norm_targets": False,
        "layer_norm_targets": False, "ema_decay": 0.999, "ema_end_decay": 0.99999, "ema_anneal_end_step": 20000,
        "ema_encoder_only": False, "extractor_mode": "layer_norm", "supported_modality": "AUDIO",
        "normalize": True, "modalities": {"audio": audio},
    }
    return {"model": "Emotion2vec", "model_conf": model, "tokenizer": "CharTokenizer",
            "tokenizer_conf": {"unk_symbol": "<unk>", "split_with_space": True}}


def build(out_dir: str, seed: int = 0) -> Path:
    """Save the tiny model into ``out_dir``; its path. Its weights are random (seeded), and its projection onto
    the labels scaled up so that the nine probabilities differ clearly from one clip to another."""
    import contextlib
    import io

    import torch
    import yaml

    with contextlib.redirect_stdout(io.StringIO()):  # FunASR's note on its optional torch_complex
        from funasr.models.emotion2vec.model import Emotion2vec

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = Emotion2vec(**config(), vocab_size=len(TOKENS))
    with torch.no_grad():
        model.proj.weight.mul_(20)
    (folder / "config.yaml").write_text(yaml.safe_dump(config(), sort_keys=False), encoding="utf-8")
    (folder / "tokens.txt").write_text("".join(f"{t}\n" for t in TOKENS), encoding="utf-8")
    torch.save({"state_dict": model.state_dict()}, folder / "model.pt")
    return folder


if __name__ == "__main__":
    print(build(sys.argv[1]))
