"""The AIR-Bench chat judge: ours against the two patterns other tools use, on the same endpoint and items.

    .venv/bin/python bench/bench_judge.py [--items 2200] [--latency 0.02] [--concurrency 50]
    .venv/bin/python bench/bench_judge.py --items 2200 --latency 0.2 --concurrency 32,128 --no_sequential --repeats 3

2,200 chat items, each judged twice (reference first, then model first): 4,400 calls to an
OpenAI-compatible endpoint in a process of its own, which waits a fixed ``--latency`` seconds per
call as a remote judge would (``bench/latency_endpoint.py``, almost no CPU; ``--endpoint scripted``:
the tests' threaded server). In one run, each from a cold start:

* sequential: one blocking ``requests.post`` after another, no cache (lmms-eval's air_bench
  judge: two calls per document inside ``process_results``);
* thread pool: ``--concurrency`` worker threads doing the same blocking posts, no cache (the
  official AIR-Bench ``score_chat.py``, 50 workers by default);
* ours: the real path (``judge_chat`` -> ``JudgeEngine`` -> ``ChatEndpoint`` -> HTTP) with ``--concurrency``
  requests in flight, each reply committed to the cache; then ours again on that cache (a re-run, or
  a restart after a kill), which must make zero calls.

All three send the same prompts and parse the replies with the same parser, and must agree.
"""

from __future__ import annotations

import argparse
import logging
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lm_eval_audio.tasks.airbench import judges as airbench_judges
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.judges.judge_config import JudgeConfig

ENDPOINTS = {  # --endpoint: the near-zero-CPU one by default; the tests' server for comparison with older figures
    "light": Path(__file__).resolve().parent / "latency_endpoint.py",
    "scripted": Path(__file__).resolve().parent.parent / "tests" / "scripted_judge.py",
}


def _items(n: int) -> list[dict]:
    return [
        {
            "doc_id": i, "uniq_id": str(i),
            "meta_info": f"Clip {i}: a woman says the train to Leeds leaves at {i % 24}:15, over station noise. " * 3,
            "question": f"When does the train in clip {i} leave, and where is the speaker?",
            "answer_gt": f"The train leaves at {i % 24}:15; the speaker is at a busy railway station. " * 2,
            "response": f"It leaves at {i % 24}:15 from a station, judging by the announcements and noise. " * 2,
        }
        for i in range(n)
    ]


def _prompts(items) -> list[str]:
    return [airbench_judges.chat_prompt(i["meta_info"], i["question"], a, b) for i in items
            for a, b in ((i["answer_gt"], i["response"]), (i["response"], i["answer_gt"]))]


def _post(base_url: str, prompt: str):
    """One blocking call, as the baselines make it: a new connection, no retry needed here, no cache."""
    import requests

    reply = requests.post(f"{base_url}/chat/completions", timeout=60, json={
        "model": "bench-judge", "temperature": 0.0, "max_tokens": 1024,
        "messages": [{"role": "user", "content": prompt}]})
    reply.raise_for_status()
    return airbench_judges.parse_pair_scores(reply.json()["choices"][0]["message"]["content"])


def _sequential(items, base_url: str) -> tuple[float, list]:
    start = time.perf_counter()
    parsed = [_post(base_url, p) for p in _prompts(items)]
    return time.perf_counter() - start, parsed


def _thread_pool(items, base_url: str, workers: int) -> tuple[float, list]:
    from concurrent.futures import ThreadPoolExecutor

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parsed = list(pool.map(lambda p: _post(base_url, p), _prompts(items)))
    return time.perf_counter() - start, parsed


def _as_pairs(verdicts) -> list:
    return [pair for v in verdicts for pair in ((v["reference"][0], v["model"][0]), (v["model"][1], v["reference"][1]))]


def _run(items, base_url: str, cache: Path, concurrency: int, label: str) -> tuple[float, int, list]:
    config = JudgeConfig(model="bench-judge", base_url=base_url, cache_path=str(cache), concurrency=concurrency)
    scoring = TaskScoring(label, judge=config)
    start = time.perf_counter()
    verdicts = airbench_judges.judge_chat(items, config, scoring)
    seconds = time.perf_counter() - start
    assert all(v is not None for v in verdicts), "a judge call failed"
    return seconds, scoring.judge_summary["calls"], _as_pairs(verdicts)


