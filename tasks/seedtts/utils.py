"""Hooks for the Seed-TTS-eval tasks: data (``data``) and the score (``scoring``)."""

from __future__ import annotations

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.tasks.seedtts import data
from lm_eval_audio.tasks.seedtts.scoring import process_results, seedtts_wer  # noqa: F401

# Seed-TTS-eval scores speech synthesis systems, which are given the prompt clip and the text; it publishes no
# instruction for a model that is asked in a conversation. This plugin's, in the text's language: say the text,
# word for word, in the voice of the clip, and nothing else.
INSTRUCTION = {
    "en": "Read the following text aloud, word for word, in the voice of the speaker in the audio, and say nothing "
          "else:\n{text}",
    "zh": "请用音频中说话人的声音，逐字朗读下面这段文字，不要说任何其他内容：\n{text}",
}


@loader
def load(test_set="test-en", sample=False, *, notes, **metadata):
    # recorded: no family publishes a Seed-TTS-eval prompt for a conversational model
    author_prompts.authors_text(notes, f"Seed-TTS-eval {test_set}", metadata, {}, "Seed-TTS-eval",
                                overridable=False)
    return data.load_docs(test_set, metadata, sample, notes=notes)


def doc_to_text(doc):
    return "<audio>" + INSTRUCTION[doc["language"]].format(text=doc["text"])


def doc_to_audio(doc):
    return choice_layout.doc_to_audio(doc)
