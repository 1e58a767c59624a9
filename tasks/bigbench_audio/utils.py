"""Hooks for the Big Bench Audio tasks: data (``data``), the judge (``judges``) and the score (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.tasks.bigbench_audio import data
from lm_eval_audio.tasks.bigbench_audio.scoring import judge_acc, judge_failures, process_results  # noqa: F401


@loader
def load(categories=None, sample=False, *, notes, **metadata):
    # recorded: no family publishes a Big Bench Audio prompt (the question is the audio)
    author_prompts.authors_text(notes, "Big Bench Audio, category=" + "|".join(categories or data.CATEGORIES),
                                metadata, {}, "Big Bench Audio", overridable=False)
    return data.load_docs(list(categories or data.CATEGORIES), metadata, sample, notes=notes)


def doc_to_text(doc):
    return ""  # the clip alone: Artificial Analysis publish no instruction for audio input


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
