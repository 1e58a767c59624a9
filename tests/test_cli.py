"""The plugin as a user meets it: plain `lm_eval` in a subprocess, result files on disk."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
import soundfile as sf
from conftest import REPO, results_json, run_cli, run_readme_block, tone


def _ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\nSTDOUT:\n{proc.stdout[-3000:]}\nSTDERR:\n{proc.stderr[-5000:]}"
    return proc


def _python(code: str) -> str:
    return _ok(subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)).stdout.strip()


def test_startup_hook_does_not_import_torch():
    assert _python("import sys; print('torch' in sys.modules, 'transformers' in sys.modules)") == "False False"


def test_registry_has_hf_audio_and_the_builtins_without_torch():
    out = _python(
        "import sys\n"
        "from lm_eval.api.registry import get_model, model_registry\n"
        "print(all(m in model_registry for m in ('hf-audio', 'openai-audio', 'cascade')), 'torch' in sys.modules, "
        "get_model('hf').__name__)\n"
    )
    assert out == "True False HFLM"


def test_entry_points_declared():
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group="lm_eval.models")}
    assert eps["hf-audio"] == "lm_eval_audio.model_wrappers.hf_audio:HFAudioLM"


@pytest.mark.slow  # three lm_eval processes index every task: about 35 s
def test_ls_tasks_lists_builtins_plugin_tasks_and_include_path():
    out = _ok(run_cli(["lm_eval", "ls", "tasks", "--include_path", "tests/fixtures/text_tasks"], in_process=False)).stdout
    for name in ("hellaswag", "arc_easy", "spoken_digits_gen", "spoken_digits_mc", "tiny_arc"):
        assert name in out, name


def test_lm_eval_audio_console_script_and_module_forward_to_lm_eval():
    # A subcommand of lm-eval's through our console script, as a process; `run --help` shows it reached lm-eval
    # without building lm-eval's task index (what `ls tasks` lists is test_ls_tasks_lists_builtins_plugin_tasks...'s)
    out = _ok(run_cli(["lm-eval-audio", "run", "--help"], in_process=False)).stdout
    assert "--tasks" in out and "--model_args" in out and "--include_path" in out
    out = _ok(run_cli([sys.executable, "-m", "lm_eval_audio", "--help"])).stdout
    assert "run" in out and "ls" in out and "validate" in out  # lm-eval's own subcommands
    # ours first, one line each, then lm-eval's help
    ours = out[:out.index("usage: lm-eval ")]
    for name in ("judge", "serve-judge", "diagnose", "mix", "report"):
        assert re.search(rf"^  {name} +\S", ours, re.M), name
    # every bundled benchmark folder's tasks, by the prefix its task names share (a folder added is named with no
    # edit elsewhere: the list comes from the registry)
    folders = sorted(p.parent.name for p in (REPO / "tasks").glob("*/benchmark.py"))
    assert len(folders) >= 15 and [f for f in folders if f"({f}_*)" not in ours] == []


@pytest.mark.slow(seconds=210)
def test_readme_main_job_runs_as_written(tmp_path):
    """Exactly the README's main job, in a scratch folder, offline, with no judge configured:
    the cascade of the bundled Whisper tiny.en and SmolLM2, judged by the smoke-test judge;
    then docs/DIAGNOSTICS.md's report command over its results."""
    proc = run_readme_block("main-job", tmp_path, timeout=900)
    _ok(proc)
    assert "|airbench_sample" in proc.stdout or "airbench_sample_foundation" in proc.stdout  # the table
    assert "SMOKE-TEST judge" in proc.stderr
    assert re.search(r"\|gpt_align *\|[^|]*\|\d\.\d{4} \(0-1; smoke-test judge\)", proc.stdout), proc.stdout  # in its row
    folder = tmp_path / "results" / "cascade__whisper-tiny.en__SmolLM2-135M-Instruct"
    res = results_json(folder)
    assert res["config"]["model"] == "cascade"
    assert res["n-samples"]["airbench_sample_foundation"]["effective"] == 35
    assert res["n-samples"]["airbench_sample_chat"]["effective"] == 6
    foundation = res["results"]["airbench_sample_foundation"]
    assert 0.0 <= foundation["gpt_align,none"] <= 1.0 and "format_followed,none" in foundation
    for task, calls in (("airbench_sample_foundation", 35), ("airbench_sample_chat", 12)):
        judged = res["lm_eval_audio_judge"][task]
        assert judged["judge"]["smoke_test"] is True and "smoke-test judge" in judged["judge"]["model"]
        # It really asked the in-process judge, once per item and pass; items whose prompts are the
        # same (two identical answers to the same question) share one call, read back from the cache.
        assert judged["requests"] == calls and judged["calls"] > 0
        assert judged["calls"] + judged["cache_hits"] == calls + judged["reasks"]  # each attempt: a call or a hit
    # strict JSON: no bare NaN, a null with its reason beside it; each sample's metric fields are numbers
    json.loads(next(folder.glob("results_*.json")).read_text(), parse_constant=lambda c: pytest.fail(f"bare {c}"))
    chat = res["results"]["airbench_sample_chat"]
    if chat["score,none"] is None:
        assert res["lm_eval_audio_null_reasons"]["results.airbench_sample_chat.score,none"].startswith(
            "the judge scored none of the 6 item(s)")
    assert chat["judge_failures,none"] == len(res["lm_eval_audio_judge"]["airbench_sample_chat"]["unjudged_items"]) <= 6
    logs = sorted(folder.glob("judge_log_airbench_sample_*.jsonl"))
    assert len(logs) == 2
    entry = json.loads(logs[0].read_text().splitlines()[0])
    assert entry["replies"] and all(isinstance(r, str) for r in entry["replies"])
    samples = [json.loads(x) for x in next(folder.glob("samples_airbench_sample_foundation_*.jsonl")).read_text().splitlines()]
    assert len(samples) == 35 and all(s["resps"][0][0] for s in samples)  # SmolLM2 answered every item
    assert all(s["item_scores"]["gpt_align"] in (0.0, 1.0, None) for s in samples)  # the judged score per document
    for metric in ("gpt_align", "gpt_align_official", "gpt_align_judge_failures", "exact_match_official"):
        assert all(s[metric] in (0.0, 1.0, None) for s in samples), metric
    assert sum(s["item_scores"]["gpt_align"] or 0 for s in samples) / 35 == pytest.approx(foundation["gpt_align,none"])

    report = _ok(run_readme_block("report", tmp_path, timeout=300))
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    model = "cascade__whisper-tiny.en__SmolLM2-135M-Instruct"
    assert data["models"] == [model]
    # the smoke-test judge's verdicts are no score: the report reads the rule-based exact match, and says why
    assert data["tasks"]["airbench_sample_foundation"][model]["value"] == pytest.approx(foundation["exact_match,none"])
    assert data["airbench"][model]["foundation_metric"] == "exact_match"
    assert f"| {model} |" in report.stdout
    # the bundled sample is named for what it is wherever the report shows it
    assert "## AIR-Bench scoring on the synthetic sample, not AIR-Bench data: layout of Table 3" in report.stdout
    assert report.stdout.startswith("**Synthetic sample**") and data["synthetic_sample"] == [model]
    assert "skipped: judged by the bundled smoke-test judge" in report.stdout
    assert (tmp_path / "report" / "categories.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "report" / f"radar_{model}.png").exists()


@pytest.mark.slow  # the README's example through lm_eval: about 13 s
def test_readme_one_file_example_task(tiny_qwen2_audio, tmp_path):
    """docs/TASKS.md's "Add a task as one YAML file" example, as documented, run where one of its clips is corrupt:
    the failed item is in the printed output of this task of the user's own, not only in a warning."""
    shutil.copytree(REPO / "examples" / "spoken_qa", tmp_path / "examples" / "spoken_qa")
    (tmp_path / "examples" / "spoken_qa" / "audio" / "clip_03.wav").write_bytes(b"RIFF" + bytes(range(256)) * 8)
    proc = _ok(run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                        "--tasks", "spoken_qa", "--include_path", "examples/spoken_qa", "--batch_size", "4",
                        "--output_path", "out", "--log_samples"], cwd=tmp_path))
    res = results_json(tmp_path / "out")
    assert res["n-samples"]["spoken_qa"]["effective"] == 6
    assert 0.0 <= res["results"]["spoken_qa"]["exact_match,none"] <= 1.0
    samples = sorted(tmp_path.rglob("samples_spoken_qa_*.jsonl"))
    lines = [json.loads(x) for x in samples[0].read_text().splitlines()]
    assert lines[0]["arguments"]["gen_args_0"]["arg_2"]["audio"] == ["examples/spoken_qa/audio/clip_00.wav"]
    assert list(res["lm_eval_audio_data"]["failed_requests"]) == ["spoken_qa/doc 3"]
    assert "|Task|failed_items|\n|---|---:|\n|spoken_qa|1|\n" in proc.stdout, proc.stdout
    assert "failed_items: 1 item(s) in spoken_qa whose request failed for good were scored wrong" in proc.stdout


