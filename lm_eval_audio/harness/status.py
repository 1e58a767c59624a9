"""Whether the plugin is active in this process, and how it steps aside.

Kept apart from the startup hook and the patches, which both read it: a patch that finds the
plugin disabled calls lm-eval's own function instead.
"""

from __future__ import annotations

import sys

# The lm-eval releases whose patch targets this version was checked against (setup.cfg
# declares the same range; tests/test_harness_targets.py checks they agree).
SUPPORTED_LM_EVAL = ">=0.4.13,<0.4.14"

_disabled: list[str] = []  # why the plugin stepped aside (empty: active)
_undo: list = []  # what to take back from lm-eval when the plugin steps aside (our models from its registry)


def active() -> bool:
    return not _disabled


def on_disable(undo) -> None:
    """Call ``undo()`` when the plugin steps aside (at once if it has): for what a patch put into lm-eval beyond
    wrapping a function, which a wrapper cannot take back by stepping aside."""
    if _disabled:
        undo()
    else:
        _undo.append(undo)


def disable(reason: str) -> None:
    """Step aside for the rest of the process, with one warning; our models leave lm-eval's registry."""
    if _disabled:
        return
    _disabled.append(reason)
    while _undo:
        _undo.pop()()
    import logging

    version = getattr(sys.modules.get("lm_eval"), "__version__", "unknown")
    logging.getLogger("lm_eval.audio").warning(
        "lm-eval-audio is disabled: %s (installed lm-eval %s; this lm-eval-audio supports lm-eval%s). lm-eval runs "
        "without the plugin: its models (hf-audio, openai-audio, cascade) and tasks are not available. Install a "
        "supported lm-eval (pip install 'lm-eval%s') or an lm-eval-audio that supports yours",
        reason, version, SUPPORTED_LM_EVAL, SUPPORTED_LM_EVAL,
    )


