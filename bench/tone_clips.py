"""Clips for the hf-audio benchmarks: sines of random lengths and rising pitches, written as float WAV files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 16000


def write_tone_clips(folder: Path, count: int, seconds: tuple[float, float], base_hz: float, step_hz: float,
                     noise: float = 0.0) -> list[str]:
    """``count`` clips in ``folder``: clip i a sine of 0.3 amplitude at ``base_hz + step_hz * i``, its length drawn
    uniformly from ``seconds``, with Gaussian noise of ``noise`` amplitude where it is not 0 (one seeded generator for
    both, so the same arguments give the same files)."""
    rng = np.random.default_rng(0)
    paths = []
    for i in range(count):
        length = float(rng.uniform(*seconds))
        t = np.arange(int(length * RATE)) / RATE
        wave = 0.3 * np.sin(2 * np.pi * (base_hz + step_hz * i) * t)
        if noise:
            wave = wave + noise * rng.standard_normal(t.size)
        path = folder / f"clip_{i:03d}.wav"
        sf.write(path, wave.astype(np.float32), RATE)
        paths.append(str(path))
    return paths
