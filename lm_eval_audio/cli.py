"""``lm-eval-audio`` / ``python -m lm_eval_audio``: lm-eval's CLI, plus our own subcommands.

Anything that is not one of ours goes to lm-eval unchanged, so
``lm-eval-audio run --model hf-audio ...``, ``lm-eval-audio ls tasks`` and the bare
``lm-eval-audio --model hf-audio ...`` behave exactly as with ``lm_eval``.
"""

from __future__ import annotations

import sys

# name -> "module:function"; each takes argv (the arguments after the name).
SUBCOMMANDS: dict[str, str] = {
    "judge": "lm_eval_audio.analysis.rejudge:main",
    "serve-judge": "lm_eval_audio.judges.local_server:main",
    "diagnose": "lm_eval_audio.analysis.diagnose:main",
    "mix": "lm_eval_audio.audio.mixing:main",
    "report": "lm_eval_audio.analysis.report:main",
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in SUBCOMMANDS:
        import importlib

        module, _, func = SUBCOMMANDS[argv[0]].partition(":")
        getattr(importlib.import_module(module), func)(argv[1:])
        return

    from lm_eval_audio.harness import startup

    # Idempotent. Covers interpreters that did not run the .pth (python -S, a zipapp).
    startup.install()
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm-eval-audio", *argv]
    cli_evaluate()
