"""The text normalizations error rates are computed after, each a named rule (``RULES``) a task names and its
results record (``lm_eval_audio_data.scoring_rules``).

- ``whisper_english``: OpenAI Whisper's ``EnglishTextNormalizer`` (spelled numbers to digits, British to American
  spelling, fillers and bracketed spans removed, punctuation dropped). transformers' copy of Whisper's class, with
  Whisper's spelling map as the ``whisper-normalizer`` package ships it (the same file, its digest checked in the
  tests). That package's own English class is not used: it adds rules Whisper does not have ("cause" becomes
  "because", "kinda" "kind of"), which would change the scores.
- ``whisper_basic``: Whisper's ``BasicTextNormalizer`` (lower case, bracketed spans removed, every mark, symbol and
  punctuation character a space), as Whisper's paper scores languages other than English; ``whisper_basic_chars``
  the same, scored by characters, for languages written without spaces between words.
- ``whisper_english_basic``, ``cn_tn_chars``, ``yue_simplified_chars``: Qwen2-Audio's ``eval_audio/evaluate_asr.py``
  (QwenLM/Qwen2-Audio@595360e, ``remove_sp`` and ``compute_wer``), whose rule Kimi-Audio-Evalkit, UltraEval-Audio,
  lmms-eval and evalscope carry on, and which the model cards' FLEURS, AISHELL and WenetSpeech numbers come from.
  First ``remove_sp``: ``<|...|>`` tags become a space, runs of white space one space, the space before
  ``!,.?;:`` goes, and for Chinese every white space goes. Then, by language: English, Whisper's English then basic
  normalizer; Mandarin, SpeechIO's ``cn_tn`` ``TextNorm`` with every option off (Arabic numbers read out in Chinese
  characters, as dates, money, phone numbers, fractions, percentages, digit strings or cardinals; Chinese and ASCII
  punctuation a space; full-width letters kept; no traditional-to-simplified step); Cantonese, ``zhconv``'s
  conversion to simplified (``zh-cn``), then Whisper's basic normalizer. Last, tokens made only of punctuation are
  dropped and the text lower-cased; Chinese is scored by characters, every character a unit (Latin letters too).
  ``cn_tn`` is the file lmms-eval's wheel carries (``lm_eval_audio.storage.cn_tn_data``). ``cn_tn_folded_chars``, on
  request, folds full-width characters to half-width and converts traditional characters to simplified first.
- ``whisper_english_spelled_numbers``: AudioBench's ``preprocess_text_asr`` (``src/dataset_src/text_normalizer/preprocess_text.py``,
  AudioLLMs/AudioBench@e991641): lower case; Whisper's English normalizer (AudioBench vendors a byte-identical
  copy); then its own steps: stand-alone 0-20 and the tens 30-90 back to words, a contraction list, its bracket
  regex (kept verbatim, quirk included: a span holding the letter ``n`` survives), jiwer's
  ``RemoveMultipleSpaces``, ``ExpandCommonEnglishContractions``, ``RemoveKaldiNonWords`` and
  ``RemovePunctuation``, and the fillers uh / umm / um / er / ah. A text that normalizes to nothing becomes the
  word ``empty``, as in AudioBench, so an empty reference still counts one word and an empty hypothesis one error.
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


def whisper_english(text: str) -> str:
    """Whisper's ``EnglishTextNormalizer``."""
    return _pipeline()[0](text or "")


@functools.lru_cache(maxsize=1)
def _basic():
    from transformers.models.whisper.english_normalizer import BasicTextNormalizer

    return BasicTextNormalizer()


def whisper_basic(text: str) -> str:
    """Whisper's ``BasicTextNormalizer`` (its default: diacritics kept)."""
    return _basic()(text or "").strip()


_PUNCS = "!,.?;:"


def _remove_sp(text: str, chinese: bool) -> str:
    """Qwen2-Audio's ``remove_sp``."""
    text = re.sub(r"<\|.*?\|>", " ", text or "")
    text = re.sub(r"\s+", " ", text)
    text = re.sub(f" ?([{_PUNCS}])", r"\1", text).lstrip(" ")
    return re.sub(r"\s+", "", text) if chinese else text


