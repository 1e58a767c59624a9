"""Hooks for the MMAR tasks: data (``data``: MMAR's layout, read by ``lm_eval_audio.benchmarks.choice_layout``),
the paper's prompt and both scorings (``lm_eval_audio.judges.choice_scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.metrics.choice_matching import mcq_prompt
from lm_eval_audio.judges.choice_scoring import (  # noqa: F401  (named by the YAMLs)
    glitters_acc,
    glitters_judge_failures,
    official_acc,
    process_mcq,
)
from lm_eval_audio.tasks.mmar.data import LAYOUT


def load(where=None, sample=False, **metadata):
    root = choice_layout.sample_root(LAYOUT) if sample else choice_layout.data_root(LAYOUT, metadata)
    where = dict(where or {})
    return choice_layout.dataset(choice_layout.load_items(LAYOUT, root, where, choice_layout.label(LAYOUT, where)))


def prompt(doc):
    return mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
