"""Metrics computed from answers: WER, METEOR, standard errors, counts."""
