"""What the process has said once: a situation that stays the same from one run to the next (``diagnose`` runs each
condition as a run of its own, and a missing optional tool stays missing) is logged the first time only.

A command (``lm_eval``, ``lm-eval-audio diagnose``) starts with :func:`new_command`: one process runs one command,
except in the tests, which run several in one."""

from __future__ import annotations

_said: set = set()


def first_time_in_process(key) -> bool:
    """True the first time ``key`` is asked about in this process (or since the command began)."""
    if key in _said:
        return False
    _said.add(key)
    return True


def new_command() -> None:
    """A command starts: what was said once in its process is said again."""
    _said.clear()
