"""Audio decoding and references: formats, channels, rates, slices, and named errors."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf
from conftest import tone

from lm_eval_audio.audio import decoding as audio
from lm_eval_audio.audio.refs import AudioError, cache_key_args, content_digest


@pytest.mark.parametrize("fmt", ["wav", "flac", "ogg"])
def test_soundfile_formats(tmp_path, fmt):
    path = tmp_path / f"a.{fmt}"
    sf.write(path, tone(1.0), 16000)
    out = audio.load(str(path), 16000)
    assert out.dtype == np.float32 and abs(len(out) - 16000) < 50


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs the ffmpeg binary (README setup installs it)")
def test_mp3_goes_through_ffmpeg(tmp_path):
    wav, mp3 = tmp_path / "a.wav", tmp_path / "a.mp3"
    sf.write(wav, tone(1.0), 16000)
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(wav), str(mp3)], check=True)
    out = audio.load(str(mp3), 16000)
    assert abs(len(out) / 16000 - 1.0) < 0.1


def test_stereo_48k_is_downmixed_and_resampled(tmp_path):
    path = tmp_path / "stereo.wav"
    left = tone(2.0, sr=48000)
    sf.write(path, np.stack([left, -left], axis=1), 48000)  # channels cancel when averaged
    out = audio.load(str(path), 16000)
    assert len(out) == 32000
    assert np.abs(out).max() < 1e-3


def test_8k_upsampled(tmp_path):
    path = tmp_path / "low.wav"
    sf.write(path, tone(1.5, sr=8000), 8000)
    assert len(audio.load(str(path), 16000)) == 24000


def test_time_slice(tmp_path):
    path = tmp_path / "a.wav"
    sf.write(path, tone(3.0), 16000)
    out = audio.load({"path": str(path), "start": 0.5, "end": 2.0}, 16000)
    assert len(out) == 24000
    assert audio.duration_seconds({"path": str(path), "start": 0.5}) == pytest.approx(2.5)


def test_bytes_and_array_references(tmp_path):
    path = tmp_path / "a.flac"
    sf.write(path, tone(1.0), 16000)
    from_file = audio.load(str(path), 16000)
    from_bytes = audio.load({"bytes": path.read_bytes()}, 16000)
    from_array = audio.load({"array": from_file, "sampling_rate": 16000}, 16000)
    np.testing.assert_allclose(from_file, from_bytes)
    np.testing.assert_allclose(from_file, from_array)


def test_missing_file_error_names_it(tmp_path):
    with pytest.raises(AudioError, match="not found: .*ghost.wav"):
        audio.load(str(tmp_path / "ghost.wav"), 16000)


def test_empty_file_error_names_it(tmp_path):
    path = tmp_path / "empty.wav"
    path.write_bytes(b"")
    with pytest.raises(AudioError, match="empty.*empty.wav"):
        audio.load(str(path), 16000)


def test_zero_length_audio_error(tmp_path):
    path = tmp_path / "zero.wav"
    sf.write(path, np.zeros(0, dtype=np.float32), 16000)
    with pytest.raises(AudioError, match="zero samples"):
        audio.load(str(path), 16000)


def test_garbage_file_error_names_it(tmp_path):
    path = tmp_path / "garbage.wav"
    path.write_bytes(b"this is not audio at all" * 10)
    with pytest.raises(AudioError, match="garbage.wav"):
        audio.load(str(path), 16000)


def test_nan_samples_rejected():
    with pytest.raises(AudioError, match="NaN"):
        audio.load({"array": np.array([0.0, np.nan, 0.1], dtype=np.float32), "sampling_rate": 16000}, 16000)


def test_bad_reference_type():
    with pytest.raises(AudioError, match="unsupported audio reference"):
        audio.load(12345, 16000)


def test_digest_follows_content_not_path(tmp_path):
    a, b = tmp_path / "a.wav", tmp_path / "b.wav"
    sf.write(a, tone(1.0, seed=1), 16000)
    sf.write(b, tone(1.0, seed=2), 16000)
    assert content_digest(str(a)) != content_digest(str(b))
    same = tmp_path / "copy.wav"
    same.write_bytes(a.read_bytes())
    assert content_digest(str(a)) == content_digest(str(same))
    assert content_digest({"path": str(a), "start": 0.1}) != content_digest(str(a))


def test_cache_key_args_replaces_refs_and_arrays(tmp_path):
    a = tmp_path / "a.wav"
    sf.write(a, tone(1.0), 16000)
    arr = {"array": np.zeros(10, np.float32), "sampling_rate": 16000}
    key = cache_key_args(("prompt", {"until": []}, {"audio": [str(a), arr]}))
    assert key[0] == "prompt" and set(key[2]["audio"][0]) == {"sha256"}
    import json

    json.dumps(key)  # arrays no longer break lm-eval's JSON cache key
