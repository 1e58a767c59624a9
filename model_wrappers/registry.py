"""The plugin's models as lm-eval knows them: registry names, and the results folder each run gets.

Kept free of torch and of the wrappers themselves, since the startup hook reads it in every
interpreter of the environment.
"""

from __future__ import annotations

# lm-eval model name -> "module:Class", registered as lazy placeholders.
MODELS = {
    "hf-audio": "lm_eval_audio.model_wrappers.hf_audio:HFAudioLM",
    "openai-audio": "lm_eval_audio.model_wrappers.openai_audio:OpenAIAudioLM",
    "cascade": "lm_eval_audio.model_wrappers.cascade:CascadeLM",
}


def is_ours(lm) -> bool:
    """Whether a model object is the plugin's (its wrappers, the judge command's replay model); lm-eval's own are left alone."""
    if type(lm).__name__ in ("CachingLM", "AudioCachingLM"):  # --use_cache: the wrapper holds the model as .lm
        lm = vars(lm).get("lm")
    return type(lm).__module__.startswith("lm_eval_audio.")


def results_folder_name(default_name: str, results_name: str | None, condition) -> str:
    """The results folder's name: the model's own ``results_name`` where lm-eval's naming gets it wrong (a
    ``cascade`` run's, after its recognizer and LLM), else lm-eval's ``default_name``; an ablated run's with its
    condition (the model's ``audio_condition``), ``<name>__audio-none``, ``<name>__audio-fragment-4-2``."""
    name = results_name or default_name
    if condition is not None and condition.kind != "full":
        name = f"{name}__audio-{condition.label.replace(':', '-')}"
    return name


def wrapper_class(name: str):
    """The wrapper class registered as ``name`` (imported: torch and transformers with it)."""
    import importlib

    module, _, attr = MODELS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def print_arguments(argv: list[str]) -> None:
    """``lm-eval-audio model-args [MODEL ...]``: each model's ``--model_args``, their defaults and what they do, from
    the arguments the wrapper declares (the tables in docs/MODELS.md are the same)."""
    import argparse

    parser = argparse.ArgumentParser(prog="lm-eval-audio model-args",
                                     description="The --model_args each of the plugin's models takes.")
    parser.add_argument("models", nargs="*", metavar="MODEL", help=f"one of {', '.join(MODELS)} (default: all)")
    # (no choices=: argparse checks an empty list of a nargs="*" positional against them, and refuses it)
    names = parser.parse_args(argv).models
    unknown = [name for name in names if name not in MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]!r}: one of {', '.join(MODELS)}")
    for name in names or list(MODELS):
        print(f"## {name}\n\n{wrapper_class(name).arguments_help()}\n")
