"""Audio decoding: reference in, mono float32 samples at the model's rate out.

soundfile (libsndfile) reads wav, flac and ogg; anything else goes through the
``ffmpeg`` binary. Resampling uses torchaudio. Every failure raises ``AudioError``
naming the file, so a bad clip is never fed to a model as silence.
"""

from __future__ import annotations

import io

import numpy as np

from lm_eval_audio.audio import ffmpeg
from lm_eval_audio.audio.refs import AudioError, describe, normalize

__all__ = ["AudioError", "load", "load_native", "duration_seconds", "resample"]


def _slice_frames(ref: dict, sr: int) -> tuple[int, int | None]:
    start = ref.get("start")
    end = ref.get("end")
    first = int(round(float(start) * sr)) if start is not None else 0
    last = int(round(float(end) * sr)) if end is not None else None
    if first < 0 or (last is not None and last <= first):
        raise AudioError(f"{describe(ref)}: bad time slice start={start} end={end} (need 0 <= start < end)")
    return first, last


def _read_soundfile(source, ref: dict) -> tuple[np.ndarray, int]:
    import soundfile as sf

    info = sf.info(source)
    if hasattr(source, "seek"):
        source.seek(0)
    first, last = _slice_frames(ref, info.samplerate)
    data, sr = sf.read(source, start=first, stop=last, dtype="float32", always_2d=True)
    return data, sr


def _read_ffmpeg(source, ref: dict) -> tuple[np.ndarray, int]:
    sr = 48000  # decode at a fixed high rate; resampled to the model's rate afterwards
    cmd = []
    if ref.get("start") is not None:
        cmd += ["-ss", str(float(ref["start"]))]
    if ref.get("end") is not None:
        cmd += ["-to", str(float(ref["end"]))]
    data_in = None
    if isinstance(source, str):
        cmd += ["-i", source]
    else:
        cmd += ["-i", "pipe:0"]
        data_in = source.getvalue()
    cmd += ["-f", "f32le", "-ac", "1", "-ar", str(sr), "pipe:1"]
    out = ffmpeg.run(cmd, data_in, describe(ref), "decoding a format libsndfile cannot read (or convert the file "
                     "to wav/flac)", "cannot decode audio")
    return np.frombuffer(out, dtype=np.float32).reshape(-1, 1), sr


_STREAMED_WAV_SIZE = 0x7F000000


def declared_seconds(head: bytes) -> float | None:
    """The length a WAV or FLAC header declares, from the file's first bytes; None for other
    formats, or a header that leaves it open: a WAV written to a pipe carries a placeholder data
    size (0, 0xFFFFFFFF, or just under 2 GiB as espeak-ng writes), taken here as any from 2 GiB up."""
    if head[:4] == b"fLaC" and len(head) >= 26:
        info = int.from_bytes(head[18:26], "big")  # STREAMINFO: rate 20 bits ... total samples 36 bits
        rate, total = info >> 44, info & ((1 << 36) - 1)
        return total / rate if rate and total else None
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos, byte_rate = 12, None
    while pos + 8 <= len(head):
        chunk, size = head[pos:pos + 4], int.from_bytes(head[pos + 4:pos + 8], "little")
        if chunk == b"fmt " and pos + 20 <= len(head):
            byte_rate = int.from_bytes(head[pos + 16:pos + 20], "little")
        elif chunk == b"data":
            return size / byte_rate if byte_rate and 0 < size < _STREAMED_WAV_SIZE else None
        pos += 8 + size + (size & 1)
    return None


def _check_complete(ref: dict, head: bytes, frames: int, sr: int) -> None:
    """A file cut short decodes without complaint to its first part: compare with its header."""
    declared = declared_seconds(head)
    if declared is None or ref.get("start") is not None or ref.get("end") is not None:
        return
    held = frames / sr
    if held < declared - max(0.05, 0.01 * declared):
        raise AudioError(
            f"{describe(ref)}: truncated file: its header declares {declared:.2f} s, it holds {held:.2f} s; "
            "download or convert it again"
        )


