"""Reading a free-text answer to a multiple-choice question: the benchmarks' rule and the paper's.

Two readings of one response, both reported by the MMAU, MMAR and MMAU-Pro tasks:

* ``official_string_match``: MMAU's ``evaluation.py`` (Sakshi113/MMAU, ``string_match``, last changed in
  74682927) and MMAR's ``code/evaluation.py`` (ddlBoJack/MMAR, byte-identical function). The whole raw
  response is compared as a set of lower-cased ``\\b\\w+\\b`` words: right when it holds every word of the
  answer and no word that only a wrong choice has. A letter alone never matches; naming two choices fails.
* the extraction of arXiv 2604.24401 ("All That Glitters Is Not Audio", code
  leonardofhy/all-that-glitters-is-not-audio@e42b3d1a): ``remove_thinking`` (``scripts/eval_utils_claude.py``,
  ``remove_thinking_process``), then ``regex_letter`` (``_quick_regex_extract``), then ``content_letter``
  (``scripts/analysis/llm_mcq_judge.py``, ``_content_match_extract``); what neither reads goes to an LLM
  (``lm_eval_audio.judges.choice_judge``). ``answer_letter`` is that script's ``ground_truth_to_letter``.

The paper's prompt (``mcq_prompt``) is its ``format_mcq_prompt`` (``scripts/mmau/utils.py``,
``scripts/mmar/run_inference_vllm.py``; MMAU-Pro's last line from ``scripts/mmau_pro/utils.py``). None of the
three benchmarks publishes a prompt of its own.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\b\w+\b")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def official_string_match(answer: str, prediction: str, choices: list[str]) -> bool:
    """MMAU's and MMAR's ``string_match``: every word of the answer in the prediction, and none of the words
    that belong to a wrong choice and not to the answer (a choice with the answer's very words is no wrong
    choice)."""
    predicted, wanted = _words(prediction), _words(answer)
    if not predicted:
        return False
    wrong = set()
    for choice in choices:
        words = _words(choice)
        if words != wanted:
            wrong |= words - wanted
    return wanted <= predicted and predicted.isdisjoint(wrong)


# --- the paper's extraction ------------------------------------------------------------------

# The paper's closing line of its multiple-choice prompt (a folder may pass its own, as MMAU-Pro's does).
PAPER_CLOSING = "Answer with the full option text (you may include the letter)."


def letters(n: int) -> list[str]:
    return [chr(65 + i) for i in range(n)]


def mcq_prompt(question: str, choices: list[str], closing: str = PAPER_CLOSING) -> str:
    """The paper's prompt: the question, its options as ``A: <text>``, and the closing line."""
    options = "\n".join(f"{letter}: {choice}" for letter, choice in zip(letters(len(choices)), choices))
    return f"{question}\n\nOptions:\n{options}\n\n{closing}"


def remove_thinking(text) -> str:
    """The response without ``<think>...</think>``, without an unclosed ``<think>...`` (a cut-off reasoning),
    and without everything before a lone ``</think>`` (servers that drop the opening tag)."""
    if not isinstance(text, str):
        return "" if text is None else str(text)
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE)
    text = re.sub(r"<think>.*", "", text, flags=re.DOTALL | re.IGNORECASE)
    text = re.sub(r"^.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE)
    return text.strip()


_LETTER_ALONE = re.compile(r"^([A-Z])\)?\.?\s*$", re.IGNORECASE)
# Case-insensitive as in the paper's code: "the answer is a dog" reads as the letter A.
_LETTER_STATED = re.compile(r"(?:the answer is|answer:\s*|I (?:would )?(?:choose|select|pick))\s*\(?([A-Z])\)?",
                            re.IGNORECASE)


def regex_letter(prediction: str, n_choices: int) -> str | None:
    """A letter the response states plainly: the whole response is one letter ("B", "b.", "C)"), or it says
    "the answer is B", "Answer: (C)", "I would choose D"; only letters of the options count."""
    prediction = prediction.strip()
    valid = letters(n_choices)
    for pattern in (_LETTER_ALONE.match, _LETTER_STATED.search):
        m = pattern(prediction)
        if m and m.group(1).upper() in valid:
            return m.group(1).upper()
    return None


def content_letter(prediction: str, choices: list[str]) -> str | None:
    """The first choice (in order) that the response, lower-cased, equals; else the first that it starts with
    or that starts with it ("2" for the choice "2 speakers")."""
    said = prediction.strip().lower()
    if not said:
        return None
    options = [str(c).strip().lower() for c in choices]
    for letter, option in zip(letters(len(choices)), options):
        if option == said:
            return letter
    for letter, option in zip(letters(len(choices)), options):
        if option and (said.startswith(option) or option.startswith(said)):
            return letter
    return None


def _without_letter_prefix(text: str) -> str:
    return re.sub(r"^(?:\([A-Za-z]\)|[A-Za-z][).:])\s*", "", text.strip()).strip()


def answer_letter(answer: str, choices: list[str]) -> str | None:
    """The letter of the answer among the choices: the choice equal to it; else, as the paper's
    ``ground_truth_to_letter``, equal after an ``(A)`` prefix is dropped (case aside), contained either way, or
    the best word overlap (Jaccard) of at least 0.6; None if none.

    Two differences from the paper, both for answers that are none of the choices (6 items of MMAR-meta.json):
    the exact choice is taken first, and only a real prefix is dropped (``(A)``, ``A)``, ``A.``, ``A:``); the
    paper's pattern also cuts the first letter of a plain choice ("Man" becomes "an"), so that "Bat" and "Cat"
    would both match the answer "Cat"."""
    if answer in choices:
        return letters(len(choices))[choices.index(answer)]
    wanted = _without_letter_prefix(answer).lower()
    options = [_without_letter_prefix(str(c)).lower() for c in choices]
    for letter, option in zip(letters(len(choices)), options):
        if option == wanted:
            return letter
    for letter, option in zip(letters(len(choices)), options):
        if wanted in option or option in wanted:
            return letter
    wanted_words = _words(wanted)
    if not wanted_words:
        return None
    best, best_overlap = None, 0.0
    for letter, option in zip(letters(len(choices)), options):
        words = _words(option)
        overlap = len(wanted_words & words) / max(len(wanted_words | words), 1)
        if overlap > best_overlap:
            best, best_overlap = letter, overlap
    return best if best_overlap >= 0.6 else None


def read_letter(response: str, choices: list[str]) -> tuple[str, str | None]:
    """How the paper reads a response without an LLM: (the text the judge would see, the letter or None).
    The text is the response without its reasoning, or the raw response if nothing else is left."""
    text = remove_thinking(response)
    if not text and isinstance(response, str) and response.strip():
        text = response
    if not text.strip():
        return text, None
    return text, regex_letter(text, len(choices)) or content_letter(text, choices)
