"""Hooks for the AISHELL-2 task: data and prompt (``data``),
the error rate (``lm_eval_audio.metrics.speech_to_text``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio, doc_to_text  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401
from lm_eval_audio.metrics.speech_to_text import error_rate, process_results  # noqa: F401
from lm_eval_audio.tasks.aishell2 import data


@loader
def load(sample=False, *, notes, **metadata):
    return data.load_docs(metadata, sample, notes=notes)
