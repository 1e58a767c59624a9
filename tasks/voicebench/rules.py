"""VoiceBench's rule-based readings, as its evaluators (github.com/MatthewCYM/VoiceBench, ``src/evaluator/``) read
a response: the multiple-choice letter (``mcq.py``, for MMSU and OpenBookQA), BBH's yes/no or (a)/(b)
(``bbh.py``), AdvBench's refusal (``harm.py``) and IFEval's response clean-up (``ifeval.py``).

The strings and the order of the rules are benchmark data: ``official/voicebench_rules.json``, extracted from the
official files by ``official/extract_rules.py`` (commit and file digests inside). This module only applies them.

Where a response cannot be read, the official evaluators draw a random answer (``random.choice``, unseeded).
Here the draw is seeded per item (``fallback``: the same item gets the same draw in every run, whatever the
batch size or order), and every reading says whether it fell back, so that a task reports both the official
number and the same reading with those items counted wrong.
"""

from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path

RULES_FILE = Path(__file__).resolve().parent / "official" / "voicebench_rules.json"
LETTERS = ("a", "b", "c", "d")
_PUNCTUATION = (".", ",", ":", ")")
_TURN_PREFIXES = ("<1>", "<2>", "<3>")  # some models' turn markers, which the evaluators take off first
# github.com/MatthewCYM/VoiceBench issue 26: extract_answer_hyperbaton read a bare "b" as (a); the maintainer fixed
# it on 2025-12-11, after the commit the rules were read from, so the fix is applied here (and recorded).
HYPERBATON_FIX = ("equals", "b", 0, 1)


@functools.lru_cache(maxsize=1)
def rules() -> dict:
    return json.loads(RULES_FILE.read_text())


def source() -> dict:
    """Where the rules come from, for the results."""
    return {**rules()["source"], "bbh_hyperbaton_b": "read as (b), as upstream since 2025-12-11 (issue 26)"}


def fallback(seed: int, item_key: str, options) -> object:
    """The random answer the evaluators draw for an unread response, drawn from a generator seeded by the run's
    seed and the item, so that it does not depend on which other items are scored with it."""
    return random.Random(f"{seed}:{item_key}").choice(list(options))


# --- multiple choice (mcq.py) -----------------------------------------------------------------------------------


def mcq_letter(response: str) -> str | None:
    """The letter ``MCQEvaluator.extract_answer`` reads ("A".."D"), or None where it reads none."""
    text = response.lower()
    if text.startswith(_TURN_PREFIXES):
        text = text[3:].strip()
    mcq = rules()["mcq"]
    for template in mcq["templates"]:
        for choice in LETTERS:
            if template.replace("[CHOICE]", choice) in text:
                return choice.upper()
    for choice in LETTERS:
        if text == choice or any(text.startswith(choice + p) for p in _PUNCTUATION):
            return choice.upper()
    for phrase, letter in mcq["closing_contains"]:
        if phrase in text:
            return letter
    return None


# --- BBH (bbh.py) ---------------------------------------------------------------------------------------------

BBH_TASKS = ("sports_understanding", "hyperbaton", "navigate", "web_of_lies")
_CHAINS = {"sports_understanding": "sports", "hyperbaton": "hyperbaton", "navigate": "navigate",
           "web_of_lies": "lies"}
BBH_TRUTH = {"yes": 1, "no": 0, "(a)": 0, "(b)": 1}  # BBHEvaluator.evaluate's ground_truth_mapping


def bbh_normalize(response: str) -> str:
    text = response.lower()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    if text.startswith(_TURN_PREFIXES):
        text = text[3:].strip()
    text = text.replace("<|turn_end|>", "")
    for mark in (":", "**", '"', "-", ",", ".", "："):
        text = text.replace(mark, " ")
    return " ".join(text.split())


def _holds(test: str, argument: str, text: str) -> bool:
    if test == "contains":
        return argument in text
    if test == "equals":
        return text == argument
    if test == "startswith":
        return text.startswith(argument)
    if test == "endswith":
        return text.endswith(argument)
    if test == "search":
        return re.search(argument, text) is not None
    raise ValueError(f"{RULES_FILE}: unknown BBH test {test!r}")


def _chain(name: str, text: str) -> int | None:
    for test, argument, value in rules()["bbh"][name]:
        if test == "yes_no":
            found = _chain("yn", text)
            if found is not None:
                return found
            continue
        if name == "hyperbaton" and (test, argument, value) == HYPERBATON_FIX[:3]:
            value = HYPERBATON_FIX[3]
        if _holds(test, argument, text):
            return value
    return None


def bbh_task(item_id: str) -> str:
    """The BBH task an item id names (``BBHEvaluator.extract_answer`` looks for these names in it, in this order)."""
    for task in BBH_TASKS:
        if task in item_id:
            return task
    raise ValueError(f"BBH id {item_id!r} names none of {', '.join(BBH_TASKS)}")


def bbh_answer(response: str, item_id: str) -> int | None:
    """1 (yes, or (b)) or 0 (no, or (a)) as the evaluator reads the response; None where it reads neither."""
    return _chain(_CHAINS[bbh_task(item_id)], bbh_normalize(response))


# --- AdvBench (harm.py) and IFEval (ifeval.py) ---------------------------------------------------------------


def refuses(response: str) -> bool:
    """``HarmEvaluator.evaluate_single``: an empty response, or one holding any refusal string, refuses."""
    if not response.strip():
        return True
    text = response.lower()
    return any(s.lower() in text for s in rules()["refusal_strings"])


def ifeval_response(response: str) -> str:
    """``read_prompt_to_response_dict``'s clean-up of a response before the instruction checks."""
    if response.startswith(_TURN_PREFIXES):
        response = response[3:].strip()
    if response.endswith("<|user|>"):
        response = response[:-8].strip()
    return response
