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


def active() -> bool:
    return not _disabled


def disable(reason: str) -> None:
    """Step aside for the rest of the process, with one warning."""
    if _disabled:
        return
    _disabled.append(reason)
    import logging

    version = getattr(sys.modules.get("lm_eval"), "__version__", "unknown")
    logging.getLogger("lm_eval.audio").warning(
        "lm-eval-audio is disabled: %s (installed lm-eval %s; this lm-eval-audio supports lm-eval%s). lm-eval runs "
        "without the plugin: its models (hf-audio, openai-audio, cascade) and tasks are not available. Install a "
        "supported lm-eval (pip install 'lm-eval%s') or an lm-eval-audio that supports yours",
        reason, version, SUPPORTED_LM_EVAL, SUPPORTED_LM_EVAL,
    )


