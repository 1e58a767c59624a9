"""Hooks for the Clotho captioning task: data and prompt (``data``), the corpus
metrics (``lm_eval_audio.metrics.captioning``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio, doc_to_text  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401
from lm_eval_audio.metrics.captioning import cider_d, meteor_dcase, process_results, spice, spider  # noqa: F401
from lm_eval_audio.tasks.clotho_caption import data


@loader
def load(sample=False, *, notes, **metadata):
    return data.load_docs(metadata, sample, notes=notes)
