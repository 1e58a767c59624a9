"""METEOR for audio captioning, as AudioBench computes it.

AudioBench (``wavcaps_test.py``, ``audiocaps_test.py`` at AudioLLMs/AudioBench@e991641)
calls Hugging Face ``evaluate``'s ``meteor`` on the raw texts: nltk's
``single_meteor_score`` of ``word_tokenize(reference)`` and ``word_tokenize(prediction)``
with alpha 0.9, beta 3, gamma 0.5 (lower-casing, Porter stemming, WordNet synonyms),
then the mean over items. This module calls the same nltk function with the same
parameters and WordNet 3.0 (``lm_eval_audio.storage.wordnet_data``); without WordNet it raises
rather than score without the synonym stage.

One difference: ``word_tokenize`` first splits sentences with nltk's pre-trained Punkt
model, which nltk downloads at run time and no package ships offline. We split with
nltk's Punkt algorithm without the trained English parameters (its abbreviation list), so
a caption holding an abbreviation such as "Mr." may split into sentences differently.
Word tokenization within a sentence is nltk's own (``NLTKWordTokenizer``).
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def _tokenizers():
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(), NLTKWordTokenizer()


def tokenize(text: str) -> list[str]:
    sentences, words = _tokenizers()
    return [token for sentence in sentences.tokenize(text or "") for token in words.tokenize(sentence)]


@functools.lru_cache(maxsize=65536)
def score(reference: str, hypothesis: str) -> float:
    """METEOR of one hypothesis against one reference, 0 to 1."""
    from nltk.translate.meteor_score import single_meteor_score

    from lm_eval_audio.storage import wordnet_data

    return float(single_meteor_score(tokenize(reference), tokenize(hypothesis), wordnet=wordnet_data.reader(),
                                     alpha=0.9, beta=3, gamma=0.5))
