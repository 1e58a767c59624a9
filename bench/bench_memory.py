"""Peak memory and the harness's time per item, at 2,000 and at 21,426 AIR-Bench foundation items.

    .venv/bin/python bench/bench_memory.py                       # 2,000 and 21,426 items
    .venv/bin/python bench/bench_memory.py --sizes 500 2000      # quicker

For each size it writes a synthetic snapshot in the official AIR-Bench layout
(``Foundation/Foundation_meta.json`` and one 0.25 s WAV per item in
``Foundation/<task_name>_<dataset_name>/``, items spread over the 19 foundation tasks),
then runs the real ``lm_eval`` CLI on ``airbench_foundation`` with ``--log_samples`` in a
fresh process, the model being :class:`ScriptedAudioLM` below: it decodes every clip
through the plugin's audio reader, as every wrapper does, and answers a fixed letter, so
that what is measured is the harness. The process's peak resident memory comes from the
kernel (``wait4``); the phases are timed inside it:

* loading: the tasks' documents (reading the meta JSON, checking each item's file);
* requests: lm-eval building one request per document;
* decoding: reading and decoding the audio (inside the model call);
* model: the scripted model's own work (choosing its answer);
* scoring: filters, ``process_results`` and aggregation;
* writing: the results JSON and the sample logs.

For scale, a tiny random-weight Qwen2-Audio (hidden size 32; ``lm_eval_audio.testing.tiny_models``) then
answers 64 of the same requests at batch size 8, in the same run: the time per item of the
smallest real model architecture on this CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FOUNDATION_TASKS = [  # (task_name, dataset_name) as the official meta names them
    ("Speaker_Age_Prediction", "common_voice"), ("Speaker_Emotion_Recontion", "iemocap"),
    ("Speaker_Gender_Recognition", "common_voice"), ("Speaker_Intent_Classification", "slurp"),
    ("Speaker_Number_Verification", "voxceleb1"), ("Speech_Entity_Reconition", "slurp"),
    ("Speech_Grounding", "librispeech"), ("Spoken_Language_Identification", "covost2"),
    ("Synthesized_Voice_Detection", "FoR"), ("Acoustic_Scene_Classification", "CochlScene"),
    ("Audio_Grounding", "AudioGrounding"), ("Sound_AQA", "clotho_aqa"), ("vocal_sound_classification", "VocalSound"),
    ("Music_AQA", "MusicAVQA"), ("Music_Genre_Recognition", "MTG"), ("Music_Instruments_Classfication", "nsynth"),
    ("Music_Midi_Pitch_Analysis", "nsynth"), ("Music_Midi_Velocity_Analysis", "nsynth"),
    ("Music_Mood_Recognition", "MTG"),
]
FULL_SIZE = 21426
MAX_RSS_RATIO = 1.5  # peak RSS at the largest size against the smallest: the bound
CLIP_SECONDS = 0.25
PHASES = ("loading", "requests", "decoding", "model", "scoring", "writing")


def build_snapshot(root: Path, n_items: int) -> Path:
    import soundfile as sf

    rng = np.random.default_rng(n_items)
    items = []
    for i in range(n_items):
        task, dataset = FOUNDATION_TASKS[i % len(FOUNDATION_TASKS)]
        folder = root / "Foundation" / f"{task}_{dataset}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"clip_{i:05d}.wav"
        # Audio_Grounding's meta says .wav for files that are FLAC, as published.
        on_disk = folder / (name[:-3] + "flac" if task == "Audio_Grounding" else name)
        sf.write(on_disk, (0.1 * rng.standard_normal(int(CLIP_SECONDS * 16000))).astype(np.float32), 16000)
        choices = [f"option {k} of item {i}" for k in range(4)]
        items.append({
            "path": name, "question": f"Which option describes clip {i}?", "choice_a": choices[0],
            "choice_b": choices[1], "choice_c": choices[2], "choice_d": choices[3], "answer_gt": choices[i % 4],
            "task_name": task, "dataset_name": dataset, "uniq_id": i,
        })
    (root / "Foundation" / "Foundation_meta.json").write_text(json.dumps(items))
    return root


# --- the child: one lm_eval run, timed by phase ------------------------------------------


def _register_scripted_model(timings: dict) -> None:
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    from lm_eval_audio.audio import decoding
    from lm_eval_audio.model_wrappers.request_parts import split_request

    @register_model("bench-scripted-audio")
    class ScriptedAudioLM(LM):
        """Decodes each clip as a wrapper would, then answers "A"."""

        MULTIMODAL = True

        def __init__(self, **_cli_settings) -> None:  # batch_size, device, ... mean nothing here
            super().__init__()

        def generate_until(self, requests, disable_tqdm: bool = False):
            answers = []
            for i, request in enumerate(requests):
                start = time.perf_counter()
                parts = split_request(i, request.args, "bench-scripted-audio")
                for ref in parts.refs:
                    decoding.load_native(ref)
                decoded = time.perf_counter()
                answers.append("A" if len(parts.context) % 2 else "A.")
                timings["decoding"] += decoded - start
                timings["model"] += time.perf_counter() - decoded
            return answers

        def loglikelihood(self, requests, disable_tqdm: bool = False):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
            raise NotImplementedError


def _timed(owner, name: str, timings: dict, phase: str) -> None:
    original = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            timings[phase] += time.perf_counter() - start

    setattr(owner, name, timed)


def child(data: str, out: str, timings_path: str) -> None:
    started = time.perf_counter()
    timings = dict.fromkeys(PHASES, 0.0)
    import lm_eval.evaluator as evaluator
    from lm_eval.__main__ import cli_evaluate
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.loggers import EvaluationTracker

    imported = time.perf_counter()
    _register_scripted_model(timings)
    _timed(ConfigurableTask, "download", timings, "loading")
    _timed(ConfigurableTask, "build_all_requests", timings, "requests")
    _timed(EvaluationTracker, "save_results_aggregated", timings, "writing")
    _timed(EvaluationTracker, "save_results_samples", timings, "writing")
    evaluate = evaluator.evaluate

    def timed_evaluate(lm, *args, **kwargs):
        # Everything evaluate() does after the model has answered is scoring.
        start = time.perf_counter()
        before = timings["requests"] + timings["decoding"] + timings["model"]
        try:
            return evaluate(lm, *args, **kwargs)
        finally:
            inside = time.perf_counter() - start
            timings["scoring"] += inside - (timings["requests"] + timings["decoding"] + timings["model"] - before)

    evaluator.evaluate = timed_evaluate
    os.environ["AIRBENCH_DATA_DIR"] = data
    sys.argv = ["lm_eval", "--model", "bench-scripted-audio", "--tasks", "airbench_foundation",
                "--output_path", out, "--log_samples"]
    cli_evaluate()
    timings["import"] = imported - started
    timings["total"] = time.perf_counter() - started
    Path(timings_path).write_text(json.dumps(timings))


# --- the parent ---------------------------------------------------------------------------


def run_size(work: Path, n_items: int) -> dict:
    data = build_snapshot(work / f"snapshot_{n_items}", n_items)
    timings_path = work / f"timings_{n_items}.json"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    log = work / f"stderr_{n_items}.txt"
    start = time.perf_counter()
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, __file__, "--child", str(data), str(work / f"out_{n_items}"),
                                 str(timings_path)], env=env, stdout=subprocess.DEVNULL, stderr=err)
        # wait4, not Popen.wait: it also returns the child's resource usage (its peak RSS).
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"the run at {n_items} items failed:\n{log.read_text()[-3000:]}")
    results = json.loads(next((work / f"out_{n_items}").rglob("results_*.json")).read_text())
    effective = sum(v["effective"] for v in results["n-samples"].values())
    assert effective == n_items, (effective, n_items)
    return {"items": n_items, "wall": wall, "timings": json.loads(timings_path.read_text()), "usage": usage}


def tiny_model_seconds_per_item(work: Path, n_requests: int = 64) -> float:
    import torch
    from lm_eval.api.instance import Instance

    from lm_eval_audio.tasks.airbench import data as airbench
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM
    from lm_eval_audio.testing.tiny_models.qwen2_audio import build_qwen2_audio

    torch.set_num_threads(2)
    docs = airbench.load_items(work / f"snapshot_{FULL_SIZE}" if (work / f"snapshot_{FULL_SIZE}").is_dir()
                               else next(work.glob("snapshot_*")), "Foundation", None, "bench")[:n_requests]
    requests = [Instance("generate_until", doc, (airbench.foundation_prompt(doc),
                                                 {"until": [], "max_gen_toks": 8, "do_sample": False},
                                                 {"audio": [doc["audio"]]}), 0) for doc in docs]
    model = HFAudioLM(pretrained=build_qwen2_audio(str(work / "tiny_model")), device="cpu", dtype="float32",
                      batch_size=8)
    model.generate_until(requests[:8])  # warm-up
    start = time.perf_counter()
    model.generate_until(requests)
    return (time.perf_counter() - start) / len(requests)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        return child(*sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, FULL_SIZE])
    parser.add_argument("--keep", action="store_true", help="keep the snapshots and runs (printed path)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_memory_"))
    runs = [run_size(work, n) for n in args.sizes]
    tiny = tiny_model_seconds_per_item(work)

    base = runs[0]["usage"].ru_maxrss
    print(f"| items | peak RSS | vs {runs[0]['items']:,} items | wall | import | "
          + " | ".join(f"{p} per item" for p in PHASES) + " | harness per item |")
    print("|" + "---:|" * (5 + len(PHASES) + 1))
    for run in runs:
        t, n = run["timings"], run["items"]
        harness = sum(t[p] for p in PHASES if p != "model")
        print(f"| {n:,} | {run['usage'].ru_maxrss / 1024:.0f} MB | {run['usage'].ru_maxrss / base:.2f}x | "
              f"{run['wall']:.1f} s | {t['import']:.1f} s | "
              + " | ".join(f"{1000 * t[p] / n:.3f} ms" for p in PHASES) + f" | {1000 * harness / n:.2f} ms |")
    print(f"\ntiny random-weight Qwen2-Audio (hidden size 32), batch size 8, 64 of the same requests: "
          f"{1000 * tiny:.1f} ms per item")
    if args.keep:
        print(f"kept in {work}")
    else:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    # The bound: memory may not grow with the items beyond their metadata.
    ratio = runs[-1]["usage"].ru_maxrss / base
    if ratio >= MAX_RSS_RATIO:
        raise SystemExit(f"peak RSS at {runs[-1]['items']:,} items is {ratio:.2f}x that at {runs[0]['items']:,} "
                         f"items, over the bound of {MAX_RSS_RATIO}x")
    print(f"peak RSS ratio {ratio:.2f}x, under the bound of {MAX_RSS_RATIO}x")


if __name__ == "__main__":
    main()
