"""Generate ``sample_data`` here: a SYNTHETIC stand-in for TUT Acoustic Scenes 2017's evaluation set (run once;
outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/tut2017/make_sample.py

Laid out as Zenodo's evaluation zips unpack (what Kimi-Audio-Evalkit reads): ``TUT-acoustic-scenes-2017-evaluation/
meta.txt`` (a clip's path and its scene label, tab-separated, a line each) and the clips in its ``audio/``. The clips
say the scene's option letter and name, so a cascade can be right.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

FOLDER = "TUT-acoustic-scenes-2017-evaluation"
# (clip, label as meta.txt writes it, what the clip says)
ITEMS = [("audio/1.wav", "city_center", "E. City center."), ("audio/2.wav", "cafe/restaurant", "C. Cafe or restaurant."),
         ("audio/3.wav", "tram", "O. Tram.")]


def make(out: Path) -> int:
    for name, _, words in ITEMS:
        write_audio(said_whole(words), out / FOLDER / name)
    (out / FOLDER / "meta.txt").write_text("".join(f"{name}\t{label}\n" for name, label, _ in ITEMS), encoding="utf-8")
    return len(ITEMS)


if __name__ == "__main__":
    write_sample("TUT Acoustic Scenes 2017", Path(__file__).resolve().parent, make)
