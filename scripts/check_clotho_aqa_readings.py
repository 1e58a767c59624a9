"""Check Clotho-AQA's two readings (``tasks/clotho_aqa/scoring.py``) against the reference code, on the edge cases
of ``tests/test_clotho_aqa.py`` (``READINGS``):

    git clone https://github.com/EvolvingLMMs-Lab/lmms-eval /tmp/lmms-eval    # read at 75571cf
    .venv/bin/python scripts/check_clotho_aqa_readings.py /tmp/lmms-eval

lmms-eval's ``exact_match_hf_evaluate`` is taken out of ``lmms_eval/api/metrics.py`` (which imports the whole
package at its top) and run with ``ignore_case`` and ``ignore_punctuation``, as ``clotho_aqa_test.yaml`` names it,
one pair at a time, on the response as ``lmms_eval/api/task.py`` hands it over: stripped (``Task.process_results``,
task.py:1588-1590 and 1675 at 75571cf; restated here, the class cannot be imported alone). Qwen-Audio's reading (QwenLM/Qwen-Audio@b50fb95 ``eval_audio/evaluate_aqa.py:162,217``) is
scikit-learn's ``accuracy_score`` of the stripped answer against the reference, run where scikit-learn is installed.
Prints the disagreements and exits 1 if there is one.
"""

from __future__ import annotations

import ast
import re
import string
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_clotho_aqa import READINGS

from lm_eval_audio.tasks.clotho_aqa.scoring import lmms_eval_match, qwen_audio_match


def lmms_eval_exact_match(checkout: Path):
    source = (checkout / "lmms_eval" / "api" / "metrics.py").read_text()
    tree = ast.parse(source)
    (node,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "exact_match_hf_evaluate"]
    space = {"np": np, "re": re, "string": string}
    exec(compile(ast.Module([node], []), "metrics.py", "exec"), space)
    return space["exact_match_hf_evaluate"]


def main(checkout: Path) -> int:
    exact_match = lmms_eval_exact_match(checkout)
    try:
        from sklearn.metrics import accuracy_score
    except ImportError:
        accuracy_score = None
        print("scikit-learn is not installed: Qwen-Audio's reading is not run")
    bad = 0
    for response, reference, _, _ in READINGS:
        handed_over = response.strip() if response is not None else ""  # task.py:1590,1675
        theirs = bool(exact_match(predictions=[handed_over], references=[reference], ignore_case=True,
                                  ignore_punctuation=True)["exact_match"])
        if theirs != lmms_eval_match(response, reference):
            bad += 1
            print(f"lmms-eval: {response!r} vs {reference!r}: theirs {theirs}, ours {not theirs}")
        if accuracy_score is not None:
            qwen = bool(accuracy_score([reference], [response.strip()]))
            if qwen != qwen_audio_match(response, reference):
                bad += 1
                print(f"Qwen-Audio: {response!r} vs {reference!r}: theirs {qwen}, ours {not qwen}")
    print(f"{len(READINGS)} pairs, {bad} disagreement(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