def without_punctuation_tokens(text: str) -> str:
    """The evaluation tokenizer's punctuation removal (a token of punctuation characters only, split on single
    spaces, is dropped), then lower case."""
    import unicodedata

    kept = (t for t in text.split(" ") if not all(unicodedata.category(c)[0] == "P" for c in t))
    return " ".join(kept).lower()


@functools.lru_cache(maxsize=1)
def _cn_tn():
    from lm_eval_audio.storage import cn_tn_data

    return cn_tn_data.module().TextNorm(to_banjiao=False, to_upper=False, to_lower=False, remove_fillers=False,
                                        remove_erhua=False, check_chars=False, remove_space=False, cc_mode="")


def whisper_english_basic(text: str) -> str:
    return without_punctuation_tokens(whisper_basic(whisper_english(_remove_sp(text, False))))


def cn_tn(text: str) -> str:
    return without_punctuation_tokens(_cn_tn()(_remove_sp(text, True)))


def cn_tn_folded(text: str) -> str:
    """``cn_tn`` after full-width characters are folded to half-width (NFKC) and traditional characters converted to
    simplified (``zhconv``, ``zh-cn``), on both sides: not the reference's rule, for answers the reference would
    count wrong only for their script or width."""
    import unicodedata

    import zhconv

    return cn_tn(zhconv.convert(unicodedata.normalize("NFKC", text or ""), "zh-cn"))


def yue_simplified(text: str) -> str:
    import zhconv

    return without_punctuation_tokens(whisper_basic(zhconv.convert(_remove_sp(text, False), "zh-cn")))


def whisper_english_spelled_numbers(text: str) -> str:
    """AudioBench's ``preprocess_text_asr``; ``""`` when nothing is left."""
    text = whisper_english((text or "").lower())
    for digit, word in _DIGITS_TO_WORDS.items():
        text = re.sub(r"\b" + digit + r"\b", word, text)
    for contraction, expanded in _CONTRACTIONS.items():
        text = re.sub(r"\b" + contraction + r"\b", expanded, text)
    text = _BRACKETS.sub("", text)
    text = _pipeline()[1](text)
    return _FILLERS.sub("", text).strip()


@dataclass(frozen=True)
class Rule:
    """How a task's references and answers are made comparable, and what is counted."""

    name: str
    normalize: object  # str -> str
    unit: str  # "word" (split on white space) or "char" (every character but white space)
    says: str  # one line for the results and the docs
    empty_as: str = ""  # a text that normalizes to nothing counts as this one word ("" : as nothing)

    @property
    def metric(self) -> str:
        return "wer" if self.unit == "word" else "cer"


RULES = {r.name: r for r in (
    Rule("whisper_english_spelled_numbers", whisper_english_spelled_numbers, "word", "WER after Whisper's English "
         "normalizer, then numbers 0-20 and the tens spelled out again, contractions expanded, brackets, Kaldi "
         "non-words, punctuation and fillers removed; an empty text is the word 'empty'", empty_as=EMPTY),
    Rule("whisper_english", whisper_english, "word", "WER after Whisper's EnglishTextNormalizer"),
    Rule("whisper_basic", whisper_basic, "word", "WER after Whisper's BasicTextNormalizer"),
    Rule("whisper_basic_chars", whisper_basic, "char",
         "CER after Whisper's BasicTextNormalizer, white space dropped"),
    Rule("whisper_english_basic", whisper_english_basic, "word", "WER after Qwen2-Audio's evaluate_asr.py for "
         "English: Whisper's English, then basic normalizer"),
    Rule("cn_tn_chars", cn_tn, "char", "CER after Qwen2-Audio's evaluate_asr.py for Chinese: white space removed, "
         "SpeechIO's cn_tn (numbers read out, punctuation removed), every character a unit"),
    Rule("cn_tn_folded_chars", cn_tn_folded, "char", "CER as cn_tn_chars after full-width characters are folded to "
         "half-width and traditional characters converted to simplified (not the reference's rule: chinese_cer=folded)"),
    Rule("yue_simplified_chars", yue_simplified, "char", "CER after Qwen2-Audio's evaluate_asr.py for Cantonese: "
         "zhconv to simplified, Whisper's basic normalizer, every character a unit"),
)}


def rule_named(rule: str | Rule) -> Rule:
    if isinstance(rule, Rule):
        return rule
    if rule not in RULES:
        raise ValueError(f"no text normalization rule {rule!r}: give one of {', '.join(sorted(RULES))}")
    return RULES[rule]
