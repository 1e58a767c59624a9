"""``python -m lm_eval_audio.testing.tiny_models OUT_DIR [--arch ...]``."""

from lm_eval_audio.testing.tiny_models import main

main()
