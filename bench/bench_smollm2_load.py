"""Loading SmolLM2-135M-Instruct: from the GGUF file against the converted transformers folder.

    .venv/bin/python bench/bench_smollm2_load.py [--runs 3]

Both load tokenizer and model as the cascade and the smoke-test judge do (float32, CPU),
each run in a fresh interpreter so no cache inside the process helps either side. The
folder is ``bundled_models.smollm2_folder()``, converted once by the setup script.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

LOAD = """
import time, torch
t = time.perf_counter()
from transformers import AutoModelForCausalLM, AutoTokenizer
path, gguf = {path!r}, {gguf!r}
AutoTokenizer.from_pretrained(path, gguf_file=gguf)
AutoModelForCausalLM.from_pretrained(path, gguf_file=gguf, dtype=torch.float32)
print(time.perf_counter() - t)
"""


def _time(path: str, gguf: str | None) -> float:
    out = subprocess.run([sys.executable, "-c", LOAD.format(path=path, gguf=gguf)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from lm_eval_audio.storage import bundled_models

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder, gguf = bundled_models.smollm2()
    converted = bundled_models.smollm2_folder()
    from_gguf = [_time(folder, gguf) for _ in range(args.runs)]
    from_folder = [_time(converted, None) for _ in range(args.runs)]
    g, f = statistics.median(from_gguf), statistics.median(from_folder)
    print(f"GGUF file:          median {g:6.2f} s over {args.runs} runs {[round(x, 2) for x in from_gguf]}")
    print(f"converted folder:   median {f:6.2f} s over {args.runs} runs {[round(x, 2) for x in from_folder]}")
    print(f"ratio: {g / f:.0f}x faster from the converted folder")


if __name__ == "__main__":
    main()
