"""Hooks for the URO-Bench tasks: data (``data``), the judge (``judges``) and the score (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.audio.markers import AUDIO_PLACEHOLDER, encode_conversation
from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.tasks.urobench import data
from lm_eval_audio.tasks.urobench.scoring import judge_failures, process_results, urobench_score  # noqa: F401


@loader
def load(subset=None, sample=False, *, notes, **metadata):
    # recorded: URO-Bench gives the model the clip alone (examples/example-test/inference_for_eval.py ``respond``)
    author_prompts.authors_text(notes, f"URO-Bench {subset}", metadata, {}, "URO-Bench", overridable=False)
    return data.load_docs(data.SUBSETS[subset], metadata, sample, notes=notes)


def doc_to_text(doc):
    if "turns" in doc:  # a dialogue: each round's clip alone, answered in turn (examples/*/inference_multi.py)
        return encode_conversation([AUDIO_PLACEHOLDER] * len(doc["turns"]))
    return ""  # the clip alone: URO-Bench's inference scripts give the model no text


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
