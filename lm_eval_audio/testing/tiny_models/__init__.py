"""Tiny random-weight audio-language models + processors, built fully offline, one module per family.

Each ``build_*(out_dir)`` saves a model and processor so that
``AutoProcessor.from_pretrained(out_dir)`` and ``AutoModelForMultimodalLM.from_pretrained(out_dir)``
load them back (``common``: the tokenizer and the saving they share).
"""

from __future__ import annotations

from lm_eval_audio.testing.tiny_models.qwen2_audio import build_qwen2_audio
from lm_eval_audio.testing.tiny_models.granite_speech import build_granite_speech
from lm_eval_audio.testing.tiny_models.gemma_text import build_gemma_text
from lm_eval_audio.testing.tiny_models.qwen2_5_omni import build_qwen2_5_omni
from lm_eval_audio.testing.tiny_models.phi4_multimodal import build_phi4_multimodal
from lm_eval_audio.testing.tiny_models.gemma3n import build_gemma3n
from lm_eval_audio.testing.tiny_models.voxtral import build_voxtral
from lm_eval_audio.testing.tiny_models.qwen3_omni import build_qwen3_omni
from lm_eval_audio.testing.tiny_models.audio_flamingo import build_audioflamingo3, build_musicflamingo
from lm_eval_audio.testing.tiny_models.gemma4 import build_gemma4

BUILDERS = {"qwen2_audio": build_qwen2_audio, "granite_speech": build_granite_speech, "gemma_text": build_gemma_text,
            "gemma3n": build_gemma3n, "qwen2_5_omni": build_qwen2_5_omni, "phi4_multimodal": build_phi4_multimodal,
            "voxtral": build_voxtral, "qwen3_omni": build_qwen3_omni,
            "qwen3_omni_thinking": lambda out, seed=0: build_qwen3_omni(out, seed, variant="thinking"),
            "qwen3_omni_thinker": lambda out, seed=0: build_qwen3_omni(out, seed, variant="thinker"),
            "audioflamingo3": build_audioflamingo3, "musicflamingo": build_musicflamingo, "gemma4": build_gemma4,
            "granite_speech_plus": lambda out, seed=0: build_granite_speech(out, seed, plus=True)}


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
