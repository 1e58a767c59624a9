"""Hooks for the MMSU tasks: data and prompt (``data``), the official reading and scores (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.tasks.mmsu import data
from lm_eval_audio.tasks.mmsu.scoring import official_acc, process_results  # noqa: F401  (named by the YAMLs)


@loader
def load(where=None, sample=False, *, notes, **metadata):
    return data.load_docs(dict(where or {}), metadata, sample, notes=notes)


def prompt(doc):
    return data.prompt(doc)


def doc_to_audio(doc):
    return data.doc_to_audio(doc)
