"""Hooks for the OpenAudioBench tasks: data (``data``), the judge (``judges``) and the scores (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.tasks.openaudiobench import data
from lm_eval_audio.tasks.openaudiobench.scoring import judge_failures, judge_score, process_results  # noqa: F401


@loader
def load(subset=None, sample=False, *, notes, **metadata):
    # recorded: no family publishes an OpenAudioBench prompt (the question is the audio)
    author_prompts.authors_text(notes, f"OpenAudioBench {subset}", metadata, {}, "OpenAudioBench", overridable=False)
    return data.load_docs(subset, metadata, sample, notes=notes)


def doc_to_text(doc):
    return ""  # the clip alone: the official inference sends no text (data.py)


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
