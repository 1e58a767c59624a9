"""Hooks for the MMAR tasks: data (``data``: MMAR's layout, read by ``lm_eval_audio.benchmarks.choice_layout``),
the paper's prompt and both scorings (``lm_eval_audio.judges.choice_scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.metrics.choice_matching import mcq_prompt
from lm_eval_audio.judges.choice_scoring import (  # noqa: F401  (named by the YAMLs)
    glitters_acc,
    glitters_judge_failures,
    official_acc,
    process_mcq,
)
from lm_eval_audio.tasks.mmar.data import LAYOUT


@loader
def load(where=None, sample=False, *, notes, **metadata):
    return choice_layout.load_docs(LAYOUT, where, sample, metadata, notes=notes)


def prompt(doc):
    return mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
