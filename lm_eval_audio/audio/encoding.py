"""A clip as the file bytes an API accepts: WAV or MP3, in memory.

OpenAI's ``input_audio`` takes only ``wav`` and ``mp3``; vLLM's ``audio_url`` data URLs
take more, but WAV is what every server decodes. A 16-bit PCM WAV file (or an MP3 when
MP3 is asked for) with no time slice is sent as it is, byte for byte. Anything else (FLAC,
OGG, a table cell in another codec, a slice of a recording, float WAV) is decoded by
``lm_eval_audio.audio.decoding``, downmixed to mono at its own rate, and encoded here; the
dataset's files are never touched.
"""

from __future__ import annotations

import io

import numpy as np

from lm_eval_audio.audio import ffmpeg
from lm_eval_audio.audio.refs import AudioError, describe, normalize

FORMATS = ("wav", "mp3")
MIME = {"wav": "audio/wav", "mp3": "audio/mpeg"}


def _is_pcm16_wav(head: bytes) -> bool:
    # RIFF header, then the "fmt " chunk: format tag 1 (PCM) and 16 bits per sample.
    return (
        head[:4] == b"RIFF" and head[8:12] == b"WAVE" and head[12:16] == b"fmt "
        and int.from_bytes(head[20:22], "little") == 1 and int.from_bytes(head[34:36], "little") == 16
    )


def _is_mp3(head: bytes) -> bool:
    return head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and (head[1] & 0xE0) == 0xE0)


def _as_is(ref: dict, fmt: str) -> bytes | None:
    """The source's own bytes, when they already are what the API takes."""
    condition = ref.get("condition")  # an AudioCondition (conditions.mark): other samples than the file's
    if any(ref.get(key) is not None for key in ("start", "end", "array")) or (
            condition is not None and condition.changes_samples):
        return None
    if ref.get("table") is not None:
        from lm_eval_audio.audio import tables

        return _as_is(tables.resolve(ref), fmt)
    if ref.get("bytes") is not None:
        data = bytes(ref["bytes"])
    else:
        try:
            with open(ref["path"], "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise AudioError(f"audio file not found: {ref['path']}") from None
        except OSError as e:  # a folder, a path under a file, no permission
            raise AudioError(f"audio file cannot be read: {ref['path']} ({e.strerror or e})") from None
    return data if (_is_pcm16_wav if fmt == "wav" else _is_mp3)(data[:36]) else None


def _wav(samples: np.ndarray, sr: int) -> bytes:
    import soundfile as sf

    out = io.BytesIO()
    sf.write(out, samples, sr, format="WAV", subtype="PCM_16")
    return out.getvalue()


def _mp3(samples: np.ndarray, sr: int, where: str) -> bytes:
    cmd = ["-f", "f32le", "-ar", str(sr), "-ac", "1", "-i", "pipe:0", "-f", "mp3", "-b:a", "128k", "pipe:1"]
    return ffmpeg.run(cmd, np.ascontiguousarray(samples, dtype=np.float32).tobytes(), where,
                      "encoding MP3 (or use audio_format=wav)", "MP3 encoding failed")


def encode(ref, fmt: str = "wav") -> bytes:
    """The clip ``ref`` points at, as ``fmt`` file bytes. Raises AudioError naming the clip."""
    from lm_eval_audio.audio import decoding

    if fmt not in FORMATS:
        raise ValueError(f"audio format must be one of {FORMATS}, got {fmt!r}")
    ref = normalize(ref)
    data = _as_is(ref, fmt)
    if data is not None:
        return data
    samples, sr = decoding.load_native(ref)
    # 16-bit PCM clips out-of-range floats; scale a clip that exceeds full scale instead.
    peak = float(np.abs(samples).max())
    if peak > 1.0:
        samples = samples / peak
    return _wav(samples, sr) if fmt == "wav" else _mp3(samples, sr, describe(ref))
