"""Generate ``sample_data`` here: a SYNTHETIC stand-in for CochlScene's test and validation sets (run once; outputs
are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/cochlscene/make_sample.py

Laid out as Zenodo's archive unpacks (what Kimi-Audio-Evalkit reads): ``CochlScene/Test/<scene>/<clip>.wav`` and
``CochlScene/Val/<scene>/<clip>.wav``, a clip's scene its folder's name. The clips say the scene's option letter
and name, so a cascade can be right.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

# (split folder, scene folder, clip, what the clip says)
ITEMS = [("Test", "Bus", "Bus_user0001_0001.wav", "A. Bus."),
         ("Test", "SubwayStation", "SubwayStation_user0002_0001.wav", "M. Subway station."),
         ("Val", "CrowdedIndoor", "CrowdedIndoor_user0003_0001.wav", "D. Crowded indoor."),
         ("Val", "Park", "Park_user0004_0001.wav", "G. Park.")]


def make(out: Path) -> int:
    for split, scene, name, words in ITEMS:
        write_audio(said_whole(words), out / "CochlScene" / split / scene / name)
    return len(ITEMS)


if __name__ == "__main__":
    write_sample("CochlScene", Path(__file__).resolve().parent, make)
