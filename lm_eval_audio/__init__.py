"""lm-eval-audio: audio-language model evaluation on top of lm-evaluation-harness.

Kept empty on purpose: ``lm_eval_audio.pth`` imports this package in every Python
process of the environment (see ``lm_eval_audio.harness.startup``).
"""

__version__ = "0.1.0"
