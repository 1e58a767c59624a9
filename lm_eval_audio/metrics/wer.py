"""Word error rate as AudioBench computes it: corpus-level, after Whisper's English normalizer.

``normalize`` reproduces ``preprocess_text_asr`` of AudioBench
(``src/dataset_src/text_normalizer/preprocess_text.py``, AudioLLMs/AudioBench@e991641):

1. lower-case;
2. OpenAI Whisper's ``EnglishTextNormalizer`` (AudioBench vendors a byte-identical copy
   of Whisper's class): spelled numbers to digits, British to American spelling, fillers
   (uh, um, hmm) and bracketed spans removed, punctuation dropped. We use transformers'
   copy, which behaves as Whisper's, with Whisper's British-to-American spelling map as
   the ``whisper-normalizer`` package ships it (the same file, checked by its digest in the
   tests). That package's own normalizer is not used: it adds rules Whisper does not have
   ("cause" becomes "because", "kinda" "kind of"), which would change the scores;
3. AudioBench's own steps after it: stand-alone 0-20 and the tens 30-90 back to words,
   a contraction list, its bracket regex (kept verbatim, quirk included: a span holding
   the letter ``n`` survives), jiwer's ``RemoveMultipleSpaces``,
   ``ExpandCommonEnglishContractions``, ``RemoveKaldiNonWords`` and ``RemovePunctuation``,
   and the fillers uh / umm / um / er / ah.

A text that normalizes to nothing becomes the word ``empty``, as in AudioBench, so an
empty reference still counts one word and an empty hypothesis one error per word.

WER is corpus-level: the sum of substitutions, deletions and insertions over all items,
divided by the total number of reference words (``jiwer.process_words``); it is not a
mean of per-item rates.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_DIGITS_TO_WORDS = {
    "0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six",
    "7": "seven", "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve",
    "13": "thirteen", "14": "fourteen", "15": "fifteen", "16": "sixteen", "17": "seventeen",
    "18": "eighteen", "19": "nineteen", "20": "twenty", "30": "thirty", "40": "forty",
    "50": "fifty", "60": "sixty", "70": "seventy", "80": "eighty", "90": "ninety",
}
_CONTRACTIONS = {
    "i'm": "i am", "you're": "you are", "he's": "he is", "she's": "she is", "it's": "it is",
    "we're": "we are", "they're": "they are", "i've": "i have", "you've": "you have",
    "we've": "we have", "they've": "they have", "isn't": "is not", "aren't": "are not",
    "wasn't": "was not", "weren't": "were not", "hasn't": "has not", "haven't": "have not",
    "hadn't": "had not", "doesn't": "does not", "don't": "do not", "didn't": "did not",
    "that's": "that is",
}
# preprocess_text.py, remove_parentheses(): the raw string's `\\n` means backslash or `n`.
_BRACKETS = re.compile(r"(\[|\(|\{|\<)[^\(\)\\n\[\]]*(\]|\)|\}|\>)")
_FILLERS = re.compile(r"\b(uh|umm|um|er|ah)\b")
EMPTY = "empty"


def spelling_map_path() -> str:
    """Whisper's ``english.json`` (British to American spellings), as whisper-normalizer ships it."""
    from importlib.resources import files

    return str(files("whisper_normalizer").joinpath("normalizers/english.json"))


@functools.lru_cache(maxsize=1)
def _pipeline():
    import json

    import jiwer
    from transformers.models.whisper.english_normalizer import EnglishTextNormalizer

    with open(spelling_map_path(), encoding="utf-8") as f:
        spelling = json.load(f)
    tail = jiwer.Compose([
        jiwer.RemoveMultipleSpaces(),
        jiwer.ExpandCommonEnglishContractions(),
        jiwer.RemoveKaldiNonWords(),
        jiwer.RemovePunctuation(),
    ])
    return EnglishTextNormalizer(spelling), tail


def whisper_normalize(text: str) -> str:
    """Whisper's English normalizer alone (step 2)."""
    return _pipeline()[0](text or "")


def normalize(text: str) -> str:
    """AudioBench's ``preprocess_text_asr``; ``""`` when nothing is left."""
    text = whisper_normalize((text or "").lower())
    for digit, word in _DIGITS_TO_WORDS.items():
        text = re.sub(r"\b" + digit + r"\b", word, text)
    for contraction, expanded in _CONTRACTIONS.items():
        text = re.sub(r"\b" + contraction + r"\b", expanded, text)
    text = _BRACKETS.sub("", text)
    text = _pipeline()[1](text)
    return _FILLERS.sub("", text).strip()


@dataclass(frozen=True)
class Counts:
    """Edit counts of one item (or a sum of items)."""

    errors: int  # substitutions + deletions + insertions
    words: int  # reference words (substitutions + deletions + hits)

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.errors + other.errors, self.words + other.words)


def counts(reference: str, hypothesis: str) -> Counts:
    """Edit counts after normalization (an empty side becomes the word ``empty``)."""
    import jiwer

    ref = " ".join(normalize(reference).split()) or EMPTY
    hyp = " ".join(normalize(hypothesis).split()) or EMPTY
    out = jiwer.process_words(ref, hyp)
    return Counts(out.substitutions + out.deletions + out.insertions, out.substitutions + out.deletions + out.hits)


def rate(total: Counts) -> float:
    """Corpus WER of summed counts, as a fraction (NaN with no reference word)."""
    return total.errors / total.words if total.words else float("nan")
