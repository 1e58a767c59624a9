"""Model wrappers, one file per backend, and what they share (installed as ``lm_eval_audio.model_wrappers``).

Registered with lm-eval 0.4.13 by the startup hook's registry patch (``MODELS`` in ``registry.py``; taken out again
if the plugin disables itself). lm-eval 0.4.13 reads no entry points: the ``lm_eval.models`` entry points in
setup.cfg are there for releases that read them, and register nothing today.
"""
