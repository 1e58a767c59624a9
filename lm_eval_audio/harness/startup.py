"""Startup hook: makes plain ``lm_eval`` see the plugin's models and tasks.

lm-eval 0.4.13 reads no plugin entry points, so ``lm_eval_audio.pth`` (installed next
to the package in site-packages) calls :func:`install` in every interpreter of the
environment. That is why this module imports nothing heavy: it only puts a finder on
``sys.meta_path`` that waits for the few lm-eval modules the plugin extends
(:data:`lm_eval_audio.harness.patches.PATCHES`), and patches each one right after lm-eval
has loaded it.

Before it patches a module it checks every target there (the attribute, and the parameters
the patch relies on; :mod:`lm_eval_audio.harness.targets`). A missing or changed target, or
any error while patching, disables the whole plugin with one warning that names the target
and the supported lm-eval version: patches already in place step aside, and lm-eval keeps
working as if the plugin were not installed. Each patch acts only on the plugin's own
models, tasks and audio references, and leaves every other object as lm-eval treats it.

Set ``LM_EVAL_AUDIO_DISABLE_HOOK=1`` to switch all of this off.
"""

from __future__ import annotations

import os
import sys

from lm_eval_audio.harness import status

# No importlib.abc: importing it pulls in importlib.resources, tempfile and typing (~8 ms
# at every interpreter start). The import system only needs the methods below.

# The modules the plugin extends, each patched right after lm-eval loads it.
WATCHED = (
    "lm_eval._cli.run",
    "lm_eval.api.registry",
    "lm_eval.tasks.manager",
    "lm_eval.api.model",
    "lm_eval.tasks._factory",
    "lm_eval.evaluator",
    "lm_eval.loggers.evaluation_tracker",
    "lm_eval.utils",
)

def _on_import(module) -> None:
    if not status.active():
        return
    try:
        from lm_eval_audio.harness import patches, targets

        problems = targets.problems(module.__name__, module)
        if problems:
            status.disable(problems[0])
            return
        patches.PATCHES[module.__name__](module)
    except Exception as e:  # never break lm-eval's own import
        status.disable(f"patching {module.__name__} failed ({type(e).__name__}: {e})")


class _RunAfterExec:
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _on_import(module)

    def __getattr__(self, name):  # get_source, get_code, ... for tracebacks and pdb
        return getattr(self._loader, name)


class _LmEvalWatcher:
    """Finds nothing itself; wraps the real loader of the few modules we act on."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in WATCHED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RunAfterExec(spec.loader)
                return spec
        return None


def install() -> None:
    """Called from ``lm_eval_audio.pth`` at interpreter start."""
    if os.environ.get("LM_EVAL_AUDIO_DISABLE_HOOK"):
        return
    if any(isinstance(f, _LmEvalWatcher) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _LmEvalWatcher())
    # lm-eval modules imported before this call (the CLI calling install() again) are
    # patched directly; each patch is applied once.
    for name in WATCHED:
        module = sys.modules.get(name)
        if module is not None:
            _on_import(module)
