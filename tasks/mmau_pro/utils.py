"""Hooks for the MMAU-Pro tasks: data and prompts (``lm_eval_audio.benchmarks.mmau_pro``) and the scores of
each question kind (``lm_eval_audio.judges.mmau_pro_scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import mmau, mmau_pro
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.judges.choice_scoring import glitters_acc, glitters_judge_failures  # noqa: F401
from lm_eval_audio.judges.mmau_pro_scoring import (  # noqa: F401  (named by the YAMLs)
    closed_official_acc,
    closed_performance,
    good_response_rate,
    instructions_followed,
    instructions_performance,
    judge_correctness,
    judge_failures,
    judge_overall,
    open_performance,
    poor_response_rate,
    process_closed,
    process_instructions,
    process_open,
)


def load(categories=None, sample=False, **metadata):
    root = mmau_pro.sample_root() if sample else mmau_pro.data_root(metadata)
    categories = list(categories or mmau_pro.CATEGORIES)
    label = "MMAU-Pro, category=" + "|".join(categories)
    return mmau.dataset(mmau_pro.load_items(root, categories, label, mmau_pro.clips_setting(metadata)))


def prompt(doc):
    return mmau_pro.prompt(doc)


def doc_to_audio(doc):
    return mmau.doc_to_audio(doc)
