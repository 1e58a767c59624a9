"""Tiny random-weight audio-language models + processors, built fully offline, one module per family.

Each ``build_*(out_dir)``, registered in ``BUILDERS`` where it is defined (``common.builds``), saves a model and processor so that
``AutoProcessor.from_pretrained(out_dir)`` and ``AutoModelForMultimodalLM.from_pretrained(out_dir)``
load them back (``common``: the tokenizer and the saving they share).
"""

from __future__ import annotations

import importlib
import pkgutil

from lm_eval_audio.testing.tiny_models.common import BUILDERS, NEEDS

__all__ = ["BUILDERS", "NEEDS", "main"]

# Every family's module, imported once so that each registers its builders (common.builds).
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in ("common", "__main__"):
        importlib.import_module(f"{__name__}.{_module}")


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m lm_eval_audio.testing.tiny_models",
        description="Save a tiny random-weight audio LM (real transformers classes, no download) for smoke runs.",
    )
    parser.add_argument("out_dir")
    parser.add_argument("--arch", choices=sorted(BUILDERS), default="qwen2_audio")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(BUILDERS[args.arch](args.out_dir, seed=args.seed))
