"""Hooks for the VocalBench tasks: data (``data``), the judge (``judges``) and the scores (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.audio.markers import AUDIO_PLACEHOLDER, encode_conversation
from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.tasks.vocalbench import data
from lm_eval_audio.tasks.vocalbench.scoring import (  # noqa: F401  (the YAMLs name them)
    judge_failures,
    judge_unread,
    process_results,
    vocalbench_acc,
    vocalbench_clarity,
    vocalbench_following,
    vocalbench_rating,
    vocalbench_refusal,
    vocalbench_robustness,
    vocalbench_unchecked,
)


@loader
def load(eval_set=None, sample=False, *, notes, **metadata):
    # recorded: VocalBench gives the model the query's audio alone
    author_prompts.authors_text(notes, f"VocalBench {eval_set}", metadata, {}, "VocalBench", overridable=False)
    return data.load_docs(eval_set, metadata, sample, notes=notes)


def doc_to_text(doc):
    if "context" in doc:  # multi_round: the dialogue so far as text turns, then the question's audio
        context = [{"role": turn["from"], "content": turn["value"]} for turn in doc["context"]]  # user, assistant
        return encode_conversation([AUDIO_PLACEHOLDER], context)
    return ""  # the query's audio alone


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
