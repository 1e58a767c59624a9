"""Each model argument is declared once (its wrapper's ARGS): the wrapper reads it from there, refuses what is not
declared, prints it (`lm-eval-audio model-args`), and docs/MODELS.md's tables are the same declarations."""

from __future__ import annotations

import re

import pytest

from conftest import REPO
from lm_eval_audio.endpoints.model_args import Arg, ModelArgsError, choice, read_arguments, whole
from lm_eval_audio.model_wrappers.registry import MODELS, print_arguments, wrapper_class

DOC = (REPO / "docs" / "MODELS.md").read_text()


@pytest.mark.parametrize("name", list(MODELS))
def test_the_docs_table_is_the_wrappers_declarations(name):
    found = re.search(rf"<!-- model-args {name}:[^>]*-->\n(.*?)\n<!-- /model-args -->", DOC, re.S)
    assert found, f"docs/MODELS.md has no generated table for {name}"
    assert found.group(1) == wrapper_class(name).arguments_help(), (
        f"docs/MODELS.md's {name} table differs from its ARGS: paste `lm-eval-audio model-args {name}` there")


@pytest.mark.parametrize("name", list(MODELS))
def test_each_argument_is_declared_once_with_its_help(name):
    args = wrapper_class(name).ARGS
    names = [arg.name for arg in args]
    assert len(names) == len(set(names)), f"{name} declares an argument twice"
    assert all(arg.help for arg in args), f"{name}: an argument without help"
    assert {"audio", "batch_size", "max_batch_size"} <= set(names)


def test_model_args_prints_each_models_table(capsys):
    print_arguments(["openai-audio"])
    out = capsys.readouterr().out
    assert out.startswith("## openai-audio\n") and "| `num_concurrent` | `8` | requests in flight" in out
    with pytest.raises(SystemExit):
        print_arguments(["hf-audo"])
    print_arguments([])  # no name: every model's
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("## ")] == [f"## {name}" for name in MODELS]


def test_reading_refuses_an_undeclared_name_a_credential_and_a_bad_value():
    args = (Arg("beam", 5, "beam width", read=whole()), Arg("mode", "a", "the mode", read=choice("a", "b")))
    assert read_arguments("m", args, {"beam": "3"}) == {"beam": 3, "mode": "a"}
    with pytest.raises(ModelArgsError, match=r"m: unknown model_args bean \(did you mean beam\?\)\. Accepted: beam, mode"):
        read_arguments("m", args, {"bean": 3})
    with pytest.raises(ValueError, match="m: model_args api_key= holds a credential"):
        read_arguments("m", args, {"api_key": "x"})
    with pytest.raises(ModelArgsError, match=r"m: mode must be one of \('a', 'b'\), got 'c'"):
        read_arguments("m", args, {"mode": "c"})
    assert read_arguments("m", args, {"parallelize": True}, ignored=("parallelize",)) == {"beam": 5, "mode": "a"}


@pytest.mark.parametrize("name, given, message", [
    ("hf-audio", {"pretrained": "x", "dtyp": "float32"}, r"unknown model_args dtyp \(did you mean dtype\?\)"),
    ("hf-audio", {"pretrained": "x", "chat_template": "maybe"}, "chat_template must be true or false"),
    ("hf-audio", {"pretrained": "x", "max_audio_seconds": 0}, "max_audio_seconds must be positive"),
    ("openai-audio", {"model": "m", "num_concurrent": 0}, "num_concurrent must be at least 1"),
    ("openai-audio", {"base_url": "http://h/v1"}, "name the served model with model="),
    ("cascade", {"num_concurrent": 4}, "num_concurrent are for llm=openai"),
])
def test_each_wrapper_reads_its_declarations_before_anything_loads(name, given, message):
    with pytest.raises(ValueError, match=message):
        wrapper_class(name).read_settings(given)
