"""Model wrappers, one file per backend (installed as ``lm_eval_audio.model_wrappers``).

Registered with lm-eval by ``lm_eval_audio.harness.startup`` (see ``MODELS`` there) and by the
``lm_eval.models`` entry points in setup.cfg.
"""
