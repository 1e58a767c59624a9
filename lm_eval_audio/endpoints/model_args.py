"""Reading ``--model_args`` values (and our commands' ``--metadata``): each wrong one is an error that names the
argument.

lm-eval hands model arguments over as the strings (or the numbers and booleans it guessed)
that followed ``key=``; a typo such as ``check_model=flase`` must not quietly mean true.
"""

from __future__ import annotations

import os
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


class ModelArgsError(ValueError):
    """A ``--model_args`` entry the model does not take, or a value it cannot read: the message names it."""
# Never accepted in model_args, which lm-eval copies into the results: argument name -> the
# environment variable to set instead.
KEY_ARGUMENTS = {
    "api_key": "OPENAI_API_KEY", "key": "OPENAI_API_KEY", "openai_api_key": "OPENAI_API_KEY",
    "judge_api_key": "OPENAI_API_KEY", "llm_api_key": "OPENAI_API_KEY",
    "token": "HF_TOKEN", "hf_token": "HF_TOKEN", "use_auth_token": "HF_TOKEN",
}
# Environment variables whose values must not turn up in model_args either.
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
# The shapes of OpenAI, Hugging Face and Google keys, whatever argument carries them.
KEY_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{20,}|AIza[0-9A-Za-z_\-]{30,})")


def metadata_json(text: str) -> dict:
    """An argparse ``type`` for the ``--metadata`` of our own commands (download, judge, diagnose), read as
    lm_eval reads its own: a JSON object. argparse turns the error into one line naming the option."""
    import argparse
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, got {text!r}")
    return value


# prompts=: the benchmark's own prompts, or those the model's authors published for it (the task loaders read it from
# the run's metadata, where lm-eval puts every model argument).
PROMPT_SOURCES = ("benchmark", "authors")


