"""Hooks for the MMAU tasks: data (``lm_eval_audio.benchmarks.mmau``), the paper's prompt and both scorings
(``lm_eval_audio.judges.choice_scoring``); this file only connects them to lm-eval's task fields."""

from __future__ import annotations

from lm_eval_audio.benchmarks import mmau, submissions
from lm_eval_audio.benchmarks.choice_matching import mcq_prompt
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.judges.choice_scoring import (  # noqa: F401  (named by the YAMLs)
    glitters_acc,
    glitters_judge_failures,
    official_acc,
    process_mcq,
)


def load(split="test-mini", where=None, sample=False, **metadata):
    layout = mmau.MMAU_TEST if split == "test" else mmau.MMAU_TEST_MINI
    root = mmau.sample_root(layout) if sample else mmau.data_root(layout, metadata)
    where = dict(where or {})
    return mmau.dataset(mmau.load_items(layout, root, where, mmau.label(layout, where)))


def prompt(doc):
    return mcq_prompt(doc["question"], doc["choices"])


def doc_to_audio(doc):
    return mmau.doc_to_audio(doc)


def process_prediction(doc, results):
    """MMAU test: answers are withheld, so the response is kept for the official evaluation, not scored."""
    return {"predictions_written": submissions.entry(doc, results[0], "model_output"),
            "unanswered": float(not results[0].strip())}


def predictions_written(items):
    return submissions.collect(items)
