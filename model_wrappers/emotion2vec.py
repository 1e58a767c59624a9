"""emotion2vec+ large (``emotion2vec/emotion2vec_plus_large``), the speech emotion recognizer URO-Bench (GenEmotion,
metrics/mark_emotion.py) and VocalBench (the acoustic emotion score, utils/calc_emotion_acoustic.py) score spoken
answers with, run on FunASR's own model class (``funasr.models.emotion2vec.model.Emotion2vec``, the class both
scripts load through ``funasr.AutoModel``), so that its numbers are FunASR's.

For each clip, as ``Emotion2vec.inference`` computes it (funasr 1.4.16, funasr/models/emotion2vec/model.py):
the file read and resampled to 16 kHz by FunASR's own loader (``load_audio_text_image_video``: ``torchaudio.load``,
else soundfile, then torchaudio's ``Resample``), layer-normed over the whole wave where the config says
``normalize``, its frames' features averaged and projected onto the nine labels of ``tokens.txt``, then a softmax.
Each clip goes alone, as FunASR runs them, so no score depends on the clips beside it.

The weights come from the Hugging Face Hub (the repository both scripts name; URO-Bench takes the same model from
ModelScope as ``iic/emotion2vec_plus_large``) into the Hub cache on first use, or from a local folder holding
``config.yaml``, ``model.pt`` and ``tokens.txt``; every key of ``model.pt`` must load (FunASR itself skips a
missing or mismatched key with a log line), and the results record the revision and the file's sha256.
"""

from __future__ import annotations

import os

REPO = "emotion2vec/emotion2vec_plus_large"
FILES = ("config.yaml", "model.pt", "tokens.txt")
SAMPLE_RATE = 16000
# tokens.txt's order, the label indices both scripts read (URO-Bench metrics/mark_emotion.py:98-108)
LABELS = ("angry", "disgusted", "fearful", "happy", "neutral", "other", "sad", "surprised", "unknown")
WHO = "emotion (emotion2vec)"
_INSTALL = ("pip install 'lm-eval-audio[emotion]' and funasr (scripts/setup.sh installs both; FunASR's other "
            "dependencies serve its other models and are not needed)")


def check_installed() -> None:
    """FunASR's model class and loader import, or one line saying what to install."""
    try:
        funasr_classes()
    except ImportError as e:
        raise ValueError(f"{WHO} runs on FunASR's Emotion2vec, which cannot be imported here ({e}): "
                         f"{_INSTALL}") from None


def funasr_classes():
    """FunASR's ``Emotion2vec`` class and its audio loader (importing FunASR imports all its modules: seconds)."""
    import contextlib
    import io

    # FunASR prints a line on import where the optional torch_complex is missing (its STFT frontends, unused here)
    with contextlib.redirect_stdout(io.StringIO()):
        from funasr.models.emotion2vec.model import Emotion2vec
        from funasr.utils.load_utils import load_audio_text_image_video
    return Emotion2vec, load_audio_text_image_video


def folder(model: str) -> str:
    """The folder holding ``model``'s files: ``model`` itself, or the Hub id's snapshot in the Hub cache, fetched
    there on first use; one line (``checkpoints.CheckpointNotFound``) where neither can be had."""
    from lm_eval_audio.model_wrappers import checkpoints

    local = checkpoints.local_path(model)
    if os.path.isdir(local):
        missing = [f for f in FILES if not os.path.isfile(os.path.join(local, f))]
        if missing:
            raise checkpoints.CheckpointNotFound(
                f"{WHO}: emotion_model={model} is a folder without {', '.join(missing)}: give the folder of "
                f"{REPO} (`hf download {REPO} --local-dir <folder>`)")
        return local
    return checkpoints.hub_snapshot(WHO, model, FILES, argument="emotion_model")