def as_bool(who: str, name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ModelArgsError(f"{who}: {name} must be true or false, got {value!r}")


def one_of(who: str, name: str, value, choices):
    """``value``, which must be one of ``choices``."""
    if value not in choices:
        raise ModelArgsError(f"{who}: {name} must be one of {choices}, got {value!r}")
    return value


def number(who: str, name: str, value, kind=int, minimum: float = 1):
    """``value`` as ``kind``, at least ``minimum``."""
    try:
        result = kind(value)
        if kind is int and float(value) != result:
            raise ValueError
    except (TypeError, ValueError):
        raise ModelArgsError(f"{who}: {name} must be {'an integer' if kind is int else 'a number'}, got {value!r}") from None
    if result < minimum:
        raise ModelArgsError(f"{who}: {name} must be at least {minimum:g}, got {value!r}")
    return result


def optional_number(who: str, name: str, value, kind=int, minimum: float = 1):
    """``value`` as :func:`number` reads it, or None where it was not given."""
    return None if value is None else number(who, name, value, kind, minimum)


# Passed by lm-eval to every model, whatever the user wrote.
_FROM_LM_EVAL = {"batch_size", "max_batch_size", "device"}


class CredentialError(ValueError):
    """A key or token among the arguments that lm-eval would log and write into the results."""


def refuse_secrets(who: str, given: dict, key_env: str | None = None, where: str = "model_args") -> None:
    """No credential in model arguments: not under a key's name, not shaped like a key, and not
    the value of a key variable of the environment (``key_env`` too). The error names the argument,
    never the value, and the variable to use instead."""
    variables = [v for v in (key_env, *KEY_VARIABLES) if v]
    secrets = {os.environ[v]: v for v in variables if len(os.environ.get(v) or "") >= 8}
    for name, value in given.items():
        text = "" if value is None else str(value)
        if name in KEY_ARGUMENTS:
            env = KEY_ARGUMENTS[name]
        elif not text:
            continue
        elif any(secret in text for secret in secrets):
            env = next(v for secret, v in secrets.items() if secret in text)
        elif KEY_SHAPE.search(text):
            env = "HF_TOKEN" if "hf_" in text else "OPENAI_API_KEY"
        else:
            continue
        other = " (or name another variable with api_key_env=)" if env == "OPENAI_API_KEY" else ""
        raise CredentialError(
            f"{who}: {where} {name}= holds a credential, and lm-eval copies {where} into the results JSON; "
            f"keys are read from the environment only: export {env}=...{other} and drop it from --{where}"
        )


@dataclass(frozen=True)
class Arg:
    """One model argument, declared once: its name, its default, what it does (``help``; ``shown_default``: the
    default as a user reads it, where the value itself says little, e.g. "from config.json"), and how a given value
    is read and checked (``read(who, name, value)``; None: taken as given). A wrapper's ``ARGS`` are the arguments it
    takes: its settings, the unknown-name and credential checks, ``lm-eval-audio model-args`` and the argument
    tables in docs/MODELS.md all come from them, and the settings the results record (``recorded_as``)."""

    name: str
    default: Any = None
    help: str = ""
    shown_default: str | None = None
    read: Callable[[str, str, Any], Any] | None = None
    listed: bool = True  # False: lm-eval's own (--batch_size ...), passed to every model, documented by lm-eval
    recorded_as: str | None = None  # its key in the results' lm_eval_audio_model, where the results record it

    def value(self, who: str, given: dict):
        value = given.get(self.name, self.default)
        return value if self.read is None else self.read(who, self.name, value)

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        return "none" if self.default is None else f"`{self.default}`"


# Readers for Arg.read: (who, name, value) -> the value read, or an error naming the argument.
flag = as_bool


def choice(*choices) -> Callable:
    return lambda who, name, value: one_of(who, name, value, choices)


def whole(minimum: int = 1, optional: bool = False) -> Callable:
    read = optional_number if optional else number
    return lambda who, name, value: read(who, name, value, int, minimum)


def real(minimum: float, optional: bool = False) -> Callable:
    read = optional_number if optional else number
    return lambda who, name, value: read(who, name, value, float, minimum)


class Settings(types.SimpleNamespace):
    """A wrapper's arguments as read (:func:`read_arguments`), as attributes; :meth:`replace` gives a copy with some
    changed (the same model under another ``audio=`` condition)."""

    def replace(self, **changes) -> Settings:
        return type(self)(**{**vars(self), **changes})


def read_arguments(who: str, args: tuple[Arg, ...], given: dict, ignored: tuple[str, ...] = ()) -> dict:
    """Every argument of ``args`` read from ``given`` (what the wrapper received: its default where one is not
    given). A credential among them, or a name ``args`` does not declare, is an error; names in ``ignored`` (set by
    some lm-eval front ends) are let through, but checked for credentials. The endpoint's key variable
    (``api_key_env=`` or ``llm_api_key_env=``, whichever is given) is checked too."""
    refuse_secrets(who, given, given.get("api_key_env") or given.get("llm_api_key_env"))
    declared = [arg.name for arg in args]
    unknown = sorted(k for k in given if k not in declared and k not in ignored)
    if unknown:
        import difflib

        accepted = [name for name in declared if name not in _FROM_LM_EVAL]
        guesses = [f"{name} (did you mean {close[0]}?)" if (close := difflib.get_close_matches(name, accepted, 1, 0.6))
                   else name for name in unknown]
        raise ModelArgsError(f"{who}: unknown model_args {', '.join(guesses)}. Accepted: {', '.join(accepted)}")
    return {arg.name: arg.value(who, given) for arg in args}


def argument_table(args: tuple[Arg, ...]) -> str:
    """The arguments as a Markdown table (docs/MODELS.md holds one per wrapper; ``lm-eval-audio model-args``)."""
    rows = ["| argument | default | what it does |", "|---|---|---|"]
    rows += [f"| `{arg.name}` | {arg.default_text()} | {arg.help} |" for arg in args if arg.listed]
    return "\n".join(rows)
