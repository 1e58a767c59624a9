"""Hooks for the MMAU-Pro tasks: data and prompts (``data``) and the scores of each question kind (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.judges.choice_scoring import glitters_acc, glitters_judge_failures  # noqa: F401
from lm_eval_audio.tasks.mmau_pro import data
from lm_eval_audio.tasks.mmau_pro.scoring import (  # noqa: F401  (named by the YAMLs)
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


@loader
def load(categories=None, sample=False, *, notes, **metadata):
    source = data.data_source(metadata, sample)
    notes.note("sources", "MMAU-Pro" + (" sample" if sample else ""), source.record())
    root = source.root
    categories = list(categories or data.CATEGORIES)
    label = "MMAU-Pro, category=" + "|".join(categories)
    # recorded: no family publishes an MMAU-Pro prompt
    author_prompts.authors_text(notes, label, metadata, {}, "MMAU-Pro", overridable=False)
    return data.load_items(root, categories, label, data.clips_setting(metadata), notes=notes)


def prompt(doc):
    return data.prompt(doc)


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
