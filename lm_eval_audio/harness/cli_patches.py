"""The command line (``lm_eval._cli.run``): the run's command as lm-eval parses it, checked before the model loads, and
the plugin's errors as one line and exit status 2; the module docstring of ``lm_eval_audio.harness.patches`` says
what it does and why."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass, field

from lm_eval_audio.endpoints.model_args import refuse_secrets
from lm_eval_audio.harness import targets
from lm_eval_audio.model_wrappers.registry import MODELS
from lm_eval_audio.harness.wrapping import wrap
from lm_eval_audio.storage import run_state


# --- lm_eval._cli.run and lm_eval.config.evaluate_config -----------------------------------


def _raised_by_plugin(e: BaseException) -> bool:
    """The plugin's own errors (bad data, a missing judge, an unreadable clip, a wrong model argument) name
    the file or setting and the fix: its exception classes, and a ValueError raised in its own code."""
    if type(e).__module__.startswith("lm_eval_audio"):
        return True
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return (isinstance(e, ValueError) and tb is not None
            and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("lm_eval_audio"))


@dataclass(frozen=True)
class RunCommand:
    """What ``lm_eval run`` was given, as lm-eval parsed it: read off its ``EvaluatorConfig`` (``--config`` FILE
    merged, ``-t``/``--tasks a b``/``a,b``, ``--metadata`` as JSON or ``key=value`` words, ``-M``), or, before that
    is built, off argparse's namespace (the same field names). Every way of starting a run (the ``lm_eval``
    script, ``python -m lm_eval``, ``accelerate launch -m lm_eval``, ``torchrun -m lm_eval``, ``lm-eval-audio``)
    reaches lm-eval's ``Run._execute``, so every one gets the same checks."""

    model: str | None = None
    tasks: tuple[str, ...] = ()
    model_args: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)  # --metadata alone; the tasks get model_args | metadata
    include_path: str | None = None
    limit: float | None = None
    use_cache: str | None = None
    predict_only: bool = False
    device: str | None = None  # only where the user named one (lm-eval's own default is cuda:0)
    output_path: str | None = None

    @classmethod
    def of(cls, parsed, device_named: bool = True) -> RunCommand:
        tasks = getattr(parsed, "tasks", None) or ()
        names = tasks.split(",") if isinstance(tasks, str) else [
            part for task in tasks if isinstance(task, str) for part in task.split(",")]
        model_args = _as_dict(getattr(parsed, "model_args", None))
        merged = _as_dict(getattr(parsed, "metadata", None))
        # EvaluatorConfig holds model_args | metadata under metadata: what --metadata alone gave is told apart
        metadata = {k: v for k, v in merged.items() if k not in model_args or model_args[k] is not v}
        return cls(model=getattr(parsed, "model", None), tasks=tuple(n.strip() for n in names if n.strip()),
                   model_args=model_args, metadata=metadata, include_path=getattr(parsed, "include_path", None),
                   limit=getattr(parsed, "limit", None), use_cache=getattr(parsed, "use_cache", None),
                   predict_only=bool(getattr(parsed, "predict_only", False)),
                   device=getattr(parsed, "device", None) if device_named else None,
                   output_path=getattr(parsed, "output_path", None) or None)

    @property
    def task_metadata(self) -> dict:
        """What each task's configuration gets as its metadata, as lm-eval merges it."""
        return {**self.model_args, **self.metadata}

    def runs_ours(self) -> bool:
        from lm_eval_audio.benchmarks import registry

        return self.model in MODELS or bool(registry.by_benchmark(list(self.tasks), self.include_path or ()))


def _as_dict(value) -> dict:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, str) and value.strip():
        from lm_eval.utils import simple_parse_args_string

        return simple_parse_args_string(value)
    return {}


def fail_after_the_run(error: Exception) -> bool:
    """Make the command under way fail with ``error`` once lm-eval has finished it (its table printed), rather than
    at once; False where no ``lm_eval`` command is under way (``simple_evaluate`` called from Python, ``diagnose``),
    for the caller to raise."""
    run = run_state.current()
    if run.command is None:
        return False
    run.failure = error
    return True


