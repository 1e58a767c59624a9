"""Generate ``sample_data`` here: a SYNTHETIC stand-in for NSynth's test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/nsynth/make_sample.py

Laid out as NSynth's release is: ``nsynth-test/examples.json`` (note name -> its attributes) beside
``nsynth-test/audio/<note name>.wav``. Each clip is a tone with its instrument family and source said after it, so a
cascade can be right.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lm_eval_audio.testing.synthetic_audio import harmonic_tone, said_whole, write_audio, write_sample

# (family, source, number, pitch, velocity), as NSynth names a note: <family>_<source>_<number>-<pitch>-<velocity>
ITEMS = [("guitar", "acoustic", 10, 66, 100), ("bass", "synthetic", 68, 49, 25), ("organ", "electronic", 1, 60, 75)]


def make(out: Path) -> int:
    folder = out / "nsynth-test"
    table = {}
    for k, (family, source, number, pitch, velocity) in enumerate(ITEMS):
        name = f"{family}_{source}_{number:03d}-{pitch:03d}-{velocity:03d}"
        write_audio(np.concatenate([harmonic_tone(pitch, 1.0), said_whole(f"A {source} {family}.")]),
                    folder / "audio" / f"{name}.wav")
        table[name] = {"note": k, "note_str": name, "instrument": k, "instrument_str": name.split("-")[0],
                       "pitch": pitch, "velocity": velocity, "sample_rate": 16000, "qualities": [0] * 10,
                       "qualities_str": [], "instrument_source": ["acoustic", "electronic", "synthetic"].index(source),
                       "instrument_source_str": source, "instrument_family_str": family,
                       "instrument_family": ["bass", "brass", "flute", "guitar", "keyboard", "mallet", "organ", "reed",
                                             "string", "synth_lead", "vocal"].index(family)}
    (folder / "examples.json").write_text(json.dumps(table, indent=2))
    return len(table)


if __name__ == "__main__":
    write_sample("NSynth", Path(__file__).resolve().parent, make)
