"""The plugin's YAML tasks (installed as ``lm_eval_audio.tasks``).

A package only so that editable installs can map it; lm-eval reads the YAML files,
found through ``lm_eval_audio.harness.startup.tasks_dir``.
"""
