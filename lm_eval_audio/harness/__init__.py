"""The lm-eval seam: the startup hook, the checked patches of lm-eval, the judge preflight."""
