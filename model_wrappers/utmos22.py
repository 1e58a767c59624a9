"""UTMOS22 "strong" (UTokyo-SaruLab's system of the VoiceMOS Challenge 2022), the MOS predictor URO-Bench,
VocalBench and UltraEval-Audio report as UTMOS, as SpeechMOS v1.2.0 packages the official checkpoint
(tarepan/SpeechMOS, ``torch.hub.load("tarepan/SpeechMOS:v1.2.0", "utmos22_strong")``), restated on transformers'
``Wav2Vec2Model`` so that SpeechMOS's released state dict loads into it, every key accounted for.

What it is (SpeechMOS@ed25eacb ``speechmos/utmos22/strong/model.py``, ``speechmos/utmos22/fairseq_alt.py``,
``hubconf.py``; the domain and judge rows from tarepan/UTMOS22-official ``demo/utmos_strong_alt``):

* wav2vec 2.0 base (fairseq's layout: seven convolutions of 512 channels, a group norm on the first, a 768-wide
  post-LN encoder of 12 layers, a weight-normed positional convolution of kernel 128 in 16 groups): each 20 ms frame
  of a 16 kHz clip becomes 768 numbers;
* each frame joined with the embedding of domain 0 and of judge 288 (128 each, the rows the official demo uses),
  read by a one-layer bidirectional LSTM (1024 to 2 x 512) and a projection (1024, 2048, ReLU, 1);
* the clip's score is the mean over its frames, times 2, plus 3.

The clip is resampled to 16 kHz with ``torchaudio.functional.resample`` (its defaults), as SpeechMOS does, and not
normalized. SpeechMOS takes a padded batch without lengths, so padding would be heard as signal (the group norm,
the attention, the LSTM and the mean all see it): each clip is scored alone here, and no score depends on the
clips beside it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

URL = "https://github.com/tarepan/SpeechMOS/releases/download/v1.0.0/utmos22_strong_step7459_v1.pt"
FILE = "utmos22_strong_step7459_v1.pt"
SAMPLE_RATE = 16000
WHO = "UTMOS"

# SpeechMOS's names of the wav2vec 2.0 part (after ``wav2vec2.``) -> transformers' Wav2Vec2Model's
_SSL_NAMES = [
    (r"^feature_extractor\.conv_layers\.(\d+)\.0\.weight$", r"feature_extractor.conv_layers.\1.conv.weight"),
    (r"^feature_extractor\.conv_layers\.0\.2\.(weight|bias)$", r"feature_extractor.conv_layers.0.layer_norm.\1"),
    (r"^layer_norm\.(weight|bias)$", r"feature_projection.layer_norm.\1"),
    (r"^post_extract_proj\.(weight|bias)$", r"feature_projection.projection.\1"),
    (r"^mask_emb$", "masked_spec_embed"),
    (r"^encoder\.pos_conv\.0\.bias$", "encoder.pos_conv_embed.conv.bias"),
    (r"^encoder\.pos_conv\.0\.weight_g$", "encoder.pos_conv_embed.conv.parametrizations.weight.original0"),
    (r"^encoder\.pos_conv\.0\.weight_v$", "encoder.pos_conv_embed.conv.parametrizations.weight.original1"),
    (r"^encoder\.layer_norm\.(weight|bias)$", r"encoder.layer_norm.\1"),
    (r"^encoder\.layers\.(\d+)\.self_attn\.(q|k|v|out)_proj\.(weight|bias)$", r"encoder.layers.\1.attention.\2_proj.\3"),
    (r"^encoder\.layers\.(\d+)\.self_attn_layer_norm\.(weight|bias)$", r"encoder.layers.\1.layer_norm.\2"),
    (r"^encoder\.layers\.(\d+)\.fc1\.(weight|bias)$", r"encoder.layers.\1.feed_forward.intermediate_dense.\2"),
    (r"^encoder\.layers\.(\d+)\.fc2\.(weight|bias)$", r"encoder.layers.\1.feed_forward.output_dense.\2"),
    (r"^encoder\.layers\.(\d+)\.final_layer_norm\.(weight|bias)$", r"encoder.layers.\1.final_layer_norm.\2"),
]


def ssl_config():
    """wav2vec 2.0 base as fairseq lays it out, in transformers' terms."""
    from transformers import Wav2Vec2Config

    return Wav2Vec2Config(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                          hidden_act="gelu", feat_extract_norm="group", feat_extract_activation="gelu",
                          conv_dim=(512,) * 7, conv_kernel=(10, 3, 3, 3, 3, 2, 2), conv_stride=(5, 2, 2, 2, 2, 2, 2),
                          conv_bias=False, num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16,
                          do_stable_layer_norm=False, layer_norm_eps=1e-5)


