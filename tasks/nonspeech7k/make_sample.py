"""Generate ``sample_data`` here: a SYNTHETIC stand-in for Nonspeech7k's test set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/nonspeech7k/make_sample.py

Laid out as Zenodo's test set unpacks (what Kimi-Audio-Evalkit reads): ``metadata of test set.csv`` (columns
``Filename`` and ``Classname``, with the dataset's other columns beside them) and the clips in ``test/``. The clips
say the option's letter and name (espeak-ng cannot sneeze), so a cascade can be right.
"""

from __future__ import annotations

import csv
from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

# (file, Classname as the dataset writes it, what the clip says)
ITEMS = [("cough_101.wav", "cough", "B. Cough."), ("crying_202.wav", "crying", "C. Cry."),
         ("sneeze_303.wav", "sneeze", "F. Sneeze.")]


def make(out: Path) -> int:
    (out / "test").mkdir(parents=True, exist_ok=True)
    with (out / "metadata of test set.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["Filename", "File ID", "Duration in ms", "Class ID", "Classname", "source"])
        for k, (name, classname, words) in enumerate(ITEMS):
            write_audio(said_whole(words), out / "test" / name)
            writer.writerow([name, 100 + k, 1000, k, classname, "https://freesound.org/"])
    return len(ITEMS)


if __name__ == "__main__":
    write_sample("Nonspeech7k", Path(__file__).resolve().parent, make)
