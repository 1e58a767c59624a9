"""Credentials never reach --model_args (lm-eval copies them into the results JSON and its log):
each is refused with an error that names the argument and the variable to use, never the value."""

from __future__ import annotations

import pytest
from conftest import run_cli

from lm_eval_audio.endpoints.model_args import refuse_secrets

OPENAI_SHAPED = "sk-proj-abcdefghijklmnop0123456789"
HF_SHAPED = "hf_abcdefghijklmnopqrstuvwxyz012345"


@pytest.mark.parametrize("given, variable", [
    ({"api_key": "anything-at-all"}, "OPENAI_API_KEY"),
    ({"llm_api_key": "llm-key-value-1234"}, "OPENAI_API_KEY"),
    ({"token": "token-value-5678"}, "HF_TOKEN"),
    ({"base_url": f"http://host/v1?key={OPENAI_SHAPED}"}, "OPENAI_API_KEY"),
    ({"revision": HF_SHAPED}, "HF_TOKEN"),
    ({"system_prompt": "prefix the-value-of-MY_KEY suffix"}, "MY_KEY"),  # the key variable's own value
])
def test_a_credential_is_refused_by_name_shape_or_value(given, variable, monkeypatch):
    monkeypatch.setenv("MY_KEY", "the-value-of-MY_KEY")
    with pytest.raises(ValueError) as error:
        refuse_secrets("openai-audio", {"model": "m", **given}, key_env="MY_KEY")
    message = str(error.value)
    name = next(iter(given))
    assert f"{name}= holds a credential" in message and f"export {variable}=" in message
    assert str(given[name]) not in message and "the-value-of-MY_KEY" not in message


def test_ordinary_arguments_pass(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-lm-eval-audio-test-key-0001")
    refuse_secrets("hf-audio", {"pretrained": "Qwen/Qwen2-Audio-7B-Instruct", "dtype": "auto", "batch_size": 8,
                                "system_prompt": "Listen to the skit, then answer.", "max_audio_seconds": None})


@pytest.mark.parametrize("model, model_args", [
    ("openai-audio", f"model=served,base_url=http://127.0.0.1:9/v1,api_key={OPENAI_SHAPED}"),
    ("hf-audio", f"pretrained=/nonexistent,token={HF_SHAPED}"),
    ("cascade", f"llm=openai,llm_model=m,llm_base_url=http://127.0.0.1:9/v1?k={OPENAI_SHAPED}"),
])
def test_the_cli_refuses_before_lm_eval_logs_the_arguments(model, model_args, tmp_path):
    proc = run_cli(["lm_eval", "--model", model, "--model_args", model_args, "--tasks", "airbench_sample",
                    "--output_path", str(tmp_path / "out")], env_extra={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert proc.returncode != 0
    assert "holds a credential" in proc.stderr and "keys are read from the environment only" in proc.stderr
    assert OPENAI_SHAPED not in proc.stderr + proc.stdout and HF_SHAPED not in proc.stderr + proc.stdout
    assert not (tmp_path / "out").exists()


def test_metadata_credentials_are_refused_for_the_judge(tmp_path):
    proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args", "model=m,base_url=http://127.0.0.1:9/v1",
                    "--tasks", "airbench_sample", "--metadata", f'{{"judge_api_key": "{OPENAI_SHAPED}"}}'],
                   env_extra={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert proc.returncode != 0 and "metadata judge_api_key= holds a credential" in proc.stderr
    assert "Initializing openai-audio model" not in proc.stderr  # refused before anything runs
    assert OPENAI_SHAPED not in proc.stderr + proc.stdout


@pytest.mark.parametrize("model, kwargs, name", [
    ("hf-audio", {"pretrained": "/nonexistent", "parallelize": HF_SHAPED}, "parallelize"),  # an argument it ignores
    ("hf-audio", {"pretrained": "/nonexistent", "api_key_env": "MY_KEY", "revision": "the-value-of-MY_KEY"},
     "revision"),  # a variable named by api_key_env=, even where the model takes no api_key_env
    ("openai-audio", {"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "MY_KEY",
                      "system_prompt": "the-value-of-MY_KEY"}, "system_prompt"),
    ("cascade", {"llm": "openai", "llm_model": "m", "llm_api_key_env": "MY_KEY", "asr_model": "the-value-of-MY_KEY"},
     "asr_model"),
    ("cascade", {"token": "anything-at-all"}, "token"),
])
def test_each_wrapper_refuses_a_credential_in_any_argument_before_it_loads(model, kwargs, name, monkeypatch):
    """The wrappers' one check of their arguments covers what lm-eval passes them all: a credential in any of them
    (by name, shape, or as the value of the variable api_key_env= or llm_api_key_env= names), before anything loads."""
    import importlib

    from lm_eval_audio.endpoints.model_args import CredentialError
    from lm_eval_audio.model_wrappers.registry import MODELS

    monkeypatch.setenv("MY_KEY", "the-value-of-MY_KEY")
    module, cls = MODELS[model].split(":")
    with pytest.raises(CredentialError, match=f"{name}= holds a credential") as error:
        getattr(importlib.import_module(module), cls)(**kwargs)
    assert "the-value-of-MY_KEY" not in str(error.value) and HF_SHAPED not in str(error.value)
