"""A torch extension built for another torch, or a package whose requirement is unmet, is said in one line naming
both packages and the fix: by setup right after installing, and by lm_eval and lm-eval-audio at start-up, before a
task is built or a model loads (lm_eval_audio.harness.install_check)."""

from __future__ import annotations

import os
from importlib import metadata

import pytest
from conftest import REPO, run_cli

from lm_eval_audio.harness import install_check

# What torchaudio 2.11.1's library says under torch 2.11.0 (the set-up failure of 2026-11-28).
UNDEFINED_SYMBOL = ("/venv/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
                    "torch_exception_get_what_without_backtrace")


def test_this_environment_loads_together():
    assert install_check.problem() is None
    line = install_check.versions()
    assert line.startswith(f"torch {metadata.version('torch')} | torchaudio {metadata.version('torchaudio')}")


def _failing(monkeypatch, module: str, error: BaseException, versions: dict[str, str]) -> None:
    real_import, real_version = install_check.import_module, install_check.installed

    def import_module(name):
        if name == module:
            raise error
        return real_import(name)

    monkeypatch.setattr(install_check, "import_module", import_module)
    monkeypatch.setattr(install_check, "installed", lambda name: versions.get(name, real_version(name)))


def test_a_torchaudio_built_for_another_torch_names_both_and_the_tested_one(monkeypatch):
    _failing(monkeypatch, "torchaudio", OSError(UNDEFINED_SYMBOL), {"torch": "2.11.0", "torchaudio": "2.11.1"})
    assert install_check.problem() == (
        "torchaudio 2.11.1 does not load with torch 2.11.0; install the torchaudio tested with it: "
        "pip install 'torchaudio==2.11.0', or set the project up from its lock: bash scripts/setup.sh "
        f"({UNDEFINED_SYMBOL})")


def test_a_torch_no_pair_was_tested_with_names_the_tested_pairs(monkeypatch):
    error = RuntimeError("Detected that PyTorch and TorchAudio were compiled with different CUDA versions.\nmore")
    _failing(monkeypatch, "torchaudio", error, {"torch": "2.13.0+cu130", "torchaudio": "2.11.1"})
    assert install_check.problem() == (
        "torchaudio 2.11.1 does not load with torch 2.13.0+cu130; install the torchaudio release built for torch "
        "2.13.0 (tested here: torch 2.11.0 with torchaudio 2.11.0, torch 2.15.0 with torchaudio 2.11.1), or set the "
        "project up from its lock: bash scripts/setup.sh (Detected that PyTorch and TorchAudio were compiled with "
        "different CUDA versions.)")


def test_a_package_whose_requirement_is_unmet_names_it(monkeypatch):
    _failing(monkeypatch, "transformers", ImportError("cannot import name 'HfFolder'"), {})
    real_requires = metadata.requires
    monkeypatch.setattr(install_check.metadata, "requires", lambda name: (
        ["huggingface-hub>=99.0", "torch ; extra == 'torch'"] if name == "transformers" else real_requires(name)))
    hub = metadata.version("huggingface-hub")
    assert install_check.problem() == (
        f"transformers {metadata.version('transformers')} does not load with huggingface-hub {hub}: it requires "
        "huggingface-hub>=99.0; pip install 'huggingface-hub>=99.0', or set the project up from its lock: "
        "bash scripts/setup.sh (cannot import name 'HfFolder')")


def test_an_absent_torchvision_is_no_problem(monkeypatch):
    monkeypatch.setattr(install_check, "installed", lambda name: None if name == "torchvision" else "1.0")
    monkeypatch.setattr(install_check, "import_module", lambda name: None)
    assert install_check.problem() is None


@pytest.fixture
def broken_torchaudio(tmp_path):
    """An environment whose torchaudio does not load, as 2.11.1 under torch 2.11.0: a package of that name ahead of
    site-packages whose import raises the loader's error."""
    fake = tmp_path / "shadow" / "torchaudio"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"raise OSError({UNDEFINED_SYMBOL!r})\n")
    return {"PYTHONPATH": os.pathsep.join([str(fake.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}


@pytest.mark.parametrize("command", [
    ["lm_eval", "--model", "hf-audio", "--model_args", "pretrained=/nowhere", "--tasks", "spoken_digits_gen",
     "--output_path", "results"],
    ["lm-eval-audio", "--model", "cascade", "--tasks", "airbench_sample", "--output_path", "results"],
])  # fmt: skip
def test_the_commands_stop_in_one_line_before_anything_runs(command, broken_torchaudio, tmp_path):
    proc = run_cli(command, cwd=tmp_path, env_extra=broken_torchaudio, in_process=False)
    program = command[0]
    torch, torchaudio = metadata.version("torch"), metadata.version("torchaudio")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.splitlines()[-1].startswith(
        f"{program}: error: torchaudio {torchaudio} does not load with torch {torch}; install the torchaudio")
    assert "Traceback" not in proc.stderr and UNDEFINED_SYMBOL in proc.stderr
    assert not (tmp_path / "results").exists()


def test_setup_runs_the_check_right_after_installing():
    setup = (REPO / "scripts" / "setup.sh").read_text()
    after_install = setup.index("-m lm_eval_audio.harness.install_check")
    assert setup.index("install_locked \"$LOCK\"") < after_install < setup.index("lm_eval_audio.storage.bundled_models")


def test_the_loaders_own_error_beneath_torchs_is_said(monkeypatch):
    try:
        try:
            raise OSError(UNDEFINED_SYMBOL)
        except OSError as e:
            raise OSError("Could not load this library: /venv/.../libtorchaudio.so") from e
    except OSError as wrapped:
        error = wrapped
    _failing(monkeypatch, "torchaudio", error, {"torch": "2.11.0", "torchaudio": "2.11.1"})
    assert install_check.problem().endswith(
        f"(Could not load this library: /venv/.../libtorchaudio.so: {UNDEFINED_SYMBOL})")


def test_setup_also_loads_the_model_wrappers(monkeypatch, capsys):
    _failing(monkeypatch, "lm_eval_audio.model_wrappers.cascade", ImportError("cannot import name 'WhisperX'"), {})
    assert install_check.problem() is None  # the start-up check of a run leaves the wrappers to the run
    with pytest.raises(SystemExit) as stop:
        install_check.main(["setup"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        f"setup: error: lm_eval_audio.model_wrappers.cascade does not load with transformers "
        f"{metadata.version('transformers')} (cannot import name 'WhisperX'): install a transformers release the tests "
        "ran on (README, 'The lock and the ranges'), or set the project up from its lock: bash scripts/setup.sh\n")