def _decode(ref: dict) -> tuple[np.ndarray, int]:
    """Samples as (frames, channels) float32, and their rate, of a whole, undamaged file."""
    if ref.get("table") is not None:
        from lm_eval_audio.audio import tables

        ref = tables.resolve(ref)
    if ref.get("array") is not None:
        data = np.asarray(ref["array"], dtype=np.float32)
        sr = int(ref["sampling_rate"])
        if data.ndim == 1:
            data = data[:, None]
        elif data.ndim == 2 and data.shape[0] < data.shape[1] and data.shape[0] <= 8:
            data = data.T  # (channels, frames) as torchaudio gives it
        first, last = _slice_frames(ref, sr)
        return data[first:last], sr
    if ref.get("bytes") is not None:
        if len(ref["bytes"]) == 0:
            raise AudioError(f"{describe(ref)}: audio bytes are empty")
        head = bytes(ref["bytes"][:4096])
        source_for = lambda: io.BytesIO(bytes(ref["bytes"]))  # noqa: E731
    else:
        path = ref["path"]
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
                if not head:
                    raise AudioError(f"audio file is empty (0 bytes): {path}")
        except FileNotFoundError:
            raise AudioError(f"audio file not found: {path}") from None
        except OSError as e:  # a folder, a path under a file, no permission
            raise AudioError(f"audio file cannot be read: {path} ({e.strerror or e})") from None
        source_for = lambda: path  # noqa: E731
    import soundfile as sf

    try:
        data, sr = _read_soundfile(source_for(), ref)
    except (sf.LibsndfileError, RuntimeError, TypeError):
        data, sr = _read_ffmpeg(source_for(), ref)
    _check_complete(ref, head, data.shape[0], sr)
    return data, sr


def resample(samples: np.ndarray, orig_sr: int, target_sr: int) -> np.ndarray:
    if orig_sr == target_sr:
        return samples
    import torch
    import torchaudio.functional as AF

    out = AF.resample(torch.from_numpy(np.ascontiguousarray(samples)), orig_sr, target_sr)
    return out.numpy()


def load_native(ref) -> tuple[np.ndarray, int]:
    """Decode one reference to mono float32 at the rate it was recorded at."""
    ref = normalize(ref)
    data, sr = _decode(ref)
    if data.shape[0] == 0:
        raise AudioError(f"{describe(ref)}: audio has zero samples")
    mono = data.mean(axis=1) if data.shape[1] > 1 else data[:, 0]
    if not np.isfinite(mono).all():
        raise AudioError(f"{describe(ref)}: audio contains NaN or infinite samples")
    if ref.get("condition") is not None:  # model_args audio=silence|noise|fragment:N:K, an AudioCondition
        from lm_eval_audio.audio.conditions import transform

        mono = transform(mono, sr, ref["condition"], ref)
    return np.ascontiguousarray(mono, dtype=np.float32), sr


def load(ref, target_sr: int) -> np.ndarray:
    """Decode one reference to mono float32 at ``target_sr``."""
    mono, sr = load_native(ref)
    return resample(mono, sr, target_sr)


def duration_seconds(ref) -> float:
    """Length in seconds, read from the header where possible (used to sort batches)."""
    ref = normalize(ref)
    condition = ref.get("condition")  # an AudioCondition (conditions.mark)
    if condition is not None and condition.kind == "fragment":
        heard = _whole_seconds(ref)
        if ref.get("heard_seconds"):
            heard = min(heard, float(ref["heard_seconds"]))
        return heard / condition.n
    return _whole_seconds(ref)


def _whole_seconds(ref: dict) -> float:
    start = float(ref.get("start") or 0.0)
    if ref.get("end") is not None:
        return float(ref["end"]) - start
    if ref.get("seconds") is not None:
        return float(ref["seconds"]) - start
    if ref.get("table") is not None:
        from lm_eval_audio.audio import tables

        ref = tables.resolve(ref)
    if ref.get("array") is not None:
        arr = np.asarray(ref["array"])
        frames = max(arr.shape) if arr.ndim == 2 else len(arr)
        return frames / float(ref["sampling_rate"]) - start
    import soundfile as sf

    source = io.BytesIO(bytes(ref["bytes"])) if ref.get("bytes") is not None else ref["path"]
    try:
        return sf.info(source).duration - start
    except Exception:
        # Unknown to libsndfile (mp3 in old builds, m4a, ...): sorting only, so decode-free 0
        # is fine; the real decode reports any problem with the file.
        return 0.0
