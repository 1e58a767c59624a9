"""hf-audio on the families whose audio path is not padding-invariant: batch size 8 against batch size 1.

    .venv/bin/python bench/bench_batched_audio_encoders.py [--requests 32] [--repeats 3] [--new-tokens 16]

Tiny random-weight Qwen3-Omni, Phi-4-multimodal, Gemma 3n and Granite-Speech (the real transformers classes, built
offline), the same requests at both sizes in one process: greedy generation of ``--new-tokens`` tokens for clips of
0.4 to 6 s, and a two-choice document per clip. Each request's audio is encoded on its own at either size
(``model_wrappers/clip_encoding.py``); batch 8 decodes eight requests in one generate() or forward. Reports items/s at
each size, the ratio (the median of the repeats), and whether the answers are identical and the log-likelihoods
within 1e-4. On a CPU with a tiny model the per-clip work (feature extraction, the encoder) weighs far more than on a
GPU with a full-size model, where one decoding step's fixed cost dominates (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
from lm_eval.api.instance import Instance

from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM
from lm_eval_audio.testing.tiny_models import BUILDERS
from tone_clips import write_tone_clips

FAMILIES = ("qwen3_omni", "phi4_multimodal", "gemma3n", "granite_speech")


def _timed(model, method: str, requests, repeats: int) -> tuple[float, list]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = getattr(model, method)(requests, disable_tqdm=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=16)
    args = parser.parse_args()
    logging.getLogger("lm_eval").setLevel(logging.WARNING)
    torch.set_num_threads(2)
    work = Path(tempfile.mkdtemp(prefix="bench_batched_audio_"))
    clips = write_tone_clips(work, args.requests, (0.4, 6.0), 150, 23, noise=0.05)
    settings = {"until": ["\n"], "max_gen_toks": args.new_tokens, "do_sample": False}
    generation = [Instance("generate_until", {}, (f"<audio>Describe clip {i}.", settings, {"audio": [p]}), 0)
                  for i, p in enumerate(clips)]
    choices = [Instance("loglikelihood", {}, ("<audio>Which digit?", f" {c}", {"audio": [p]}), 0)
               for p in clips for c in ("one", "two")]
    print(f"{args.requests} clips of 0.4-6 s, {args.new_tokens} new tokens, median of {args.repeats}, "
          f"{torch.get_num_threads()} threads\n")
    print("| family | workload | bs=1 (items/s) | bs=8 (items/s) | bs=8 / bs=1 | same answers |")
    print("|---|---|---:|---:|---:|---|")
    for family in FAMILIES:
        folder = BUILDERS[family](str(work / family))
        models = {bs: HFAudioLM(pretrained=folder, device="cpu", dtype="float32", batch_size=bs) for bs in (1, 8)}
        for name, method, requests, items in (("generation", "generate_until", generation, len(generation)),
                                              ("2-choice documents", "loglikelihood", choices, len(clips))):
            _timed(models[1], method, requests[:8], 1)  # warm-up: first calls pay for lazy imports and allocations
            (t1, out1), (t8, out8) = (_timed(models[bs], method, requests, args.repeats) for bs in (1, 8))
            if method == "generate_until":
                same = f"{out1 == out8} ({len(set(out1))} distinct answers)"
            else:
                diff = max(abs(a[0] - b[0]) for a, b in zip(out1, out8))
                same = f"{diff < 1e-4 and [a[1] for a in out1] == [b[1] for b in out8]} (max diff {diff:.1e})"
            print(f"| {family} | {name} | {items / t1:.1f} | {items / t8:.1f} | {t1 / t8:.2f}x | {same} |", flush=True)
    print(f"\npython {sys.version.split()[0]}, torch {torch.__version__}")


if __name__ == "__main__":
    main()
