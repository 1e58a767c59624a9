"""The commonest mistakes on lm_eval's command line, each one ``lm_eval: error:`` line, exit status 2 and no
traceback, saying what to do instead (issue 19)."""

from __future__ import annotations

import os

import pytest

from conftest import run_cli
from lm_eval_audio.storage import bundled_models


def _one_error_line(proc) -> str:
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("lm_eval: error:")]
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize("model, args, expected", [
    ("cascade", "asr_beam=3", "cascade: unknown model_args asr_beam (did you mean asr_beam_size?). Accepted: asr, "),
    ("hf-audio", "pretrained=nowhere,dtyp=float32", "hf-audio: unknown model_args dtyp (did you mean dtype?)"),
    ("openai-audio", "model=m,base_url=http://127.0.0.1:9/v1,retries=2", "openai-audio: unknown model_args retries"),
])
def test_a_misspelled_model_argument_names_it_the_closest_and_the_accepted_ones(model, args, expected):
    line = _one_error_line(run_cli(["lm_eval", "--model", model, "--model_args", args, "--tasks", "spoken_digits"]))
    assert expected in line


def test_a_misspelled_task_suggests_the_closest_names():
    line = _one_error_line(run_cli(["lm_eval", "--model", "cascade", "--tasks", "airbench_sampel"]))
    assert "unknown task 'airbench_sampel'; did you mean airbench_sample" in line and "lm_eval ls tasks" in line


def test_an_audio_task_on_a_text_model_names_the_audio_models():
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf", "--model_args",
                                    f"pretrained={bundled_models.smollm2_folder()}", "--tasks", "spoken_digits"]))
    assert "tasks ['spoken_digits_gen', 'spoken_digits_mc'] carry audio, and --model hf reads text only" in line
    assert "--model hf-audio" in line and "cascade" in line and "openai-audio" in line


def test_a_bug_keeps_its_traceback(monkeypatch):
    """Only errors a user can fix become one line: anything else is lm-eval's or a bug, and shows where."""
    from lm_eval_audio.harness.cli_patches import user_error_message

    assert user_error_message(KeyError("some_key")) is None
    assert user_error_message(ZeroDivisionError("division by zero")) is None


@pytest.mark.parametrize("task, variable, expected", [
    ("airbench_foundation", "AIRBENCH_DATA_DIR", "holds neither Foundation/Foundation_meta.json nor Chat/Chat_meta.json"),
    ("audiobench_librispeech_test_clean", "AUDIOBENCH_DATA_DIR", None),
    ("audiobench_asr", "AUDIOBENCH_DATA_DIR", None),  # a group
    ("mmau_test_mini,mmar,mmau_pro", "MMAU_DATA_DIR", "holds no mmau-test-mini.json: it is not a snapshot of MMAU test-mini"),
    ("mmar_by_layer", "MMAR_DATA_DIR", "holds no MMAR-meta.jsonl or MMAR-meta.json"),
    ("mmau_pro_open", "MMAU_PRO_DATA_DIR", "holds no test.parquet: it is not a snapshot of MMAU-Pro"),
])
def test_missing_data_is_reported_before_any_model_loads(tmp_path, task, variable, expected):
    """The model named here does not exist: had it been loaded first, that would be the error."""
    from lm_eval_audio.tasks.audiobench import data as audiobench

    if expected is None:  # AudioBench: a folder that does not exist
        variable_value, expected = str(tmp_path / "absent"), f"AudioBench data folder '{tmp_path / 'absent'}' does not exist"
        assert task.removeprefix("audiobench_") in audiobench.DATASETS or task == "audiobench_asr"
    else:
        variable_value = str(tmp_path)  # empty
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=/no/such/model",
                                    "--tasks", task], env_extra={variable: variable_value}))
    assert expected in line and "/no/such/model" not in line


def test_a_misspelled_model_name_suggests_the_closest():
    line = _one_error_line(run_cli(["lm_eval", "--model", "cascde", "--tasks", "spoken_digits_gen"]))
    assert "unknown model 'cascde'; did you mean cascade?" in line
    assert "the plugin's audio models: hf-audio, openai-audio, cascade" in line


def test_limit_zero_says_it_leaves_no_documents():
    line = _one_error_line(run_cli(["lm_eval", "--model", "cascade", "--tasks", "spoken_digits_gen", "--limit", "0"]))
    assert "a task has no documents to run with --limit 0: give --limit N with N of 1 or more" in line


@pytest.mark.slow  # a fresh lm_eval process, interrupted: about 25 s
def test_ctrl_c_is_one_line_saying_what_was_kept_and_how_to_resume(tmp_path):
    """SIGINT while an openai-audio model answers: no traceback, exit status 130, one line that says whether the
    answers given so far were kept and how to go on (with --use_cache: the next test)."""
    import os
    import signal
    import subprocess
    import time

    from conftest import BIN, REPO
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda p: "A", latency=0.2) as model:
        cmd = [str(BIN / "lm_eval"), "--model", "openai-audio", "--model_args",
               f"base_url={model.base_url},model=served-audio-lm,num_concurrent=1",
               "--tasks", "airbench_sample_foundation", "--output_path", str(tmp_path / "out")]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while model.completed < 3 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before the interrupt"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    (line,) = [x for x in stderr.splitlines() if x.startswith("lm_eval: interrupted:")]
    assert "the model's answers so far were not kept (lm-eval keeps them only with --use_cache PATH" in line


