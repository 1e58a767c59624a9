"""Hooks for the MMAR tasks: data (``data``: MMAR's layout, read by ``lm_eval_audio.benchmarks.choice_layout``),
the paper's prompt and both scorings (``lm_eval_audio.judges.choice_scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.metrics.choice_matching import mcq_prompt
from lm_eval_audio.judges.choice_scoring import (  # noqa: F401  (named by the YAMLs)
    glitters_acc,
    glitters_judge_failures,
    official_acc,
    process_mcq,
)
from lm_eval_audio.tasks.mmar.data import AUTHORS_PROMPTS, LAYOUT


@loader
def load(where=None, sample=False, *, notes, **metadata):
    docs = choice_layout.load_docs(LAYOUT, where, sample, metadata, notes=notes)
    return author_prompts.choice_prompts(docs, notes, choice_layout.label(LAYOUT, dict(where or {})), metadata,
                                        AUTHORS_PROMPTS, "MMAR")


def prompt(doc):
    """The paper's prompt, or the model authors' where ``prompts=authors`` gave the document one."""
    return doc.get("prompt") or mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
