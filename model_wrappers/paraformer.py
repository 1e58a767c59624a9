"""Paraformer-zh, the Mandarin recognizer URO-Bench (asr_for_eval.py), Seed-TTS-eval (run_wer.py) and UltraEval-Audio
transcribe spoken answers with, run through FunASR's own ``AutoModel`` on the model's folder, as those scripts load it,
so that its transcripts are FunASR's: each answer's file read and resampled to 16 kHz by FunASR's loader, its fbank
features, the model, and FunASR's post-processing of the characters (``result[0]["text"]``, stripped).

The weights come from the Hugging Face Hub (``funasr/paraformer-zh``, where FunASR maps the name ``paraformer-zh`` on
the Hub: funasr/download/name_maps_from_hub.py) into the Hub cache on first use, or from a local folder in FunASR's
layout (``config.yaml`` and ``model.pt``, with the ``am.mvn``, ``tokens.json`` and ``seg_dict`` it names), such as
ModelScope's ``iic/speech_seaco_paraformer_large_asr_nat-zh-cn-16k-common-vocab8404-pytorch``, which the name maps
to there and the scripts download. Every parameter of the model must be in ``model.pt`` with its shape (FunASR
itself keeps a parameter it does not find at its random start, with a log line); the results record the revision
and the file's sha256.

The scripts differ in what they add: URO-Bench runs FunASR's VAD (``fsmn-vad``) and punctuation (``ct-punc-c``)
models around it; Seed-TTS-eval runs it alone, as here (docs/SPOKEN.md).
"""

from __future__ import annotations

import functools
import os

from lm_eval_audio.model_wrappers.transcription import Transcriber

REPO = "funasr/paraformer-zh"
NAMES = ("paraformer-zh", "paraformer", REPO)  # what answer_asr may say for it
FILES = ("config.yaml", "model.pt", "am.mvn", "tokens.json", "seg_dict")
NEEDED = ("config.yaml", "model.pt")
WHO = "spoken answers: Paraformer-zh"
_INSTALL = "pip install funasr (scripts/setup.sh installs it)"


def is_funasr_folder(model: str) -> bool:
    """Whether ``model`` is a local folder in FunASR's layout (``config.yaml`` beside ``model.pt``, no transformers
    ``config.json``)."""
    return os.path.isdir(model) and all(os.path.isfile(os.path.join(model, f)) for f in NEEDED) \
        and not os.path.isfile(os.path.join(model, "config.json"))


def folder(model: str) -> str:
    """The folder holding the model's files: a local one, or the Hub snapshot of ``funasr/paraformer-zh`` in the Hub
    cache, fetched there on first use; one line (``checkpoints.CheckpointNotFound``) where neither can be had."""
    from lm_eval_audio.model_wrappers import checkpoints

    local = checkpoints.local_path(model)
    if os.path.isdir(local):
        if not is_funasr_folder(local):
            raise checkpoints.CheckpointNotFound(
                f"{WHO}: answer_asr={model} is a folder without FunASR's {' and '.join(NEEDED)}: give the folder of "
                f"{REPO} (`hf download {REPO} --local-dir <folder>`)")
        return local
    snapshot = checkpoints.hub_snapshot(WHO, hub_id(model), FILES, argument="answer_asr")
    if not is_funasr_folder(snapshot):
        raise checkpoints.CheckpointNotFound(f"{WHO}: answer_asr={model}: the Hub's files hold no "
                                             f"{' and '.join(NEEDED)}: not a FunASR model")
    return snapshot


def hub_id(model: str) -> str:
    """The Hub repository ``model`` names: ``funasr/paraformer-zh`` for any of :data:`NAMES`."""
    return REPO if model.lower() in NAMES else model


def check_installed() -> None:
    try:
        _auto_model()
    except ImportError as e:
        raise ValueError(f"{WHO} runs on FunASR, which cannot be imported here ({e}): {_INSTALL}") from None


def _auto_model():
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # FunASR's note on its optional torch_complex
        from funasr import AutoModel
    return AutoModel


def unloaded_parameters(model, checkpoint: str) -> list[str]:
    """The model's parameters ``checkpoint`` does not hold with their shape, found as FunASR's
    ``load_pretrained_model`` finds them (under ``state_dict``, ``model_state_dict`` or ``model``; a key as it is or
    after ``module.``)."""
    import torch

    state = torch.load(checkpoint, map_location="cpu")
    for key in ("state_dict", "model_state_dict", "model"):
        state = state[key] if isinstance(state, dict) and key in state else state
    return [k for k, v in model.state_dict().items()
            if tuple(getattr(state.get(k, state.get(f"module.{k}")), "shape", ())) != tuple(v.shape)]


class Paraformer(Transcriber):
    """FunASR's Paraformer on the answers' files, one at a time (as the scripts run them: no transcript depends on the
    clips beside it)."""

    backend = "funasr"
    reads_files = True  # handed the answers' paths: FunASR reads and resamples them itself

    def __init__(self, model: str = REPO, device: str = "auto") -> None:
        import torch

        self.model = folder(model)
        self.label = "" if os.path.isdir(model) else hub_id(model)
        self.language, self.options = "zh", {}
        device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        self._model = _auto_model()(model=self.model, device=device, disable_update=True, disable_pbar=True,
                                    disable_log=True)
        unloaded = unloaded_parameters(self._model.model, os.path.join(self.model, "model.pt"))
        if unloaded:
            raise ValueError(f"{WHO}: {os.path.join(self.model, 'model.pt')} lacks {len(unloaded)} of the model's "
                             f"parameters as its config.yaml builds it ({', '.join(unloaded[:3])}, ...): not this "
                             "folder's checkpoint; fetch the folder whole again")

    def transcribe(self, clips: list[str]) -> list[str]:
        return [str(self._model.generate(input=path)[0]["text"]).strip() for path in clips]


def record(model: str) -> dict:
    """What the results say of the recognizer ``model`` names: the Hub repository and its snapshot's commit (its
    folder's name in the cache), or the local folder; model.pt's sha256."""
    return dict(_record(model))


@functools.lru_cache(maxsize=4)  # model.pt hashed once per run, not once per task that names it
def _record(model: str) -> dict:
    from lm_eval_audio.storage.digests import file_sha256

    found = folder(model)
    hub = not os.path.isdir(model)
    return {"model": hub_id(model) if hub else model, "backend": Paraformer.backend, "language": "zh",
            "bundled": False, "revision": os.path.basename(found) if hub else None,
            "model.pt sha256": file_sha256(os.path.join(found, "model.pt"))}
