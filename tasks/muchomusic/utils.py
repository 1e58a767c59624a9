"""Hooks for the MuChoMusic task: data and prompt (``data``), the official reading and scores (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.benchmarks.speech_sets import doc_to_audio  # noqa: F401  (named by the YAMLs)
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.tasks.muchomusic import data
from lm_eval_audio.tasks.muchomusic.scoring import knowledge_acc, process_results, reasoning_acc  # noqa: F401


@loader
def load(sample=False, *, notes, **metadata):
    return data.load_docs(metadata, sample, notes=notes)


def prompt(doc):
    return data.prompt(doc)

