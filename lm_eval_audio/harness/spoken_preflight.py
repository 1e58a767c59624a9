"""Which tasks of a run are answered in speech, decided once, and refused where they cannot be.

A task of ours is answered in speech where its metadata says ``spoken_answers: true``: its YAML, ``--metadata``, or
``--model_args`` (which lm-eval merges into every task's metadata, from the command line and from
``simple_evaluate``). The model's own ``spoken_answers=true`` readies it to speak (its talker loaded). The command line checks this before the model loads
(:func:`check_first`: a task whose scoring reads log-likelihoods, a task of lm-eval's own, a model that cannot
speak, no ``--output_path`` for the files, a recognizer or a quality rater that cannot be loaded, a quality metric
named on a task answered in text, each one line), and turns the model's
``spoken_answers=true`` on where a task's YAML asks for speech; the run's ``evaluate`` decides it for the built
tasks (:func:`decide`) and keeps each spoken task's recognizer settings and quality metrics, and the folder beside the results that
spoken answers go in, in the run state, where the wrappers and the task's spoken metrics read them.
"""

from __future__ import annotations

from lm_eval_audio.metrics.spoken_answer import KEY, is_spoken
from lm_eval_audio.storage import run_state


class SpokenAnswersError(ValueError):
    """A run that asks for spoken answers where they cannot be had; the message says what to do."""


def _are(names: list[str]) -> str:
    """``names`` and the verb that agrees with them, for the messages."""
    return f"{', '.join(names)} {'is' if len(names) == 1 else 'are'}"


def _refuse_unreadable(name: str, output_type: str | None) -> None:
    if output_type not in (None, "generate_until"):
        raise SpokenAnswersError(
            f"{name} is scored by the log-likelihood of each option ({output_type}), which a spoken answer has none "
            f"of: it cannot be answered in speech; leave it out of a run with {KEY}=true, or run its generation "
            "variant")


def spoken_settings(configs: dict, metadata: dict) -> dict:
    """task -> its recognizer's settings, for the tasks answered in speech: ``configs`` name -> (its metadata as the
    task reads it, its output_type)."""
    from lm_eval_audio.model_wrappers.answer_recognizer import RecognizerSpec

    spoken = {}
    for name, (task_metadata, output_type) in configs.items():
        merged = {**(task_metadata or {}), **metadata}
        if is_spoken(merged):
            _refuse_unreadable(name, output_type)
            spoken[name] = RecognizerSpec.of(merged)
    return spoken


def quality_settings(configs: dict, spoken: dict, metadata: dict) -> dict:
    """task -> its quality metrics' settings, for the spoken tasks that name quality metrics (``configs``: name ->
    (its metadata, its metric_list)); a task answered in text that names one is refused."""
    from lm_eval_audio.metrics.speech_quality import named
    from lm_eval_audio.model_wrappers.answer_quality import QualitySpec, refuse_on_text

    out = {}
    for name, (task_metadata, metric_list) in configs.items():
        metrics = named(metric_list)
        if metrics and name not in spoken:
            refuse_on_text(name, metrics)
        if metrics:
            out[name] = QualitySpec.of(name, metrics, {**(task_metadata or {}), **metadata})
    return out


def check_first(config, configs: dict, command, not_ours: list[str]) -> None:
    """Before the model loads, from the command line (``config``: lm-eval's parsed configuration, whose model
    arguments may be turned on here; ``configs``: the named tasks of ours, ``registry.task_configs``)."""
    from lm_eval_audio.model_wrappers.registry import MODELS, wrapper_class

    model_args = config.model_args if isinstance(config.model_args, dict) else {}
    if not_ours and is_spoken(command.task_metadata):  # the run asked every task to speak
        raise SpokenAnswersError(f"spoken answers are scored for lm-eval-audio's tasks; {_are(not_ours)} lm-eval's "
                                 f"own: run it without {KEY}=true")
    spoken = spoken_settings({name: (c.get("metadata"), c.get("output_type")) for name, c in configs.items()},
                             command.task_metadata)
    quality = quality_settings({name: (c.get("metadata"), c.get("metric_list")) for name, c in configs.items()},
                               spoken, command.task_metadata)
    if not spoken:
        return
    if command.model not in MODELS or not getattr(wrapper_class(command.model), "SPEAKS", False):
        raise SpokenAnswersError(f"{_are(sorted(spoken))} answered in speech, and --model {command.model} does not "
                                 "speak: use hf-audio (Qwen2.5-Omni, "
                                 "Qwen3-Omni Instruct), openai-audio (a server that returns audio) or cascade (its "
                                 "text-to-speech)")
    if not command.output_path and not model_args.get("answers_dir"):
        raise SpokenAnswersError(f"{', '.join(sorted(spoken))}: spoken answers are saved as audio files beside the "
                                 "results: give --output_path FOLDER")
    for spec in set(spoken.values()):
        spec.check()
    from lm_eval_audio.model_wrappers.answer_quality import unless_the_model_clones

    for spec in set(unless_the_model_clones(quality, wrapper_class(command.model), f"--model {command.model}",
                                            say=False).values()):
        spec.check()
    # A task's YAML asks for speech: the model is readied for it (after lm-eval merged the model arguments into the
    # tasks' metadata, so the run's other tasks stay text).
    model_args[KEY] = command.model_args[KEY] = True


def decide(tasks: dict, lm) -> dict:
    """The run's spoken tasks among ``tasks`` (ours, as built) and their recognizers' settings, kept in the run state;
    a model that is asked to speak for them and cannot is refused here, before any request runs."""
    speaks = bool(getattr(getattr(lm, "settings", None), KEY, False))
    run = run_state.current()
    run.spoken = spoken_settings({name: (getattr(task.config, "metadata", None), getattr(task, "OUTPUT_TYPE", None))
                                  for name, task in tasks.items()}, {})
    from lm_eval_audio.model_wrappers.answer_quality import unless_the_model_clones

    run.quality = unless_the_model_clones(
        quality_settings({name: (getattr(task.config, "metadata", None), task.config.metric_list)
                          for name, task in tasks.items()}, run.spoken, {}),
        lm, f"--model {getattr(run.command, 'model', None) or type(lm).__name__}")
    if run.spoken and not speaks:
        raise SpokenAnswersError(f"{_are(sorted(run.spoken))} answered in speech: build the model with {KEY}=true in "
                                 "its model arguments")
    from lm_eval_audio.harness.tracker_naming import results_folder
    from lm_eval_audio.model_wrappers.answer_recognizer import for_task

    output = getattr(run.command, "output_path", None)  # where lm-eval writes the results, as it reads the path
    run.answers_root = str(results_folder(output) / "spoken_answers") if output else None
    from lm_eval_audio.model_wrappers.answer_quality import raters_for

    for task in run.spoken:  # loaded now: a recognizer or a rater that cannot load stops the run before the model
        for_task(task)       # answers
        raters_for(task)
    return run.spoken
