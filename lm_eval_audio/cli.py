"""``lm-eval-audio`` / ``python -m lm_eval_audio``: lm-eval's CLI, plus our own subcommands.

Anything that is not one of ours goes to lm-eval unchanged, so
``lm-eval-audio run --model hf-audio ...``, ``lm-eval-audio ls tasks`` and the bare
``lm-eval-audio --model hf-audio ...`` behave exactly as with ``lm_eval``.
"""

from __future__ import annotations

import sys

# name -> ("module:function", what it does); each function takes argv (the arguments after the name).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "judge": ("lm_eval_audio.analysis.rejudge:main",
              "score a --predict_only run's samples with an LLM judge, into a results file of its own"),
    "serve-judge": ("lm_eval_audio.judges.local_server:main",
                    "serve a local model as an OpenAI-compatible judge endpoint"),
    "diagnose": ("lm_eval_audio.analysis.diagnose:main",
                 "text prior and fragment reliance: one model under full, no-audio and fragment conditions"),
    "mix": ("lm_eval_audio.audio.mixing:main", "mix two clips at a set loudness difference and offset"),
    "download": ("lm_eval_audio.harness.data_download:main",
                 "fetch ahead the Hub data named tasks read (--dry_run: list files and sizes)"),
    "report": ("lm_eval_audio.analysis.report:main",
               "tables, bootstrap intervals, a paired test and plots from results files"),
    "model-args": ("lm_eval_audio.model_wrappers.registry:print_arguments",
                   "the --model_args of hf-audio, openai-audio and cascade: defaults and what each does"),
}


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    lines = ["usage: lm-eval-audio SUBCOMMAND [--help] ...   or   lm-eval-audio [lm_eval's options]", "",
             "subcommands (each takes --help):"]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in SUBCOMMANDS.items()]
    from lm_eval_audio.benchmarks import registry

    benchmarks = ", ".join(f"{b.name} ({b.key}_*)" for b in registry.all_benchmarks())
    lines += ["", "Anything else is lm_eval's command line, with the plugin's models (hf-audio, openai-audio, cascade) "
              f"and tasks ({benchmarks}). lm_eval's own help follows.", "", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv not in (["--help"], ["-h"]):
        from lm_eval_audio.harness import install_check

        install_check.exit_if_broken("lm-eval-audio")  # a torchaudio built for another torch: one line, not a traceback
    if argv and argv[0] in SUBCOMMANDS:
        import importlib

        module, _, func = SUBCOMMANDS[argv[0]][0].partition(":")
        getattr(importlib.import_module(module), func)(argv[1:])
        return
    if argv in (["--help"], ["-h"]):
        sys.stdout.write(usage())
        sys.stdout.flush()

    from lm_eval_audio.harness import startup

    # Idempotent. Covers interpreters that did not run the .pth (python -S, a zipapp).
    startup.install()
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm-eval-audio", *argv]
    cli_evaluate()
