"""Hooks for the MMAU tasks: data (``data``: MMAU's layouts, read by ``lm_eval_audio.benchmarks.choice_layout``),
the paper's prompt and both scorings (``lm_eval_audio.judges.choice_scoring``); this file only connects them to
lm-eval's task fields."""

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
from lm_eval_audio.tasks.mmau import data, submissions


@loader
def load(split="test-mini", where=None, sample=False, *, notes, **metadata):
    layout = data.TEST if split == "test" else data.TEST_MINI
    docs = choice_layout.load_docs(layout, where, sample, metadata, notes=notes)
    return author_prompts.choice_prompts(docs, notes, choice_layout.label(layout, dict(where or {})), metadata,
                                        data.AUTHORS_PROMPTS, "MMAU")


def prompt(doc):
    """The paper's prompt, or the model authors' where ``prompts=authors`` gave the document one."""
    return doc.get("prompt") or mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)


def process_prediction(doc, results):
    """MMAU test: answers are withheld, so the response is kept for the official evaluation, not scored."""
    return {"predictions_written": submissions.entry(doc, results[0], "model_output"),
            "unanswered": float(not results[0].strip())}


def predictions_written(items, task):
    return submissions.collect(items, task)
