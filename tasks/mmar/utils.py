"""Hooks for the MMAR tasks: data (``lm_eval_audio.benchmarks.mmau``, which reads MMAU's and MMAR's layouts),
the paper's prompt and both scorings (``lm_eval_audio.judges.choice_scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import mmau
from lm_eval_audio.benchmarks.choice_matching import mcq_prompt
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.judges.choice_scoring import (  # noqa: F401  (named by the YAMLs)
    glitters_acc,
    glitters_judge_failures,
    official_acc,
    process_mcq,
)


def load(where=None, sample=False, **metadata):
    root = mmau.sample_root(mmau.MMAR) if sample else mmau.data_root(mmau.MMAR, metadata)
    where = dict(where or {})
    return mmau.dataset(mmau.load_items(mmau.MMAR, root, where, mmau.label(mmau.MMAR, where)))


def prompt(doc):
    return mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return mmau.doc_to_audio(doc)
