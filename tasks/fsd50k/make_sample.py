"""Generate ``sample_data`` here: a SYNTHETIC stand-in for FSD50K's evaluation set (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/fsd50k/make_sample.py

Laid out as ``Fhrozen/FSD50k`` holds it: ``labels/vocabulary.csv`` (index, label, AudioSet id; no header),
``labels/eval.csv`` (``fname``, ``labels``, ``mids``) and ``clips/eval/<fname>.wav``. Each clip says its labels,
separated by semicolons, so a cascade can name them.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

VOCABULARY = [("Dog", "/m/0bt9lr"), ("Bark", "/m/05tny_"), ("Domestic_animals_and_pets", "/m/068hy"),
              ("Music", "/m/04rlf"), ("Guitar", "/m/0342h"), ("Rain", "/m/06mb1")]
ITEMS = [("64760", ["Bark", "Dog", "Domestic_animals_and_pets"]), ("37199", ["Guitar", "Music"]), ("21914", ["Rain"])]


def make(out: Path) -> int:
    mids = dict(VOCABULARY)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    (out / "labels" / "vocabulary.csv").write_text(
        "".join(f"{k},{name},{mid}\n" for k, (name, mid) in enumerate(VOCABULARY)))
    lines = ["fname,labels,mids"] + [f'{fname},"{",".join(labels)}","{",".join(mids[n] for n in labels)}"'
                                     for fname, labels in ITEMS]
    (out / "labels" / "eval.csv").write_text("\n".join(lines) + "\n")
    for fname, labels in ITEMS:
        write_audio(said_whole("; ".join(n.replace("_", " ") for n in labels) + "."),
                    out / "clips" / "eval" / f"{fname}.wav")
    return len(ITEMS)


if __name__ == "__main__":
    write_sample("FSD50K", Path(__file__).resolve().parent, make)