def network():
    """The predictor, with random weights until a checkpoint is loaded (:func:`load_speechmos`)."""
    import torch
    from transformers import Wav2Vec2Model

    class Utmos22Strong(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wav2vec2 = Wav2Vec2Model(ssl_config())
            self.domain_emb = torch.nn.Parameter(torch.zeros(1, 128), requires_grad=False)
            self.judge_emb = torch.nn.Parameter(torch.zeros(1, 128), requires_grad=False)
            self.blstm = torch.nn.LSTM(input_size=1024, hidden_size=512, batch_first=True, bidirectional=True)
            self.projection = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
                                                  torch.nn.Linear(2048, 1))

        def forward(self, wave):
            """``wave``: (batch, samples) at 16 kHz; each row's score."""
            frames = self.wav2vec2(wave).last_hidden_state
            batch, length, _ = frames.shape
            joined = torch.cat([frames, self.domain_emb.unsqueeze(1).expand(batch, length, -1),
                                self.judge_emb.unsqueeze(1).expand(batch, length, -1)], dim=2)
            return self.projection(self.blstm(joined)[0]).mean(dim=1).squeeze(1) * 2 + 3

    return Utmos22Strong().eval()


def renamed(speechmos_state: dict) -> dict:
    """SpeechMOS's state dict in this network's names (its wav2vec 2.0 part in transformers')."""
    out = {}
    for key, value in speechmos_state.items():
        if key.startswith("wav2vec2."):
            inner = key[len("wav2vec2."):]
            for pattern, replacement in _SSL_NAMES:
                if re.match(pattern, inner):
                    inner = re.sub(pattern, replacement, inner)
                    break
            else:
                raise ValueError(f"{WHO}: the checkpoint has {key}, which SpeechMOS's utmos22_strong has not: it is "
                                 f"not {FILE}")
            key = f"wav2vec2.{inner}"
        out[key] = value
    return out


def default_checkpoint() -> Path:
    """Where ``torch.hub.load_state_dict_from_url`` keeps SpeechMOS's checkpoint: torch hub's own cache."""
    import torch

    return Path(torch.hub.get_dir()) / "checkpoints" / FILE


def fetch(path: Path) -> None:
    """Download the checkpoint into ``path`` (torch hub's cache), or stop in one line saying how to provide it."""
    import urllib.request

    fix = (f"download {URL} where there is internet and put it at {path} (torch hub's cache, where "
           f"SpeechMOS's own torch.hub.load keeps it), or give utmos_checkpoint=/path/to/{FILE} in the task's metadata")
    try:
        with urllib.request.urlopen(URL, timeout=30) as response:
            data = response.read()
    except OSError as e:
        raise ValueError(f"{WHO} needs SpeechMOS's checkpoint {FILE}, which is not at {path} and could not be "
                         f"fetched ({type(e).__name__}): {fix}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def load_speechmos(path: Path):
    """The network with SpeechMOS's checkpoint at ``path`` loaded, every key matched (strict)."""
    import torch

    model = network()
    state = torch.load(path, map_location="cpu", weights_only=True)
    try:
        model.load_state_dict(renamed(state), strict=True)
    except RuntimeError as e:
        first = str(e).splitlines()[0]
        raise ValueError(f"{WHO}: {path} is not SpeechMOS's {FILE} ({first})") from None
    return model
