"""Every bundled sample through ``lm_eval``, and two such runs compared: what a change to the plugin's structure
must leave as it was (the results, the logged samples, the judge logs and the files beside them).

    .venv/bin/python scripts/compare_sample_runs.py run OUT       # OUT/<run>/... from this checkout
    .venv/bin/python scripts/compare_sample_runs.py compare A B   # exit 1, with each difference, if they differ

Two runs, offline, each in a subprocess of this checkout's environment:

* ``hf-audio``: a tiny random-weight Qwen2-Audio (seed 0) on every benchmark's ``*_sample`` (``registry.sample_names``,
  as ``tests/test_wheel.py`` runs them), judged by the scripted judge (``tests/scripted_judge.py``);
* ``cascade``: the README's main job (``airbench_sample``, Whisper tiny.en then SmolLM2, judged by the bundled
  smoke-test judge).

Compared after normalising what changes from one run to the next of the same code: the run's folder (written as
``<OUT>``, and as lm-eval names a folder after it), dates, durations, timestamps, the local judges' ports, the addresses
in the functions' reprs lm-eval writes into the configs, the environment's description and the git commit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the scripted judge
# What differs between two runs of the same code: left out of the comparison.
VOLATILE_KEYS = {"date", "start_time", "end_time", "total_evaluation_time_seconds", "pretty_env_info", "git_hash",
                 "upper_git_hash", "transformers_version", "lm_eval_version", "elapsed_seconds", "wall_seconds",
                 "seconds", "latency_seconds", "started", "finished", "pid"}
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(\.\d+)?")
LOCAL_SERVER = re.compile(r"http://(127\.0\.0\.1|localhost):\d+")  # the judges' ports, new in each run
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")  # a function's repr in lm-eval's configs: its address in this process


def run(out: Path) -> None:
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.testing.tiny_models import BUILDERS

    out.mkdir(parents=True, exist_ok=True)
    model = BUILDERS["qwen2_audio"](str(out / "tiny-qwen2-audio"), seed=0)
    lm_eval = str(Path(sys.executable).parent / "lm_eval")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(out / "transcripts.sqlite"),
           "LM_EVAL_AUDIO_JUDGE_CACHE": str(out / "judge.sqlite")}
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "LM_EVAL_AUDIO_JUDGE_MODEL"):
        env.pop(key, None)
    with ScriptedJudge() as judge:
        _lm_eval([lm_eval, "--model", "hf-audio", "--model_args", f"pretrained={model}", "--device", "cpu",
                  "--tasks", ",".join(registry.sample_names()), "--batch_size", "16", "--gen_kwargs", "max_gen_toks=4",
                  "--log_samples", "--output_path", str(out / "hf-audio")],
                 {**env, "OPENAI_BASE_URL": judge.base_url, "LM_EVAL_AUDIO_JUDGE_MODEL": SERVED_MODELS[0]})
    _lm_eval([lm_eval, "--model", "cascade", "--tasks", "airbench_sample", "--log_samples",
              "--output_path", str(out / "cascade")], env)


def _lm_eval(cmd: list[str], env: dict) -> None:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(cmd[:5])} ... exited {done.returncode}:\n{done.stderr[-4000:]}")


def normalised(value, out: Path):
    if isinstance(value, dict):
        return {k: normalised(v, out) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalised(v, out) for v in value]
    if isinstance(value, str):
        for folder in (str(out.resolve()), str(out)):  # as written, and as lm-eval names a folder after it
            value = value.replace(folder, "<OUT>").replace(folder.replace("/", "__"), "<OUT>")
        return ADDRESS.sub(" at <ADDRESS>>", LOCAL_SERVER.sub("<LOCAL SERVER>", TIMESTAMP.sub("<TIME>", value)))
    return value


def files_of(out: Path) -> dict[str, object]:
    """Each result file under ``out`` by its path with the timestamp taken out, as normalised JSON (a JSONL file:
    its records)."""
    found = {}
    for path in sorted(out.rglob("*")):
        if path.suffix not in (".json", ".jsonl") or not path.is_file() or "tiny-qwen2-audio" in path.parts:
            continue
        name = normalised(str(path.relative_to(out)), out)
        text = path.read_text(encoding="utf-8")
        records = [json.loads(line) for line in text.splitlines() if line.strip()] if path.suffix == ".jsonl" \
            else json.loads(text)
        found[name] = normalised(records, out)
    return found


def differences(a, b, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}/{k}: only in A" for k in a.keys() - b.keys()] + \
              [f"{where}/{k}: only in B" for k in b.keys() - a.keys()]
        for k in sorted(a.keys() & b.keys()):
            out += differences(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {json.dumps(a)[:300]} != {json.dumps(b)[:300]}"]


def compare(a: Path, b: Path) -> int:
    found = differences(files_of(a), files_of(b))
    print("\n".join(found) if found else f"identical: {len(files_of(a))} files")
    return 1 if found else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "run":
        run(Path(argv[1]).resolve())
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
