"""hf-audio: batch size 8 against batch size 1 on a tiny random-weight Qwen2-Audio.

    .venv/bin/python bench/bench_batching.py [--requests 64] [--repeats 3]

Same requests (clips of 0.5 to 6 s, different pitches), greedy generation of 16 tokens,
log-likelihood scoring of one continuation per clip and of four choices per clip (a
multiple-choice task), in one process; then what one document costs with 10 choices against 1. Reports whether outputs are identical and
the wall-time ratio bs=1 / bs=8 (the median of the repeats). The model is tiny, so
the timings weigh the harness (decode, feature extraction, padding) more than a real
model would.
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
from lm_eval_audio.testing.tiny_models.qwen2_audio import build_qwen2_audio
from tone_clips import write_tone_clips


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logging.getLogger("lm_eval").setLevel(logging.WARNING)
    torch.set_num_threads(2)
    work = Path(tempfile.mkdtemp(prefix="bench_batching_"))
    model_dir = build_qwen2_audio(str(work / "model"))
    clips = write_tone_clips(work, args.requests, (0.5, 6.0), 150, 10)
    gen = [
        Instance("generate_until", {}, (f"<audio>Describe clip {i}.", {"until": ["\n"], "max_gen_toks": 16, "do_sample": False}, {"audio": [p]}), 0)
        for i, p in enumerate(clips)
    ]
    ll = [Instance("loglikelihood", {}, ("<audio>The clip is", f" number {i}", {"audio": [p]}), 0) for i, p in enumerate(clips)]
    # A multiple-choice task: four choices per clip, as lm-eval sends them (one request per choice).
    mc = [Instance("loglikelihood", {}, ("<audio>Which letter?", f" {c}", {"audio": [p]}), 0)
          for p in clips[: args.requests // 4] for c in "ABCD"]

    models = {bs: HFAudioLM(pretrained=model_dir, device="cpu", dtype="float32", batch_size=bs) for bs in (1, 8)}
    rows = []
    workloads = (("generate_until", gen, "generate_until"), ("loglikelihood, one continuation per clip", ll, "loglikelihood"),
                 ("loglikelihood, 4 choices per clip", mc, "loglikelihood"))
    for name, requests, method in workloads:
        times = {1: [], 8: []}
        outs = {}
        for _ in range(args.repeats):
            for bs, model in models.items():
                start = time.perf_counter()
                outs[bs] = getattr(model, method)(requests, disable_tqdm=True)
                times[bs].append(time.perf_counter() - start)
        if method == "generate_until":
            same = outs[1] == outs[8]
            detail = f"{len(set(outs[1]))} distinct outputs"
        else:
            diff = max(abs(a[0] - b[0]) for a, b in zip(outs[1], outs[8]))
            same = diff < 1e-4 and [a[1] for a in outs[1]] == [b[1] for b in outs[8]]
            detail = f"max |logprob difference| {diff:.2e}"
        t1, t8 = statistics.median(times[1]), statistics.median(times[8])
        rows.append((name, same, detail, t1, t8))

    print(f"requests: {args.requests}, repeats: {args.repeats}, torch threads: {torch.get_num_threads()}")
    print("| request type | identical bs=1 vs bs=8 | detail | bs=1 (s) | bs=8 (s) | speed-up bs=8 / bs=1 |")
    print("|---|---|---|---:|---:|---:|")
    for name, same, detail, t1, t8 in rows:
        print(f"| {name} | {'yes' if same else 'NO'} | {detail} | {t1:.2f} | {t8:.2f} | {t1 / t8:.2f}x |")
    if not all(r[1] for r in rows):
        sys.exit("outputs differ between batch sizes")

    # What a document costs by its number of choices: its prompt and audio run once, the choices after it.
    cost = {}
    for n in (1, 10):
        requests = [Instance("loglikelihood", {}, ("<audio>Which one?", f" choice {k}", {"audio": [p]}), 0)
                    for p in clips[:8] for k in range(n)]
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            models[8].loglikelihood(requests, disable_tqdm=True)
            runs.append(time.perf_counter() - start)
        cost[n] = statistics.median(runs) / 8
    print(f"\nper document at bs=8: 1 choice {cost[1] * 1000:.1f} ms, 10 choices {cost[10] * 1000:.1f} ms, "
          f"ratio {cost[10] / cost[1]:.2f}x")


if __name__ == "__main__":
    main()
