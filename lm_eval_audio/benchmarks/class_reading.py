"""Reading a class out of a free-text answer to a closed-set classification prompt, by the rules audio-LM
evaluations use where no LLM judge reads it. A folder passes its own class list; nothing here names a benchmark.

* :func:`exact_match`: the answer, stripped, equal to the label as the data writes it (Qwen-Audio's
  ``eval_audio/evaluate_scene.py``: scikit-learn's ``accuracy_score`` of the stripped decoded answers against the
  labels, QwenLM/Qwen-Audio@b50fb95 eval_audio/evaluate_scene.py:162,214).
* :func:`label_in_answer`: the label, lower-cased and stripped, found anywhere in the lower-cased answer
  (MiDashengLM's single-target tagging accuracy, xiaomi-research/dasheng-lm@2e3f2b0 evaluate/compute_at_acc.py:28-30).
* :func:`chosen_option`: the option an answer picks from a lettered list ``(A) name`` ... as the prompt shows it:
  its letter alone (``A``, ``(a)``, ``B.``: the forms Kimi-Audio-Evalkit's judge prompt tells its judge to accept,
  MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/datasets/ds_mqa.py:17-18),
  a leading ``(C)`` / ``C.`` / ``C)`` / ``C:``, or else the one option whose name the answer holds as whole words,
  case-insensitively (the longest name first, so ``subwaystation`` is not read as ``subway``). No option, or two
  different ones named, is None: unread, scored wrong. This is a reading without a judge, not the judge's: what a
  judge accepts beyond it (synonyms, another language, a paraphrase) it does not.
"""

from __future__ import annotations

import re
import string

# What the results say of ``acc`` where the model cards' numbers come from Kimi-Audio-Evalkit's judged reading of the
# same lettered question (a folder adds what is its own: its other readings, a word form it does not read)
UNJUDGED_OPTION = (
    "acc: the option read WITHOUT an LLM judge (class_reading.chosen_option; an answer naming no option or two is "
    "wrong, counted in answer_unread): NOT the number Kimi-Audio's card and Kimi-Audio-Evalkit's leaderboard report, "
    "where gpt-4o-mini judges each answer (synonyms accepted, invalid verdicts left out of the denominator; "
    "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/datasets/ds_mqa.py:389-412).")

_LETTER_ALONE = re.compile(r"^[\s(\[*\"']*([A-Za-z])[\s)\]*\"'.:,]*$")
_LETTER_FIRST = re.compile(r"^[\s*]*(?:\(([A-Z])\)|([A-Z])[.):])(?:\s|$)")


def as_numpy_holds(text: str) -> str:
    """``text`` as a numpy ``<U`` array holds it, trailing NUL characters dropped: what the references that compare
    through numpy (scikit-learn's ``accuracy_score``, lmms-eval's ``exact_match``) compare."""
    return text.rstrip("\x00")


def exact_match(response, label: str) -> bool:
    """The stripped answer is the label, character for character, both as numpy holds them (Qwen-Audio's
    ``evaluate_scene.py:162,214``, ``accuracy_score``)."""
    return isinstance(response, str) and as_numpy_holds(response.strip()) == as_numpy_holds(label)


def label_in_answer(response, label: str) -> bool:
    """The label (lower-cased, stripped) is a substring of the lower-cased answer."""
    return isinstance(response, str) and label.lower().strip() in response.lower().strip()


def letters(options: tuple[str, ...]) -> dict[str, str]:
    """``{"A": first option, "B": second, ...}``: the letters a lettered option list gives its options."""
    return {string.ascii_uppercase[i]: name for i, name in enumerate(options)}


def chosen_option(response, options: tuple[str, ...]) -> str | None:
    """The option (one of ``options``, in the prompt's order) the answer picks, or None where it picks none or
    several (see the module's docstring)."""
    if not isinstance(response, str):
        return None
    by_letter = letters(options)
    alone = _LETTER_ALONE.match(response)
    if alone and alone.group(1).upper() in by_letter:
        return by_letter[alone.group(1).upper()]
    first = _LETTER_FIRST.match(response)
    if first and (first.group(1) or first.group(2)) in by_letter:
        return by_letter[first.group(1) or first.group(2)]
    text, named = response.lower(), set()
    for name in sorted(options, key=len, reverse=True):
        pattern = re.compile(r"(?<![a-z0-9])" + re.escape(name.lower()) + r"(?![a-z0-9])")
        if pattern.search(text):
            named.add(name)
            text = pattern.sub(" ", text)
    return named.pop() if len(named) == 1 else None


def option_results(doc: dict, results: list, options: tuple[str, ...], class_field: str = "reference") -> dict:
    """A lettered-option classification item's entries: ``acc`` (the option read by :func:`chosen_option` equal to
    the document's ``option``; per class ``doc[class_field]``), ``audio_missing`` (a missing clip: no answer, wrong)
    and ``answer_unread`` (an answer that picks no option or several: wrong, and counted)."""
    missing = bool(doc["audio_problem"])
    picked = None if missing else chosen_option(results[0], options)
    item = {"doc_id": doc["doc_id"], "score": float(picked == doc["option"]), "class": doc[class_field]}
    return {"acc": item, "audio_missing": float(missing), "answer_unread": float(not missing and picked is None)}
