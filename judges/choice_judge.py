"""The LLM fallback of arXiv 2604.24401's answer extraction: a response from which no option letter can be
read by pattern (``lm_eval_audio.metrics.choice_matching.read_letter``) goes to a judge, which names the
option it selected and whether it is right.

``HYBRID_PROMPT`` is the paper's, reproduced exactly from leonardofhy/all-that-glitters-is-not-audio@e42b3d1a,
``scripts/analysis/llm_mcq_judge.py``, ``HYBRID_PROMPT`` (options as ``A) text``, the ground truth as
``X) text``, the response cut to 2,000 characters, as ``_build_hybrid_prompt`` does). The paper called Claude
Haiku 4.5 (``claude-haiku-4-5-20251001``) at temperature 0 with 20 tokens; here it is any judge endpoint
(``judge_model``), the same temperature and token limit by default. One difference, recorded in
``PROMPT_VERSION``: a reply with neither a ``Selected:`` nor a ``Judgment:`` line is asked again and, failing
that, counted as a judge failure (and wrong, as the paper counts its API errors); the paper's parser would take
the first option letter found anywhere in such a reply.
"""

from __future__ import annotations

import re

from lm_eval_audio.metrics.choice_matching import letters
from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import run

PROMPT_VERSION = "glitters@e42b3d1a:hybrid-prompt;unformatted-reply-reasked"
MAX_PREDICTION_CHARS = 2000  # _build_hybrid_prompt: prediction[:2000]

HYBRID_PROMPT = """\
Given a model's response to a multiple choice question, determine:
1. Which option letter the model selected
2. Whether the response is correct

Rules:
- If the model selects exactly one option via letter ({valid_letters}), \
audio index ("Audio 1" → A, "The second clip" → B), or content match, extract that letter.
- If the model cannot process audio, hedges, or selects multiple options, \
reply NONE for the letter and incorrect for judgment.
- Semantic equivalence counts (e.g., "furious" matches "angry").

Question: {question}

Options:
{options_text}

Ground truth: {gt_letter}) {gt_text}

Model's response:
{prediction}

Reply ONLY in this format:
Selected: <letter or NONE>
Judgment: <correct or incorrect>"""

REASK = "Reply ONLY in this format:\nSelected: <letter or NONE>\nJudgment: <correct or incorrect>"


def hybrid_prompt(question: str, choices: list[str], prediction: str, gt_letter: str | None, gt_text: str) -> str:
    valid = letters(len(choices))
    # str.format fills in one pass: braces or placeholder names inside a response are never filled again.
    return HYBRID_PROMPT.format(
        question=question,
        options_text="\n".join(f"{letter}) {choice}" for letter, choice in zip(valid, choices)),
        prediction=prediction[:MAX_PREDICTION_CHARS],
        valid_letters=", ".join(valid),
        gt_letter=gt_letter or "?",
        gt_text=gt_text,
    )


_SELECTED = re.compile(r"Selected:\s*([A-Z]|NONE)", re.IGNORECASE)
_JUDGMENT = re.compile(r"Judg[e]?ment:\s*(correct|incorrect)", re.IGNORECASE)


def parse_verdict(reply: str, n_choices: int):
    """(selected letter or None, judged correct) from the reply's ``Selected:`` and ``Judgment:`` lines, as
    the paper parses them (a letter outside the options, or NONE, selects nothing; no Judgment line means
    incorrect); None when the reply has neither line."""
    reply = (reply or "").strip()
    selected_match, judgment_match = _SELECTED.search(reply), _JUDGMENT.search(reply)
    if selected_match is None and judgment_match is None:
        return None
    selected = None
    if selected_match and selected_match.group(1).upper() in letters(n_choices):
        selected = selected_match.group(1).upper()
    return selected, bool(judgment_match and judgment_match.group(1).lower() == "correct")


def judge_choices(items: list[dict], config: JudgeConfig, task) -> list[tuple[str | None, bool] | None]:
    """Per item ``(selected letter or None, judged correct)``, None where the judge failed. An item holds
    ``uniq_id``, ``question``, ``choices``, ``answer``, ``answer_letter`` and ``response`` (the text without
    its reasoning)."""

    def requests_for(item):
        prompt = hybrid_prompt(item["question"], item["choices"], item["response"], item["answer_letter"],
                               item["answer"])
        n = len(item["choices"])
        return [("extract", [{"role": "user", "content": prompt}], lambda reply: parse_verdict(reply, n), REASK)]

    verdicts = run("choice_extraction", task, config, items, requests_for, None,
                   "choice extraction (arXiv 2604.24401)", PROMPT_VERSION)
    return [verdict["extract"].parsed for verdict in verdicts]
