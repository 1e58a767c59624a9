"""Word and character error rates, corpus-level, after a named normalization rule (``text_normalizers.RULES``).

An item's counts are the edit distance (substitutions + deletions + insertions) between its normalized reference
and hypothesis, in the rule's unit (words split on white space, or characters with white space dropped), and the
reference's length in that unit. A corpus rate is the sum of the edits over the sum of the lengths
(``jiwer.process_words`` over all items), not a mean of per-item rates.
"""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_audio.metrics.text_normalizers import Rule, rule_named


@dataclass(frozen=True)
class Counts:
    """Edit counts of one item (or a sum of items)."""

    errors: int  # substitutions + deletions + insertions
    length: int  # reference words or characters (substitutions + deletions + hits)

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.errors + other.errors, self.length + other.length)


def units(text: str, rule: Rule) -> list[str]:
    """``text`` normalized and cut into the rule's units (``[rule.empty_as]`` where nothing is left and the rule
    says so)."""
    normalized = rule.normalize(text or "")
    out = normalized.split() if rule.unit == "word" else [c for c in normalized if not c.isspace()]
    return out or ([rule.empty_as] if rule.empty_as else [])


def counts(reference: str, hypothesis: str, rule: str | Rule) -> Counts:
    """Edit counts of one item after ``rule`` (a name in ``RULES``, or a rule)."""
    from rapidfuzz.distance import Levenshtein  # jiwer's own edit distance, on lists of units

    rule = rule_named(rule)
    ref, hyp = units(reference, rule), units(hypothesis, rule)
    return Counts(Levenshtein.distance(ref, hyp), len(ref))


def total(values) -> Counts:
    return sum(values, Counts(0, 0))


def rate(summed: Counts) -> float:
    """Corpus error rate of summed counts, as a fraction (NaN with no reference unit)."""
    return summed.errors / summed.length if summed.length else float("nan")
