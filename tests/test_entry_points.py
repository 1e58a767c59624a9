"""Every way of starting a run gets the same early checks and one-line errors: the ``lm_eval`` script, ``python -m
lm_eval``, ``accelerate launch -m lm_eval``, ``torchrun -m lm_eval``, ``lm-eval-audio run``, and every argument form
lm-eval accepts (``-t``, ``--tasks a b``, ``--config FILE``, ``--metadata key=value``, ``-M``). Each check here runs
with ``pretrained=`` a folder that does not exist: the error that comes out is the one a check gave before any
model could load."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import BIN, REPO, run_cli

NO_DATA = {"AIRBENCH_DATA_DIR": "/nonexistent/airbench"}
RUN = ["--model", "hf-audio", "--model_args", "pretrained=/nonexistent/model", "--tasks", "airbench_foundation"]


def _one_error_line(proc, prefix: str = "lm_eval: error:") -> str:
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0]


def _process(start: list[str], args: list[str], env_extra: dict, cwd=REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **env_extra}
    return subprocess.run([*start, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_python_m_lm_eval_checks_the_data_before_the_model_loads():
    line = _one_error_line(_process([sys.executable, "-m", "lm_eval"], RUN, NO_DATA))
    assert "AIRBENCH_DATA_DIR" in line and "/nonexistent/airbench" in line, line


@pytest.mark.slow
@pytest.mark.parametrize("start", [
    [str(BIN / "lm_eval")],
    [sys.executable, "-m", "lm_eval"],
    [str(BIN / "accelerate"), "launch", "--num_processes", "1", "--cpu", "-m", "lm_eval"],
    [str(BIN / "torchrun"), "--nproc_per_node", "1", "-m", "lm_eval"],
    [str(BIN / "lm-eval-audio"), "run"],
], ids=["lm_eval", "python -m", "accelerate launch", "torchrun", "lm-eval-audio run"])
def test_every_entry_point_checks_the_data_before_the_model_loads(start):
    proc = _process(start, RUN, NO_DATA)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("lm_eval: error:")]
    assert len(lines) == 1 and "AIRBENCH_DATA_DIR" in lines[0], proc.stderr[-3000:]
    # No frame of lm-eval's or ours: accelerate and torchrun print a traceback of their own launcher, with the
    # child's exit status 2, after the child's one line.
    assert "/lm_eval/" not in proc.stderr and "lm_eval_audio/" not in proc.stderr, proc.stderr[-3000:]
    if "launch" in start or str(BIN / "torchrun") in start:
        assert proc.returncode != 0 and re.search(r"exit ?(code|status)\s*:?\s*2\b", proc.stderr), proc.stderr[-3000:]
    else:
        assert proc.returncode == 2


@pytest.mark.parametrize("form", [
    ["-M", "hf-audio", "-a", "pretrained=/nonexistent/model", "-t", "airbench_foundation"],
    ["--model", "hf-audio", "--model_args", "pretrained=/nonexistent/model", "--tasks", "spoken_digits",
     "airbench_foundation"],
    ["--config", "run.yaml"],
], ids=["-M -a -t", "--tasks a b", "--config FILE"])
def test_every_argument_form_reaches_the_data_check(form, tmp_path):
    (tmp_path / "run.yaml").write_text("model: hf-audio\nmodel_args:\n  pretrained: /nonexistent/model\n"
                                       "tasks: [airbench_foundation]\n")
    line = _one_error_line(run_cli(["lm_eval", *form], cwd=tmp_path, env_extra=NO_DATA))
    assert "AIRBENCH_DATA_DIR" in line, line


@pytest.mark.parametrize("metadata", [["judge_api_key=sk-abcdefghijklmnopqrstuvwx"],
                                      ['{"judge_api_key": "sk-abcdefghijklmnopqrstuvwx"}']],
                         ids=["key=value", "JSON"])
def test_a_credential_in_metadata_is_refused_before_the_model_loads_in_either_form(metadata):
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=/nonexistent/model",
                    "--tasks", "spoken_digits", "--metadata", *metadata])
    line = _one_error_line(proc)
    assert "metadata judge_api_key= holds a credential" in line and "sk-abc" not in proc.stderr + proc.stdout


def test_a_missing_local_checkpoint_is_one_line_before_anything_loads():
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=./local_models/nope",
                                    "--tasks", "spoken_digits"]))
    assert "hf-audio: pretrained=./local_models/nope: no such folder" in line, line


def test_a_hub_id_offline_is_one_line_naming_the_cache_the_mirror_and_a_local_folder(tmp_path):
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=Qwen/Qwen3-Omni-30B-A3B-Instruct",
                    "--tasks", "spoken_digits"], env_extra={"HF_HUB_CACHE": str(tmp_path)})
    line = _one_error_line(proc)
    for said in ("Qwen/Qwen3-Omni-30B-A3B-Instruct", "HF_HUB_OFFLINE", "HF_ENDPOINT", "local folder"):
        assert said in line, line
    assert "Retrying" not in proc.stderr


def test_a_hub_that_cannot_be_reached_is_one_line_at_once(tmp_path, monkeypatch):
    """Online, with HF_ENDPOINT at a port where nothing listens: no retries, one line naming what to do."""
    import socket

    with socket.socket() as s:  # a free port, closed again: connections to it are refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=Qwen/Qwen2-Audio-7B-Instruct",
                    "--tasks", "spoken_digits"],
                   env_extra={"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": f"http://127.0.0.1:{port}",
                              "HF_HUB_CACHE": str(tmp_path)})
    line = _one_error_line(proc)
    assert f"the Hub at http://127.0.0.1:{port} cannot be reached" in line, line
    for said in ("HF_ENDPOINT", "HF_HUB_OFFLINE=1", "local folder"):
        assert said in line, line
    assert "Retrying" not in proc.stderr


def test_a_device_this_machine_lacks_is_one_line(tiny_qwen2_audio):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                                    "--tasks", "spoken_digits", "--device", "cuda"]))
    assert "hf-audio: --device cuda: torch" in line and "sees no CUDA device here" in line and "--device cpu" in line


def test_hub_data_offline_is_checked_before_the_model_loads_and_says_what_to_do(tmp_path):
    """lm-eval loads the model before it builds the tasks: the Hub's listing (or the cache's) is read first. The line
    names the local folder variable, a mirror, and `download` for exactly the tasks the command named."""
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=/nonexistent/model",
                    "--tasks", "voicebench_sd_qa_usa", "--limit", "2"], env_extra={"HF_HUB_CACHE": str(tmp_path)})
    line = _one_error_line(proc)
    assert "hlt-lab/voicebench is not in the Hugging Face cache" in line, line
    for said in ("`lm-eval-audio download --tasks voicebench_sd_qa_usa`", "HF_HUB_OFFLINE=1", "HF_ENDPOINT",
                 "VOICEBENCH_DATA_DIR"):
        assert said in line, line


def test_download_says_what_to_do_other_than_download_and_suggests_close_task_names(tmp_path):
    offline = run_cli(["lm-eval-audio", "download", "--tasks", "fleurs_asr_en_us", "--dry_run"],
                      env_extra={"HF_HUB_CACHE": str(tmp_path)})
    line = _one_error_line(offline, "lm-eval-audio download: error:")
    assert "lm-eval-audio download" not in line.removeprefix("lm-eval-audio download: error:"), line
    assert "HF_HUB_OFFLINE=1 is set here: unset it" in line and "HF_ENDPOINT" in line and "FLEURS_DATA_DIR" in line
    misspelled = run_cli(["lm-eval-audio", "download", "--tasks", "fleurs_asr_en_uss"])
    line = _one_error_line(misspelled, "lm-eval-audio download: error:")
    assert "'fleurs_asr_en_uss' is no task of a benchmark of ours; did you mean fleurs_asr_en_us" in line, line


def test_a_refused_family_is_one_line_from_its_config_json_before_any_weight_loads(tmp_path):
    """A folder holding only config.json: the family is read from it, so no processor or weight is ever asked for."""
    import json

    (tmp_path / "nemotron-omni").mkdir()
    (tmp_path / "nemotron-omni" / "config.json").write_text(json.dumps({"model_type": "nemotron_h_omni"}))
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                                    f"pretrained={tmp_path / 'nemotron-omni'}", "--tasks", "spoken_digits"]))
    assert "hf-audio: Nemotron-H Omni" in line and "model_type nemotron_h_omni" in line, line


def test_a_name_the_hub_would_refuse_and_a_home_path_are_one_line(tmp_path, monkeypatch):
    from lm_eval_audio.model_wrappers import checkpoints

    for name in ("foo.", "a--b/c", "org/na..me"):
        with pytest.raises(checkpoints.CheckpointNotFound, match=f"pretrained={re.escape(name)}: no such folder"):
            checkpoints.config_json("hf-audio", name)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text('{"model_type": "qwen2_audio"}')
    assert checkpoints.local_path("~/m") == str(tmp_path / "m")
    assert checkpoints.config_json("hf-audio", "~/m")["model_type"] == "qwen2_audio"
