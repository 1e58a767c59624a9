"""Hooks for the FSD50K task: data and prompt (``data``), the reading and the mAP (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio, doc_to_text  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401
from lm_eval_audio.tasks.fsd50k import data
from lm_eval_audio.tasks.fsd50k.scoring import mean_ap, process_results  # noqa: F401


@loader
def load(sample=False, *, notes, **metadata):
    return data.load_docs(metadata, sample, notes=notes)
