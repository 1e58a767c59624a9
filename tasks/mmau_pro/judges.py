"""MMAU-Pro's open-ended judge: four 1-5 scores and an overall one.

The prompts are benchmark data, reproduced exactly from sonalkum/MMAUPro@960e93a4,
``evaluate_mmau_pro_comprehensive.py``: ``create_evaluation_prompt`` (with ``task_type`` "open", so the
context line is "general open-ended question answering") as the user message, after the system message of
``evaluate_openended_with_qwen``. The script's judge is Qwen/Qwen2.5-7B-Instruct, sampled at temperature 0.1
with 512 new tokens; the task YAML names the same defaults, so a served Qwen2.5-7B-Instruct reproduces it (the
judge cache keeps a re-run's verdicts fixed, where the script samples anew).

Scores are read as ``extract_scores_from_evaluation`` reads them: ``CRITERION: <integer>`` and
``OVERALL: <number>``, case-insensitive, anywhere in the reply; a criterion not found is 3.0; an OVERALL not
found or equal to 3.0 becomes the mean of the four criteria. One difference, recorded in ``PROMPT_VERSION``: a
reply in which none of the five is found is asked again and, failing that, left unscored and counted as a
judge failure, where the script would score it 3.0 throughout.
"""

from __future__ import annotations

import re

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import run

PROMPT_VERSION = "mmau-pro@960e93a4:open-ended;no-score-reasked"

SYSTEM_PROMPT = "You are a helpful and objective evaluator."
CONTEXT = "general open-ended question answering"  # create_evaluation_prompt's task_context["open"]

EVALUATION_PROMPT = """You are an expert evaluator for {context} tasks. Please evaluate the quality of a model's response to a question.

Question: {question}

Reference Answer: {reference_answer}

Model Response: {model_response}

Please evaluate the model response on the following criteria and provide scores from 1-5 (where 5 is best):

1. **Correctness**: How factually accurate is the response compared to the reference?
2. **Relevance**: How well does the response address the specific question asked?
3. **Completeness**: Does the response cover all important aspects mentioned in the reference?
4. **Clarity**: How clear and well-structured is the response?

For each criterion, provide:
- A score from 1-5
- A brief justification (1-2 sentences)

Format your response as:

CORRECTNESS: [score] - [justification]
RELEVANCE: [score] - [justification] 
COMPLETENESS: [score] - [justification]
CLARITY: [score] - [justification]
OVERALL: [average score] - [overall assessment]"""

REASK = EVALUATION_PROMPT[EVALUATION_PROMPT.index("Format your response as:"):]

CRITERIA = ("correctness", "relevance", "completeness", "clarity")
_PATTERNS = {
    **{c: re.compile(rf"{c.upper()}:\s*(\d+)", re.IGNORECASE) for c in CRITERIA},
    "overall": re.compile(r"OVERALL:\s*(\d+(?:\.\d+)?)", re.IGNORECASE),
}
NEUTRAL = 3.0  # the script's score for a criterion it cannot find


def evaluation_messages(question: str, reference: str, response: str) -> list[dict]:
    # str.format fills in one pass: braces inside a response are never filled again.
    user = EVALUATION_PROMPT.format(context=CONTEXT, question=question, reference_answer=reference,
                                    model_response=response)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_scores(reply: str) -> dict[str, float] | None:
    """The five scores as the script reads them; None when the reply holds none of them."""
    found = {name: pattern.search(reply or "") for name, pattern in _PATTERNS.items()}
    if not any(found.values()):
        return None
    scores = {name: float(m.group(1)) if m else NEUTRAL for name, m in found.items()}
    if scores["overall"] == NEUTRAL:  # the script: missing, or exactly 3.0, becomes the criteria's mean
        scores["overall"] = sum(scores[c] for c in CRITERIA) / len(CRITERIA)
    return scores


def judge_open(items: list[dict], config: JudgeConfig, task) -> list[dict | None]:
    """Per item its five scores, None where the judge failed. Items hold ``uniq_id``, ``question``,
    ``answer`` and ``response``."""

    def requests_for(item):
        messages = evaluation_messages(item["question"], item["answer"], item["response"])
        return [("evaluate", messages, parse_scores, REASK)]

    verdicts = run("mmau_pro_open", task, config, items, requests_for, None, "MMAU-Pro open-ended judge",
                   PROMPT_VERSION)
    return [verdict["evaluate"].parsed for verdict in verdicts]
