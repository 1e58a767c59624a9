"""The plugin's models as lm-eval knows them: registry names, and the results folder each run gets.

Kept free of torch and of the wrappers themselves, since the startup hook reads it in every
interpreter of the environment.
"""

from __future__ import annotations

import os

from lm_eval_audio.storage import bundled_models

# lm-eval model name -> "module:Class", registered as lazy placeholders.
MODELS = {
    "hf-audio": "lm_eval_audio.model_wrappers.hf_audio:HFAudioLM",
    "openai-audio": "lm_eval_audio.model_wrappers.openai_audio:OpenAIAudioLM",
    "cascade": "lm_eval_audio.model_wrappers.cascade:CascadeLM",
}


def is_ours(lm) -> bool:
    """Whether a model object is the plugin's (its wrappers, the judge command's replay model); lm-eval's own are left alone."""
    if type(lm).__name__ == "CachingLM":  # --use_cache: lm-eval's wrapper holds the model as .lm
        lm = vars(lm).get("lm")
    return type(lm).__module__.startswith("lm_eval_audio.")


def llm_label(llm_model: str | None) -> str:
    if llm_model in (None, bundled_models.SMOLLM2):
        return "SmolLM2-135M-Instruct"
    return os.path.basename(os.path.normpath(str(llm_model)))


def cascade_results_name(args: dict) -> str:
    """``cascade__<asr>__<llm>``: lm-eval would take the first "model=" it finds, asr_model's
    value, or with no arguments pick one at random."""
    asr = args.get("asr_model")
    asr = os.path.basename(os.path.normpath(str(asr))) if asr else bundled_models.WHISPER_TINY_EN
    return f"cascade__{asr}__{llm_label(args.get('llm_model'))}"


def results_folder_name(model_source: str, model_args, name: str) -> str:
    """The results folder's name: a ``cascade`` run's after its recognizer and LLM; an ablated
    run's with its condition, ``<name>__audio-none``."""
    from lm_eval.utils import simple_parse_args_string

    args = simple_parse_args_string(model_args) if isinstance(model_args, str) else dict(model_args or {})
    if model_source == "cascade":
        name = cascade_results_name(args)
    if "audio" in args:
        from lm_eval_audio.audio.conditions import parse

        condition = parse(args["audio"], model_source)
        if condition.kind != "full":
            name = f"{name}__audio-{condition.label.replace(':', '-')}"
    return name
