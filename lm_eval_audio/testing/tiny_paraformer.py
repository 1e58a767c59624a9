"""A tiny random-weight Paraformer in FunASR's folder layout (``config.yaml``, ``model.pt``, ``am.mvn``,
``tokens.json``, as ``funasr/paraformer-zh`` is laid out), for tests and offline smoke runs of
``answer_asr=paraformer-zh``: FunASR's own ``Paraformer`` class (SAN-M encoder, CIF predictor, SAN-M decoder) at a
width of 32 and two blocks each, where the real model is 512 wide with 50 encoder blocks, its front end the real
one's (80 mel bins, 25 ms frames every 10 ms, seven stacked every six), and a vocabulary of a few characters.

    python -m lm_eval_audio.testing.tiny_paraformer OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TOKENS = ["<blank>", "<s>", "</s>", *"你好世界我们是中国人天气很今大家早上", "<unk>"]
FEATURES = 80 * 7  # the stacked fbank frames the encoder reads


def config() -> dict:
    """``config.yaml``: FunASR's keys for a Paraformer, small."""
    attention = {"attention_heads": 2, "linear_units": 64, "num_blocks": 2, "dropout_rate": 0.0,
                 "positional_dropout_rate": 0.0, "kernel_size": 11, "sanm_shfit": 0}
    return {
        "model": "Paraformer",
        "model_conf": {"ctc_weight": 0.0, "lsm_weight": 0.1, "length_normalized_loss": True, "predictor_weight": 1.0,
                       "predictor_bias": 1, "sampling_ratio": 0.75},
        "encoder": "SANMEncoder",
        "encoder_conf": {**attention, "output_size": 32, "attention_dropout_rate": 0.0, "input_layer": "pe",
                         "pos_enc_class": "SinusoidalPositionEncoder", "normalize_before": True,
                         "selfattention_layer_type": "sanm"},
        "decoder": "ParaformerSANMDecoder",
        "decoder_conf": {**attention, "self_attention_dropout_rate": 0.0, "src_attention_dropout_rate": 0.0,
                         "att_layer_num": 2},
        "predictor": "CifPredictorV2",
        "predictor_conf": {"idim": 32, "threshold": 1.0, "l_order": 1, "r_order": 1, "tail_threshold": 0.45},
        "frontend": "WavFrontend",
        "frontend_conf": {"fs": 16000, "window": "hamming", "n_mels": 80, "frame_length": 25, "frame_shift": 10,
                          "lfr_m": 7, "lfr_n": 6, "dither": 0.0},
        "tokenizer": "CharTokenizer",
        "tokenizer_conf": {"unk_symbol": "<unk>", "split_with_space": True},
    }


def _cmvn() -> str:
    """``am.mvn`` in Kaldi's nnet text form, as FunASR's ``load_cmvn`` reads it: a shift and a scale per feature."""
    shift, scale = " ".join(["-8.0"] * FEATURES), " ".join(["0.25"] * FEATURES)
    return (f"<Nnet>\n<Splice> {FEATURES} {FEATURES}\n[ 0 ]\n<AddShift> {FEATURES} {FEATURES}\n"
            f"<LearnRateCoef> 0 [ {shift} ]\n<Rescale> {FEATURES} {FEATURES}\n<LearnRateCoef> 0 [ {scale} ]\n"
            "</Nnet>\n")


def build(out_dir: str, seed: int = 0) -> Path:
    """Save the tiny model into ``out_dir``; its path. Its weights are random (seeded)."""
    import contextlib
    import io

    import torch
    import yaml

    with contextlib.redirect_stdout(io.StringIO()):  # FunASR's note on its optional torch_complex
        from funasr.models.paraformer.model import Paraformer

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    settings = config()
    (out / "config.yaml").write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    (out / "tokens.json").write_text(json.dumps(TOKENS, ensure_ascii=False), encoding="utf-8")
    (out / "am.mvn").write_text(_cmvn(), encoding="utf-8")
    torch.manual_seed(seed)
    model = Paraformer(**settings["model_conf"], **{k: settings[k] for k in ("encoder", "decoder", "predictor")},
                       **{f"{k}_conf": settings[f"{k}_conf"] for k in ("encoder", "decoder", "predictor")},
                       input_size=FEATURES, vocab_size=len(TOKENS))
    torch.save(model.state_dict(), out / "model.pt")
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(build(sys.argv[1]))
