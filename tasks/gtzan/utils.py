"""Hooks for the GTZAN task: data and prompt (``data``), the two readings and the breakdown (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio, doc_to_text  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401
from lm_eval_audio.tasks.gtzan import data
from lm_eval_audio.tasks.gtzan.scoring import acc, label_in_answer_acc, process_results  # noqa: F401


@loader
def load(sample=False, *, notes, **metadata):
    return data.load_docs(metadata, sample, notes=notes)