@pytest.mark.slow
def test_text_and_audio_tasks_in_one_call_same_results_for_batch_size_1_and_8(tiny_qwen2_audio, tmp_path):
    """A text multiple-choice YAML, a perplexity YAML and the plugin's audio tasks in one lm_eval call."""
    runs = {}
    for bs in ("1", "8"):
        proc = _ok(
            run_cli(
                [
                    "lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio},dtype=float32",
                    "--tasks", "tiny_arc,tiny_wikitext,spoken_digits",
                    "--include_path", "tests/fixtures/text_tasks",
                    "--batch_size", bs, "--output_path", str(tmp_path / bs), "--log_samples",
                ]
            )
        )
        runs[bs] = results_json(tmp_path / bs)
        assert "Running loglikelihood requests" in proc.stderr and "Running generate_until requests" in proc.stderr
    one, eight = runs["1"]["results"], runs["8"]["results"]
    assert set(one) == {"tiny_arc", "tiny_wikitext", "spoken_digits_gen", "spoken_digits_mc"}
    assert "acc,none" in one["tiny_arc"] and "word_perplexity,none" in one["tiny_wikitext"]
    assert "acc,none" in one["spoken_digits_mc"] and "exact_match,first_digit_word" in one["spoken_digits_gen"]
    for task, metrics in one.items():
        for key, value in metrics.items():
            if isinstance(value, float):
                assert eight[task][key] == pytest.approx(value, rel=1e-5, abs=1e-6), (task, key)
    # Per-sample responses agree too, not only the aggregates.
    for task in ("spoken_digits_gen", "tiny_arc"):
        a = [json.loads(x)["resps"] for x in next((tmp_path / "1").rglob(f"samples_{task}_*.jsonl")).read_text().splitlines()]
        b = [json.loads(x)["resps"] for x in next((tmp_path / "8").rglob(f"samples_{task}_*.jsonl")).read_text().splitlines()]
        if task == "spoken_digits_gen":
            assert a == b
        else:
            for ra, rb in zip(a, b):
                for (la, ga), (lb, gb) in zip((r[0] for r in ra), (r[0] for r in rb)):
                    assert float(la) == pytest.approx(float(lb), abs=1e-4) and ga == gb


