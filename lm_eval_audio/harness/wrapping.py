"""What every patch of lm-eval shares: replacing an lm-eval callable once, stepping aside when the plugin is off,
and telling our tasks from lm-eval's own."""

from __future__ import annotations

import functools

from lm_eval_audio.benchmarks.registry import our_task_names
from lm_eval_audio.harness.status import active


def wrap(owner, name: str, make) -> None:
    """Replace ``owner.name`` by ``make(original)``, once; the wrapper steps aside (calls the
    original) once the plugin is disabled."""
    import inspect

    original = getattr(owner, name)  # a classmethod comes bound to its class, a staticmethod as its function
    if getattr(original, "_lm_eval_audio", False):
        return
    wrapper = make(original)

    @functools.wraps(original)
    def guarded(*args, **kwargs):
        return (wrapper if active() else original)(*args, **kwargs)

    guarded._lm_eval_audio = True
    bound_to_class = isinstance(inspect.getattr_static(owner, name, None), (staticmethod, classmethod))
    setattr(owner, name, staticmethod(guarded) if bound_to_class else guarded)


def is_our_task(task) -> bool:
    name = getattr(task, "task_name", None) or getattr(getattr(task, "config", None), "task", None)
    return isinstance(name, str) and name in our_task_names()
