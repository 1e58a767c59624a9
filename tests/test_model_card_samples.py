"""The samples of the benchmarks model cards report (CochlScene, TUT2017, Nonspeech7k, FSD50K, GTZAN, NSynth,
Clotho-AQA, the captioning sets, OpenAudioBench, FLEURS translation) through the real CLI offline, all in one run of
the bundled cascade (one model load for all of them); each benchmark's own test module recomputes its numbers from
the logged samples.

A test module takes part by defining ``SAMPLE_GROUPS`` (the groups to run) and ``check_sample_run(results, logged)``
(``results``: the results JSON; ``logged(task)``: that task's logged samples). ``SAMPLE_MODULES`` (module names,
comma-separated) runs only those, while one folder is being built."""

from __future__ import annotations

import importlib
import json
import os

import pytest

from conftest import REPO, results_json, run_cli


def _taking_part() -> list:
    only = {m for m in os.environ.get("SAMPLE_MODULES", "").split(",") if m}
    names = sorted(p.stem for p in (REPO / "tests").glob("test_*.py")
                   if p.stem != __name__ and "def check_sample_run(" in p.read_text() and (not only or p.stem in only))
    return [importlib.import_module(name) for name in names]


@pytest.mark.slow(seconds=95)  # every model-card sample through lm_eval and the cascade
def test_model_card_samples_through_the_cli_offline(tmp_path):
    modules = _taking_part()
    assert modules, "no test module defines check_sample_run"
    groups = [g for m in modules for g in m.SAMPLE_GROUPS]
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", ",".join(groups), "--limit", "2", "--batch_size", "8",
                    "--gen_kwargs", "max_gen_toks=12", "--output_path", str(tmp_path), "--log_samples"],
                   env_extra={"LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite"),
                              "HF_HUB_CACHE": str(tmp_path / "hf_cache")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = results_json(tmp_path)

    def logged(task: str) -> list[dict]:
        (path,) = tmp_path.rglob(f"samples_{task}_*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines()]

    for module in modules:
        module.check_sample_run(results, logged)