def test_ctrl_c_with_use_cache_says_where_the_answers_are_and_that_the_same_command_resumes(monkeypatch):
    from lm_eval_audio.harness.cli_patches import RunCommand, interrupted_message

    assert interrupted_message(RunCommand(model="hf-audio", use_cache="runs/requests")).startswith("the model's answers so far are kept in runs/requests_rank*.db: the same "
                                            "command resumes from them, asking only what was not answered")


@pytest.mark.parametrize("where", ["/proc/results", "under_a_file/results", "under_a_file/out/results.json"])
def test_an_output_path_that_cannot_be_written_stops_the_run_before_the_model_loads(where, tmp_path):
    (tmp_path / "under_a_file").write_text("a file, not a folder")
    output_path = where if where.startswith("/") else str(tmp_path / where)
    # no model at that path: the output path's error comes first, so nothing was loaded
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                                    f"pretrained={tmp_path / 'no-model-here'}", "--tasks", "spoken_digits_gen",
                                    "--output_path", output_path]))
    assert line.startswith(f"lm_eval: error: --output_path {output_path}: ") and "give a folder you can write to" in line
    assert ("is a file, not a folder" in line) == ("under_a_file" in where)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["under_a_file"]  # the probe left nothing


def test_results_lm_eval_could_not_write_after_the_run_are_saved_elsewhere_and_the_command_fails(tmp_path):
    """The disk filled or the folder went after the check: lm-eval only warns; the results are kept, and said."""
    import json

    from lm_eval.loggers import EvaluationTracker

    from lm_eval_audio.harness.run_patches import ResultsNotSaved, RunResults

    (tmp_path / "gone").write_text("a file where the folder was")
    tracker = EvaluationTracker(output_path=str(tmp_path / "gone" / "results"))
    tracker.general_config_tracker.model_name_sanitized = "m"
    from lm_eval_audio.metrics.task_scoring import TaskScoring

    scoring = TaskScoring("t")
    scoring.judge_records.append({"doc_id": 0, "reply": "A"})
    results = RunResults({"results": {"t": {"acc,none": 0.5}}, "config": {}}, {"t": scoring}, None)
    with pytest.raises(ResultsNotSaved, match="could not be written to --output_path .*gone/results") as raised:
        tracker.save_results_aggregated(results=results, samples={"t": [{"doc_id": 0, "resps": [["a"]]}]})
    folder = str(raised.value).rsplit("saved in ", 1)[1].split(" instead")[0]
    # laid out as lm-eval lays a run out, so that report, diagnose and judge read it there
    from lm_eval_audio.analysis.run_results import find

    ((run,),) = find([folder])
    assert run.results["results"]["t"]["acc,none"] == 0.5 and run.samples("t") == [{"doc_id": 0, "resps": [["a"]]}]
    (log,) = [name for name in os.listdir(run.path.parent) if name.startswith("judge_log_t_")]  # beside them
    assert log == f"judge_log_t_{run.date_id}.jsonl" and json.loads((run.path.parent / log).read_text())["reply"] == "A"


def test_through_the_command_the_table_is_printed_first_then_the_run_fails_saying_where(tiny_qwen2_audio, tmp_path,
                                                                                      monkeypatch):
    """The folder goes after the check (here: lm-eval's own write is made to fail): the table is printed, the files
    are saved elsewhere, and the command exits 2 saying where, never 0."""
    import pathlib

    real = pathlib.Path.write_text

    def full_disk(self, *args, **kwargs):
        if self.name.startswith("results_"):
            raise OSError(28, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", full_disk)
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio},max_new_tokens=2",
                    "--tasks", "spoken_digits_gen", "--limit", "2", "--output_path", str(tmp_path / "out"),
                    "--log_samples"])
    line = _one_error_line(proc)
    assert "|spoken_digits_gen|" in proc.stdout.replace(" ", "")  # the table came first
    assert f"the results could not be written to --output_path {tmp_path / 'out'}" in line
    folder = line.rsplit("saved in ", 1)[1].split(" instead")[0]
    from lm_eval_audio.analysis.run_results import find

    ((run,),) = find([folder])
    assert len(run.samples("spoken_digits_gen")) == 2


def test_a_judge_log_that_cannot_be_written_beside_the_results_is_written_elsewhere_and_said(tmp_path, caplog):
    import json

    from lm_eval_audio.harness.run_patches import _write_beside

    (tmp_path / "blocked").write_text("a file where the folder should be")
    _write_beside(str(tmp_path / "blocked" / "model"), ({"t": [{"doc_id": 0, "reply": "A"}]}, {}), "2026")
    (said,) = [r.message for r in caplog.records if "could not be written" in r.message]
    path = said.rsplit("written to ", 1)[1].removesuffix(" instead")
    assert said.startswith("judge log of t could not be written to ") and json.loads(open(path).read())["reply"] == "A"
