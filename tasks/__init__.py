"""The plugin's YAML tasks (installed as ``lm_eval_audio.tasks``).

A package so that editable installs can map it; lm-eval reads the YAML files in
:func:`folder`, which the startup hook puts on lm-eval's task search path.
"""

import os


def folder() -> str:
    """The folder holding the YAML tasks: ``lm_eval_audio/tasks`` in a wheel, the repository's
    ``tasks/`` in an editable install (this file is in it either way)."""
    return os.path.dirname(os.path.abspath(__file__))
