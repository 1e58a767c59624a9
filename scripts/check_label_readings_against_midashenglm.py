"""Check the tagging readings (``lm_eval_audio.benchmarks.label_sets``) against MiDashengLM's own scripts, run from
a checkout of xiaomi-research/dasheng-lm:

    git clone https://github.com/xiaomi-research/dasheng-lm /tmp/dasheng-lm      # read at 2e3f2b0
    .venv/bin/python scripts/check_label_readings_against_midashenglm.py /tmp/dasheng-lm

``evaluate/compute_map.py``'s ``process_text`` and ``get_mAP`` (everything above its ``__main__`` block, which
needs scikit-learn) are run on the edge-case answers and label sets below, for each of its three model branches,
and ``compute_at_acc.py``'s ``ref in hyp`` test (restated: the script is only a ``__main__`` block) on its pairs.
Prints each disagreement and exits 1 if there is one.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from lm_eval_audio.benchmarks.class_reading import label_in_answer
from lm_eval_audio.benchmarks.label_sets import answer_labels, mean_average_precision

ANSWERS = ["Dog;Bark", "Domestic sounds, home sounds;Music", "Dog, and cat", " Rain ; Thunder ", "", "a_b - c",
           "x, y", "Speech;", ";;", "Male_speech - man speaking; Speech", "MUSIC, Guitar"]
READINGS = {"MiDashengLM": "semicolons", "Qwen2.5-Omni": "qwen", "Kimi-Audio": "kimi"}
PAIRS = [("bass", " Bass guitar"), ("synth_lead", "synth lead"), ("guitar", "electric_guitar"), ("hiphop", "hip hop"),
         ("keyboard", "KEYBOARD\n"), ("reed", "")]
LABELS = ["dog", "bark", "music", "rain", "guitar", "speech"]


def main(checkout: Path) -> int:
    source = (checkout / "evaluate" / "compute_map.py").read_text()
    reference = {"__name__": "compute_map"}
    exec(compile(source.split('if __name__ == "__main__":')[0], "compute_map.py", "exec"), reference)
    wrong = 0
    for model, reading in READINGS.items():
        for answer in ANSWERS:
            theirs, ours = reference["process_text"](answer.lower(), model, "FSD50K"), answer_labels(answer, reading)
            if theirs != ours:
                wrong += 1
                print(f"process_text {model} {answer!r}: theirs {theirs}, ours {ours}")
    for label, answer in PAIRS:
        theirs = label.lower().lstrip().strip() in answer.lower().lstrip().strip()
        if theirs != label_in_answer(answer, label):
            wrong += 1
            print(f"compute_at_acc {label!r} in {answer!r}: theirs {theirs}")
    rng = random.Random(0)
    for _ in range(200):
        refs = [rng.sample(LABELS, rng.randint(1, 3)) for _ in range(rng.randint(2, 12))]
        preds = [rng.sample(LABELS + ["cat"], rng.randint(0, 3)) for _ in refs]
        reference["refs"] = refs  # get_mAP reads the module's global refs
        theirs, (ours, _) = reference["get_mAP"](refs, preds), mean_average_precision(refs, preds)
        if abs(theirs - ours) > 1e-12:
            wrong += 1
            print(f"get_mAP {refs} {preds}: theirs {theirs}, ours {ours}")
    print(f"{wrong} disagreement(s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
