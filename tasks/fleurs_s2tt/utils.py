"""Hooks for the FLEURS speech translation tasks: data and prompt (``data``), corpus BLEU
(``lm_eval_audio.metrics.speech_to_text``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio, doc_to_text  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401
from lm_eval_audio.metrics.speech_to_text import bleu, process_results  # noqa: F401
from lm_eval_audio.tasks.fleurs_s2tt import data


@loader
def load(direction=None, sample=False, *, notes, **metadata):
    return data.load_docs(direction, metadata, sample, notes=notes)