def current_command() -> RunCommand:
    """The ``lm_eval`` command under way (its run's), or an empty one."""
    return run_state.current().command or RunCommand()


def _unknown_tasks_message(specs: list[str], include_path: str | None) -> str:
    import difflib

    from lm_eval.tasks import TaskManager

    names = TaskManager(include_path=include_path).all_tasks
    parts = []
    for spec in specs:
        close = difflib.get_close_matches(spec, names, 5, 0.6)
        parts.append(f"unknown task {spec!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return "; ".join(parts) + " (`lm_eval ls tasks` lists every task; --include_path adds a folder of YAMLs)"


def _unknown_model_message(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, 3, 0.6)
    return (f"unknown model {name!r}" + (f"; did you mean {', '.join(close)}?" if close else "") +
            f" (the plugin's audio models: {', '.join(MODELS)}; lm-eval's text models include hf, vllm, "
            f"local-chat-completions: {len(known)} names in all)")


def user_error_message(e: BaseException, command: RunCommand | None = None) -> str | None:
    """One line for an error a user can fix, or None for one that needs its traceback (a bug)."""
    command = command or current_command()
    if _raised_by_plugin(e):
        return str(e)
    text = str(e)
    # lm-eval 0.4.13's own messages for the commonest mistakes, with what to do instead
    unknown = re.search(r"Spec '(.+?)' " + re.escape(targets.UNKNOWN_SPEC), text)
    if isinstance(e, KeyError) and unknown:
        return _unknown_tasks_message([unknown.group(1)], command.include_path)
    if isinstance(e, ValueError) and text.startswith(targets.TASKS_NOT_FOUND):
        return _unknown_tasks_message(text.removeprefix(targets.TASKS_NOT_FOUND).split(", "), command.include_path)
    model = re.search(r"model '(.+?)', " + re.escape(targets.UNKNOWN_MODEL) + r"[^:]*: (.*)", text)
    if isinstance(e, ValueError) and model:
        return _unknown_model_message(model.group(1), [n.strip() for n in model.group(2).split(",") if n.strip()])
    if isinstance(e, ValueError) and text == targets.NO_DOCS:
        limit = f" with --limit {command.limit:g}" if command.limit is not None else ""
        return (f"a task has no documents to run{limit}: give --limit N with N of 1 or more (or a fraction above 0), "
                "or leave it out for every document")
    multimodal = re.search(r"Attempted to run tasks: (\[.*?\]) " + re.escape(targets.NOT_MULTIMODAL), text)
    if isinstance(e, ValueError) and multimodal:
        return (f"tasks {multimodal.group(1)} carry audio, and --model {command.model or '?'} reads text only: "
                "use --model hf-audio (a transformers audio LM), cascade (ASR, then a text LLM) or openai-audio "
                "(an OpenAI-compatible endpoint serving an audio model)")
    return None


def check_data_first(command: RunCommand) -> None:
    """The benchmark data a run names are there, its ``--metadata`` holds no credential, and its tasks' judges
    answer, checked before lm-eval loads the model (it builds the tasks, and reads their data, only after): each
    benchmark folder's ``check_data`` gets the run's tasks of its own, so an unset or empty data folder is reported
    at once, not after the model has loaded."""
    from lm_eval_audio.benchmarks import registry

    if not command.tasks:
        return
    # Names of ours only: a misspelled name is lm-eval's "not found", with suggestions.
    ours = registry.by_benchmark(list(command.tasks), command.include_path or ())
    if ours or command.model in MODELS:
        # --metadata goes into every task's configuration in the results: no credential in it (the judge's key is
        # read from the environment). Checked here too, so the user hears it before the model loads.
        refuse_secrets("lm-eval-audio", command.metadata, where="metadata")
    metadata = command.task_metadata
    if ours:  # prompts= is one the loaders follow, and under prompts=authors the model's family is known
        from lm_eval_audio.model_wrappers import author_prompts

        author_prompts.check(metadata)
    configs = registry.task_configs([n for names in ours.values() for n in names], command.include_path or ())
    check_submissions(command, [t for t, c in configs.items() if (c.get("metadata") or {}).get("submission_file")])
    for benchmark, names in ours.items():
        if benchmark.check_data is not None:
            benchmark.check_data(names, metadata)
    if ours and not command.predict_only:  # predictions only: no metric is computed and no judge is asked
        from lm_eval_audio.harness.preflight import check_judges_first
        from lm_eval_audio.metrics import installed_data

        # what their metrics need installed (WordNet, punkt_tab)
        installed_data.check({task: {m.get("metric") for m in config.get("metric_list") or [] if isinstance(m, dict)}
                              for task, config in configs.items()})
        check_judges_first(configs, metadata, command.include_path or ())


def interrupted_message(command: RunCommand | None = None) -> str:
    """What a run stopped with Ctrl-C kept, and how to go on from there."""
    cache = (command or current_command()).use_cache
    if cache:
        kept = (f"the model's answers so far are kept in {cache}_rank*.db: the same command resumes from them, "
                "asking only what was not answered")
    else:
        kept = ("the model's answers so far were not kept (lm-eval keeps them only with --use_cache PATH: add it, "
                "and a run interrupted again resumes where it stopped)")
    return kept + "; the judge's verdicts and the cascade's transcripts are in their caches and are not asked again"


def on_cli_run(module) -> None:
    """``lm_eval._cli.run``: the one place every way of starting a run goes through (``Run._execute``)."""

    def make(original):
        def _execute(args):
            # the command's run (storage.run_state): made once here, as argparse read the command, completed once
            # lm-eval's configuration is parsed (parse_and_check), ended with the command
            run = run_state.Run(command=RunCommand.of(args, device_named=True))
            if run.command.runs_ours():
                from lm_eval_audio.harness import install_check

                install_check.exit_if_broken("lm_eval")  # before a task is built or the model loads
            started = run_state.started(run)
            try:
                with parsed_once(parse_and_check(args, run), args):
                    outcome = original(args)
                if run.failure is not None:
                    raise run.failure
                return outcome
            except KeyboardInterrupt:
                if os.environ.get("LM_EVAL_AUDIO_TRACEBACK") or not current_command().runs_ours():
                    raise  # lm-eval's own models and tasks: as lm-eval leaves it
                sys.stderr.write(f"\nlm_eval: interrupted: {interrupted_message()}\n")
                raise SystemExit(130) from None  # 128 + SIGINT, as a shell reports it
            except Exception as e:
                message = None if os.environ.get("LM_EVAL_AUDIO_TRACEBACK") else user_error_message(e)
                if message is None:
                    raise
                sys.stderr.write(f"lm_eval: error: {message}\n(LM_EVAL_AUDIO_TRACEBACK=1 shows where it was raised)\n")
                raise SystemExit(2) from None
            finally:
                run_state.ended(started)

        return _execute

    wrap(module.Run, "_execute", make)


def parse_and_check(args, run: run_state.Run):
    """The run's configuration as lm-eval parses it from ``args`` (``EvaluatorConfig.from_cli``: every argument form,
    ``--config`` FILE merged), parsed once, here, with lm-eval's own function, and checked before lm-eval builds a
    task or loads the model; returned for lm-eval's ``Run._execute`` to run (:func:`parsed_once`). A thinking budget
    taken from ``--gen_kwargs`` (:func:`budget_from_gen_kwargs`) goes into it."""
    from lm_eval.config.evaluate_config import EvaluatorConfig

    config = EvaluatorConfig.from_cli(args)
    named = getattr(args, "device", None) is not None or config.device != EvaluatorConfig().device
    budget_from_gen_kwargs(config)
    run.command = command = RunCommand.of(config, device_named=named)
    run.asked = command.tasks  # what a data error says to fetch ahead: exactly the tasks named
    if command.runs_ours():  # which tasks speak, before the wrapper's own checks read spoken_answers=
        from lm_eval_audio.benchmarks import registry
        from lm_eval_audio.harness import spoken_preflight

        ours = registry.our_task_names()
        spoken_preflight.check_first(config, registry.task_configs(list(command.tasks), command.include_path or ()),
                                     command, [t for t in command.tasks if t not in ours])
    check_before_the_model_loads(command)
    return config


@contextlib.contextmanager
def parsed_once(config, args):
    """Within it, lm-eval's ``Run._execute`` (which parses ``args`` with ``EvaluatorConfig.from_cli`` first thing)
    gets ``config``, the configuration :func:`parse_and_check` parsed and checked: the command is parsed once, and
    what was checked is what runs. Any other namespace is parsed by lm-eval's own function."""
    cls = type(config)
    own, parse = cls.__dict__.get("from_cli"), cls.from_cli  # the class's own attribute (if any), and the parse

    def from_cli(klass, namespace):
        return config if namespace is args else parse(namespace)

    cls.from_cli = classmethod(from_cli)
    try:
        yield config
    finally:
        if own is None:
            del cls.from_cli
        else:
            cls.from_cli = own


def budget_from_gen_kwargs(config) -> bool:
    """``--gen_kwargs max_gen_toks=N`` is a thinking model's whole budget too: lm-eval sets it on every generation
    task, and hf-audio otherwise raises a task's ``max_gen_toks`` to the family's thinking budget (a task's limit is
    written for an answer alone). Passed on as ``thinking_budget=N`` unless that is given; whether it was."""
    from lm_eval_audio.model_wrappers.registry import wrapper_class

    gen_kwargs = config.gen_kwargs if isinstance(config.gen_kwargs, dict) else {}
    if "max_gen_toks" in gen_kwargs and isinstance(config.model_args, dict) and "thinking_budget" not in \
            config.model_args and config.model in MODELS and wrapper_class(config.model).BUDGET_FROM_GEN_KWARGS:
        config.model_args["thinking_budget"] = gen_kwargs["max_gen_toks"]
        if isinstance(config.metadata, dict):  # the tasks' metadata: model_args | metadata, --metadata's own winning
            config.metadata.setdefault("thinking_budget", gen_kwargs["max_gen_toks"])
        return True
    return False


def check_before_the_model_loads(command: RunCommand) -> None:
    """Everything a run of ours can be told wrong before a weight loads: the output path, the device named, the
    model, the data, the credentials and the judges."""
    if not command.runs_ours():
        return
    check_output_path(command.output_path)
    check_data_first(command)
    if command.model in MODELS:  # the wrapper's own checks: its arguments, the device named, the checkpoint
        from lm_eval_audio.model_wrappers.registry import wrapper_class

        wrapper_class(command.model).check_before_loading(command.model_args, command.device)


def check_submissions(command: RunCommand, tasks: list[str]) -> None:
    """A task whose output is a predictions file for its benchmark's own server (a test set whose answers are
    withheld: ``submission_file: true`` in its metadata) needs ``--output_path``, where the file is written, and its
    aggregation, which ``--predict_only`` replaces."""
    if not tasks:
        return
    named = ", ".join(sorted(tasks))
    if not command.output_path:
        raise OutputPathError(f"{named} write(s) the predictions for the benchmark's own evaluation server beside the "
                              "results, and there is no --output_path: give --output_path FOLDER")
    if command.predict_only:
        raise OutputPathError(f"{named} write(s) the predictions for the benchmark's own evaluation server, which "
                              "--predict_only leaves out (it scores nothing, and asks no judge): run without "
                              "--predict_only")


def check_output_path(output_path: str | None) -> None:
    """``--output_path`` can be written, checked before the model loads: lm-eval writes the results there only at the
    end, and a path it cannot write only earns a warning then, the answers lost. The folder lm-eval will create (a
    ``.json`` path's parent, else the path itself) is tried in its nearest existing parent; nothing is left there."""
    import tempfile

    from lm_eval_audio.harness.tracker_naming import results_folder

    if not output_path:
        return
    existing = results_folder(output_path)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    why = None
    if not existing.is_dir():
        why = f"{existing} is a file, not a folder"
    else:
        try:
            tempfile.TemporaryDirectory(dir=existing, prefix=".lm_eval_audio_probe_").cleanup()
        except OSError as e:
            why = f"{existing} cannot be written ({e.strerror or e})"
    if why:
        raise OutputPathError(f"--output_path {output_path}: {why}; the results would be lost after the run: give a "
                              "folder you can write to")


class OutputPathError(ValueError):
    """``--output_path`` cannot be written (said before the model loads)."""
