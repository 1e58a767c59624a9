"""Model wrappers, one file per backend, and what they share (installed as ``lm_eval_audio.model_wrappers``).

Registered with lm-eval by the startup hook (``MODELS`` in ``registry.py``) and by the
``lm_eval.models`` entry points in setup.cfg.
"""
