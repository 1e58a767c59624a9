"""Corpus BLEU with sacrebleu, tokenized as the target language needs: ``zh`` for Chinese, ``ja-mecab`` (MeCab with
the IPA dictionary) for Japanese, ``13a`` (sacrebleu's default, WMT's) for the rest. BLEU with ``13a`` on Chinese or
Japanese text counts a whole sentence as a few "words" and gives a number that looks like a score and is not one.

The score is sacrebleu's ``BLEU.corpus_score`` over the whole set (one reference per item), on 0-100; its
signature (``nrefs:1|case:mixed|eff:no|tok:zh|smooth:exp|version:2.6.0``) says how, and goes into the results.
"""

from __future__ import annotations

import functools

TOKENIZER_BY_TARGET = {"zh": "zh", "ja": "ja-mecab"}
DEFAULT_TOKENIZER = "13a"


def tokenizer_for(language: str) -> str:
    """sacrebleu's tokenizer for text in ``language`` (an ISO 639-1 code, a region or script after ``-`` or ``_``
    ignored: ``zh-CN`` is ``zh``)."""
    return TOKENIZER_BY_TARGET.get(language.replace("_", "-").split("-")[0].lower(), DEFAULT_TOKENIZER)


@functools.cache
def _metric(tokenize: str):
    from sacrebleu.metrics import BLEU

    try:
        return BLEU(tokenize=tokenize)
    except (ImportError, RuntimeError) as e:  # ja-mecab without its packages
        raise RuntimeError(f"sacrebleu's {tokenize} tokenizer cannot load ({e}): install this package's "
                           "dependencies again (`pip install -e .`: sacrebleu[ja] brings mecab-python3 and ipadic)"
                           ) from None


def signature(tokenize: str) -> str:
    """sacrebleu's signature of corpus BLEU with ``tokenize``, one reference per item (sacrebleu knows the number of
    references only once it has scored: a one-item set is scored first)."""
    from sacrebleu.metrics import BLEU

    _metric(tokenize)  # the clear error where the tokenizer cannot load
    metric = BLEU(tokenize=tokenize)
    metric.corpus_score(["."], [["."]])
    return str(metric.get_signature())


def corpus_bleu(hypotheses: list[str], references: list[str], tokenize: str) -> float:
    """Corpus BLEU (0-100) of ``hypotheses`` against one reference each; NaN for an empty set."""
    if not hypotheses:
        return float("nan")
    return float(_metric(tokenize).corpus_score(list(hypotheses), [list(references)]).score)