def _pool_against_ours(items, url: str, work: Path, concurrency: int, repeats: int) -> None:
    """The thread pool and ours, alternating, ``repeats`` times each: the medians and the endpoint's limit."""
    import statistics

    pools, ours, parsed = [], [], set()
    for rep in range(repeats):
        seconds, pool_parsed = _thread_pool(items, url, concurrency)
        pools.append(seconds)
        seconds, calls, ours_parsed = _run(items, url, work / f"ours_{concurrency}_{rep}.sqlite", concurrency,
                                           f"ours_{concurrency}_{rep}")
        ours.append(seconds)
        parsed.add((tuple(pool_parsed) == tuple(ours_parsed), calls))
    assert parsed == {(True, 2 * len(items))}, "the judges disagree, or ours did not make every call"
    pool, mine = statistics.median(pools), statistics.median(ours)
    limit = _endpoint_limit(2 * len(items), concurrency)
    print(f"| {concurrency} | {2 * len(items):,} | {pool:.2f} s ({min(pools):.2f}-{max(pools):.2f}) | "
          f"{mine:.2f} s ({min(ours):.2f}-{max(ours):.2f}) | {pool / mine:.2f}x | {limit:.2f} s | "
          f"{100 * limit / pool:.0f}% | {100 * limit / mine:.0f}% |", flush=True)


_latency = 0.0


def _endpoint_limit(calls: int, concurrency: int) -> float:
    """The fastest any client can be: every call waits the latency, at most ``concurrency`` at a time."""
    return math.ceil(calls / concurrency) * _latency


def main() -> None:
    global _latency
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2200)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds the server waits per call")
    parser.add_argument("--concurrency", default="50",
                        help="ours in flight, and the pool's workers; several (32,128) with --no_sequential")
    parser.add_argument("--no_sequential", action="store_true",
                        help="only the thread pool against ours, alternating --repeats times, medians")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--endpoint", choices=sorted(ENDPOINTS), default="light",
                        help="light: bench/latency_endpoint.py, almost no CPU, as a remote judge costs this machine; "
                             "scripted: the tests' threaded server, which competes with the client for the 2 cores")
    args = parser.parse_args()
    logging.getLogger("lm_eval").setLevel(logging.WARNING)
    items = _items(args.items)
    _latency = args.latency
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    work = Path(tempfile.mkdtemp(prefix="bench_judge_"))
    server = subprocess.Popen([sys.executable, str(ENDPOINTS[args.endpoint]), "--latency", str(args.latency)], stdout=subprocess.PIPE, text=True)
    if args.no_sequential:
        try:
            url = server.stdout.readline().strip()
            _run(items[:8], url, work / "warmup.sqlite", 1, "warmup")  # imports, first connection
            _thread_pool(items[:8], url, 4)
            print(f"items {args.items}, {args.endpoint} endpoint, latency {args.latency * 1000:.0f} ms per call; medians of "
                  f"{args.repeats} alternating runs (range in brackets)")
            print("| in flight | calls | thread pool | ours | ours vs pool | endpoint's limit | pool reaches | "
                  "ours reaches |")
            print("|---:|---:|---:|---:|---:|---:|---:|---:|")
            for concurrency in concurrencies:
                _pool_against_ours(items, url, work, concurrency, args.repeats)
        finally:
            server.kill()
        return
    args.concurrency = concurrencies[0]
    try:
        url = server.stdout.readline().strip()
        _run(items[:8], url, work / "warmup.sqlite", 1, "warmup")  # imports, first connection
        _sequential(items[:4], url)
        serial, serial_parsed = _sequential(items, url)
        pool, pool_parsed = _thread_pool(items, url, args.concurrency)
        ours, calls, ours_parsed = _run(items, url, work / "ours.sqlite", args.concurrency, "ours")
        warm, warm_calls, warm_parsed = _run(items, url, work / "ours.sqlite", args.concurrency, "warm")
    finally:
        server.kill()
    assert serial_parsed == pool_parsed == ours_parsed == warm_parsed, "the three judges disagree"
    n = len(serial_parsed)
    ideal = n / _endpoint_limit(n, args.concurrency) if args.latency else float("inf")
    print(f"items {args.items}, {n} judge calls, {args.endpoint} endpoint, latency {args.latency * 1000:.0f} ms per call, "
          f"{args.concurrency} in flight; the endpoint's limit at that concurrency: {ideal:.0f} calls/s")
    print("| judge | calls | time | calls/s | vs sequential | calls again on a re-run |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| sequential, no cache (lmms-eval pattern) | {n:,} | {serial:.2f} s | {n / serial:.1f} | 1.0x | {n:,} |")
    print(f"| thread pool of {args.concurrency}, no cache (official AIR-Bench pattern) | {n:,} | {pool:.2f} s | "
          f"{n / pool:.1f} | {serial / pool:.1f}x | {n:,} |")
    print(f"| ours, {args.concurrency} in flight, cold cache | {calls:,} | {ours:.2f} s | {calls / ours:.1f} | "
          f"{serial / ours:.1f}x | {warm_calls} |")
    print(f"| ours, re-run on its cache | {warm_calls} | {warm:.2f} s | - | {serial / warm:.0f}x | {warm_calls} |")
    print(f"ours / thread pool: {pool / ours:.2f}x; ours reaches {100 * calls / ours / ideal:.0f}% of the endpoint's limit")


if __name__ == "__main__":
    main()
