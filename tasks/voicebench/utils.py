"""Hooks for the VoiceBench tasks: data and modality (``data``), the evaluators' rules (``rules``), the GPT judge
(``judges``) and the scores (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.tasks.voicebench import data
from lm_eval_audio.tasks.voicebench.scoring import (  # noqa: F401  (named by the YAMLs)
    gpt_acc,
    gpt_score,
    ifeval_final,
    ifeval_leaderboard,
    inst_level_loose_acc,
    inst_level_strict_acc,
    judge_failures,
    judge_ties,
    open_leaderboard,
    panda_acc,
    process_bbh,
    process_harm,
    process_ifeval,
    process_mcq,
    process_open,
    process_qa,
    prompt_level_loose_acc,
    prompt_level_strict_acc,
    qa_leaderboard,
)


@loader
def load(config=None, split="test", sample=False, *, notes, **metadata):
    return data.load_docs(config, split, metadata, sample, notes=notes)


def doc_to_text(doc):
    return data.doc_to_text(doc)


def doc_to_audio(doc):
    return data.doc_to_audio(doc)
