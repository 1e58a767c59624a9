#!/bin/bash
# Issue 53's check that a model family is three things: a fresh clone of this checkout gets a new family (Scratch-Audio:
# Qwen2-Audio's classes under a model_type of its own) as its module, its tiny builder and its extra, nothing else, is
# set up with the README's command and runs the README's test command. Expected: every test passes; the family's
# missing row in docs/MODELS.md is reported as one skip; the family proofs (tests/family_proofs.py) run it.
#   bash scripts/check_a_new_family.sh [FOLDER]     # FOLDER: where the clone goes (default: a new temporary folder)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
clone="${1:-$(mktemp -d)/lm-eval-audio}"
git clone -q "$repo" "$clone"
cd "$clone"
cat > model_wrappers/family_adapters/scratch_audio.py <<'PY'
"""Scratch-Audio: a family added by scripts/check_a_new_family.sh (Qwen2-Audio's classes under a model_type of its
own)."""

from __future__ import annotations

from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

SCRATCH_AUDIO = Family("Scratch-Audio", ("scratch_audio",), "example/scratch-audio", extra="scratch-audio",
                       tiny_models=("scratch_audio",))


@register(SCRATCH_AUDIO)
class ScratchAudioAdapter(FamilyAdapter):
    """Loaded with Qwen2-Audio's own class (no auto class maps its model_type)."""

    does = "loaded with Qwen2-Audio's class"

    def needs(self) -> list[tuple[str, str]]:
        return [("soundfile", "its clips")]

    def load(self, load_kwargs: dict):
        from transformers import Qwen2AudioForConditionalGeneration

        return Qwen2AudioForConditionalGeneration.from_pretrained(self.pretrained, **load_kwargs)
PY
cat > lm_eval_audio/testing/tiny_models/scratch_audio.py <<'PY'
"""Scratch-Audio's tiny model: Qwen2-Audio's, saved under the model_type scratch_audio."""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_audio.testing.tiny_models.common import builds
from lm_eval_audio.testing.tiny_models.qwen2_audio import build_qwen2_audio


@builds("scratch_audio")
def build_scratch_audio(out_dir: str, seed: int = 0) -> str:
    from safetensors.torch import load_file, save_file

    path = build_qwen2_audio(out_dir, seed=seed)
    config = Path(path) / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "model_type": "scratch_audio"}, indent=2))
    # transformers renames Qwen2-Audio's saved keys by its model_type; under another one they are read as the class
    # names them
    weights = Path(path) / "model.safetensors"
    tensors = load_file(weights)
    save_file({k.replace("language_model.lm_head.", "lm_head."): v for k, v in tensors.items()}, weights,
              metadata={"format": "pt"})
    return path
PY
python3 - <<'PY'
text = open("setup.cfg").read()
extra = "# Scratch-Audio (scripts/check_a_new_family.sh): its clips.\nscratch-audio =\n    soundfile>=0.14.0\n\n"
open("setup.cfg", "w").write(text.replace("[options.entry_points]", extra + "[options.entry_points]", 1))
PY
echo "check_a_new_family: the family added in $clone:"
git status --short
bash scripts/setup.sh
.venv/bin/python -m pytest -q -m "not slow" -n auto -rs