def _cache_task(folder, clips):
    rows = [{"audio": str(p), "question": "What is this sound?"} for p in clips]
    (folder / "same_prompt.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / "same_prompt.yaml").write_text(
        "task: same_prompt\n"
        "dataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {folder / 'same_prompt.jsonl'}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        "doc_to_audio: [audio]\n"
        'doc_to_text: "<audio>{{question}}"\n'
        'doc_to_target: "x"\n'
        "generation_kwargs:\n  until: [\"\\n\"]\n  max_gen_toks: 4\n  do_sample: false\n"
        "metric_list:\n  - metric: exact_match\n"
        "metadata:\n  version: 1.0\n"
    )


@pytest.mark.slow  # lm_eval runs with --use_cache: about 15 s
def test_use_cache_keys_on_audio_content(tiny_qwen2_audio, tmp_path):
    clips = [tmp_path / "a.wav", tmp_path / "b.wav"]
    for i, p in enumerate(clips):
        sf.write(p, tone(1.0 + i, seed=i), 16000)
    _cache_task(tmp_path, clips)
    cmd = [
        "lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
        "--tasks", "same_prompt", "--include_path", str(tmp_path),
        "--use_cache", str(tmp_path / "cache" / "db"), "--output_path", str(tmp_path / "out"),
    ]
    first = _ok(run_cli(cmd)).stderr
    assert "Cached requests: 0, Requests remaining: 2" in first  # same prompt, two clips: two keys
    second = _ok(run_cli(cmd)).stderr
    assert "Cached requests: 2, Requests remaining: 0" in second
    sf.write(clips[1], tone(1.5, seed=7), 16000)  # new content under the same path
    third = _ok(run_cli(cmd)).stderr
    assert "Cached requests: 1, Requests remaining: 1" in third


@pytest.mark.slow
def test_data_parallel_two_processes_match_one(tiny_qwen2_audio, tmp_path):
    args = [
        "-m", "lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
        "--device", "cpu", "--tasks", "spoken_digits", "--batch_size", "4",
    ]
    single = _ok(run_cli([sys.executable, *args, "--output_path", str(tmp_path / "one")]))
    dp = _ok(run_cli(["torchrun", "--nproc_per_node", "2", *args, "--output_path", str(tmp_path / "two")]))
    assert "on rank 1" in dp.stderr and "on rank 1" not in single.stderr
    assert results_json(tmp_path / "one")["results"] == results_json(tmp_path / "two")["results"]


@pytest.mark.slow  # lm-eval's task index built twice: about 15 s
def test_task_manager_positional_and_keyword_calls_both_get_plugin_tasks(monkeypatch):
    from lm_eval.tasks import TaskManager

    monkeypatch.chdir(REPO)
    a = TaskManager(None, "tests/fixtures/text_tasks")
    b = TaskManager(include_path=["tests/fixtures/text_tasks"])
    c = TaskManager(include_path="tests/fixtures/text_tasks", include_defaults=False)
    assert all("spoken_digits_gen" in t.all_tasks and "tiny_arc" in t.all_tasks for t in (a, b))
    assert "spoken_digits_gen" not in c.all_tasks and "tiny_arc" in c.all_tasks


def test_the_configuration_is_handed_to_lm_evals_own_parse_and_the_parse_put_back():
    """cli_patches.parsed_once: lm-eval's parse of the command's own arguments returns the configuration the checks
    parsed; any other namespace is parsed; the class is left as it was found, an inherited from_cli included."""
    import argparse

    from lm_eval_audio.harness.cli_patches import parsed_once

    class Config:
        @classmethod
        def from_cli(cls, namespace):
            return ("parsed", namespace)

    class Inherits(Config):
        pass

    args, other = argparse.Namespace(), argparse.Namespace()
    for klass in (Config, Inherits):
        config = klass()
        before = dict(vars(klass))
        with parsed_once(config, args):
            assert klass.from_cli(args) is config and klass.from_cli(other) == ("parsed", other)
        assert dict(vars(klass)) == before and klass.from_cli(args) == ("parsed", args)
