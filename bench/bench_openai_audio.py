"""``openai-audio`` throughput at num_concurrent 1 against 16, on an endpoint with a fixed
per-call latency.

    .venv/bin/python bench/bench_openai_audio.py [--requests 200] [--latency 0.1] [--concurrency 16]

Each request carries one real clip of the bundled AIR-Bench sample (WAV files sent as
they are, FLAC transcoded to WAV, base64 in an ``input_audio`` part) and goes through the
whole path: ``generate_until`` -> message building and audio encoding -> OpenAI SDK ->
HTTP -> the tests' scripted OpenAI-compatible server, in a process of its own, which
waits ``--latency`` seconds per call as a served model would. The ratio is the point:
with a latency-bound endpoint, throughput should grow with the requests in flight.
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

from lm_eval.api.instance import Instance

from lm_eval_audio.model_wrappers.openai_audio import OpenAIAudioLM

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "tests" / "scripted_judge.py"
SAMPLE = REPO / "tasks" / "airbench" / "sample_data" / "Foundation"


def _requests(n: int) -> list[Instance]:
    meta = json.loads((SAMPLE / "Foundation_meta.json").read_text())
    clips = [str(SAMPLE / f"{m['task_name']}_{m['dataset_name']}" / m["path"]) for m in meta]
    # Audio_Grounding's meta names .wav files that are .flac on disk (as in the real data).
    clips = [c if Path(c).exists() else str(Path(c).with_suffix(".flac")) for c in clips]
    gen = {"until": [], "max_gen_toks": 16, "do_sample": False}
    return [Instance("generate_until", {}, (f"<audio>Question {i}: which option?", gen, {"audio": [clips[i % len(clips)]]}),
                     idx=0, metadata=("bench", i, 1)) for i in range(n)]


def _run(url: str, requests, concurrency: int) -> float:
    lm = OpenAIAudioLM(model="bench-audio-lm", base_url=url, num_concurrent=concurrency)
    start = time.perf_counter()
    answers = lm.generate_until(requests, disable_tqdm=True)
    seconds = time.perf_counter() - start
    assert len(answers) == len(requests) and all(answers), "a request failed"
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server waits per call")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    logging.getLogger("lm_eval").setLevel(logging.WARNING)
    requests = _requests(args.requests)
    server = subprocess.Popen([sys.executable, str(SERVER), "--latency", str(args.latency), "--model", "bench-audio-lm"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        _run(url, requests[:8], 4)  # imports, first connections
        serial = _run(url, requests, 1)
        wide = _run(url, requests, args.concurrency)
    finally:
        server.kill()
    print(f"requests {args.requests} (one clip each), latency {args.latency * 1000:.0f} ms/call")
    print(f"num_concurrent 1:  {serial:7.2f} s  ({args.requests / serial:6.1f} requests/s)")
    print(f"num_concurrent {args.concurrency}: {wide:7.2f} s  ({args.requests / wide:6.1f} requests/s)")
    print(f"throughput ratio {args.concurrency} / 1: {serial / wide:.1f}x (ideal {args.concurrency}x)")


if __name__ == "__main__":
    main()