def labels_of(tokens_file: str) -> tuple[str, ...]:
    """The labels ``tokens.txt`` lists, by their English names (its lines read ``生气/angry``; ``<unk>`` is
    unknown); they must be :data:`LABELS` in order, the indices the scripts read."""
    with open(tokens_file, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    names = tuple("unknown" if line == "<unk>" else line.rsplit("/", 1)[-1] for line in lines)
    if names != LABELS:
        raise ValueError(f"{WHO}: {tokens_file} lists {list(names)}, not the nine labels of {REPO} in their order "
                         f"({', '.join(LABELS)}): not that model's tokens.txt")
    return names


class Emotion2vecRecognizer:
    """The model of one folder, loaded once; :meth:`probabilities` of each clip."""

    def __init__(self, model: str = REPO) -> None:
        import torch
        import yaml

        from lm_eval_audio.model_wrappers import checkpoints
        from lm_eval_audio.storage.digests import sha256_of

        self.model_name = model
        where = folder(model)
        self.revision = checkpoints.hub_revision(model)
        self.labels = labels_of(os.path.join(where, "tokens.txt"))
        with open(os.path.join(where, "config.yaml"), encoding="utf-8") as f:
            config = yaml.safe_load(f)
        if not isinstance(config, dict) or config.get("model") != "Emotion2vec":
            raise ValueError(f"{WHO}: {where}/config.yaml is not an Emotion2vec model's config (model: "
                             f"{config.get('model') if isinstance(config, dict) else config!r})")
        emotion2vec_class, self._load_audio = funasr_classes()
        self.model = emotion2vec_class(**config, vocab_size=len(self.labels)).eval()
        weights = os.path.join(where, "model.pt")
        self.model.load_state_dict(_state_dict(torch.load(weights, map_location="cpu", weights_only=True),
                                               self.model, weights))
        self.sha256 = sha256_of(weights)

    def record(self) -> dict:
        return {"model": self.model_name, "revision": self.revision, "class": "funasr Emotion2vec",
                "model.pt sha256": self.sha256, "sample_rate": SAMPLE_RATE, "labels": list(self.labels),
                "resampled_by": "FunASR's load_audio_text_image_video (torchaudio Resample)"}

    def logits(self, path: str):
        """The clip's nine logits (a 1 x 9 tensor), as ``Emotion2vec.inference`` computes them before its softmax;
        None for a clip with no samples."""
        import soundfile as sf
        import torch
        import torch.nn.functional as F

        if sf.info(path).frames == 0:  # FunASR's resampler fails on it
            return None
        wave = self._load_audio(path, fs=SAMPLE_RATE, audio_fs=SAMPLE_RATE, data_type="sound")
        with torch.no_grad():
            source = F.layer_norm(wave, wave.shape) if self.model.cfg.normalize else wave
            frames = self.model.extract_features(source.view(1, -1), padding_mask=None)["x"]
            return self.model.proj(frames.mean(dim=1))

    def probabilities(self, path: str) -> dict[str, float] | None:
        """label -> probability of the clip: the nine labels' softmax, FunASR's ``scores`` to the bit; None for an
        empty clip."""
        import torch

        logits = self.logits(path)
        if logits is None:
            return None
        return dict(zip(self.labels, torch.softmax(logits, dim=-1)[0].tolist()))


def _state_dict(checkpoint, model, path: str) -> dict:
    """The model's weights in ``checkpoint`` as FunASR's ``load_pretrained_model`` finds them (under
    ``state_dict``, ``model_state_dict`` or ``model``, a ``module.`` prefix dropped), every key of the model there
    with its shape: one line naming the first that is not."""
    state = checkpoint
    for key in ("state_dict", "model_state_dict", "model"):
        if isinstance(state, dict) and key in state and isinstance(state[key], dict):
            state = state[key]
    state = {k.removeprefix("module."): v for k, v in state.items()}
    wanted = model.state_dict()
    missing = [k for k in wanted if k not in state]
    wrong = [k for k in wanted if k in state and tuple(state[k].shape) != tuple(wanted[k].shape)]
    if missing or wrong:
        first = missing[0] if missing else f"{wrong[0]} {tuple(state[wrong[0]].shape)}"
        raise ValueError(f"{WHO}: {path} does not fit its config.yaml ({len(missing)} weight(s) missing, "
                         f"{len(wrong)} of another shape, first {first}): give the model's own folder")
    return {k: state[k] for k in wanted}
