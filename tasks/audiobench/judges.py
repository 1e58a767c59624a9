"""AudioBench's model-as-judge: the 0-5 rubric (rescaled x20) and the binary 0/1 judge (x100).

The prompt strings are benchmark data, reproduced exactly from AudioLLMs/AudioBench at
commit e991641d4beaa7c07913c481af05447619f0e9f5, ``src/dataset_src/eval_methods/eval_llama3_70b.py``:
``llama3_70b_as_judge_one_sample`` (the rubric) and
``llama3_70b_as_judge_binary_one_sample`` (the binary judge), ``PROMPT_TEMPLATE`` in each,
sent as one user message as there. Which dataset uses which follows that commit's
``compute_score`` of each dataset file (binary for the multiple-choice SQA sets, emotion,
accent and gender).

The judge model defaults to the paper's, Llama-3-70B-Instruct behind an OpenAI-compatible
server (``judge_model_default`` in the tasks' YAML; the toolkit serves
casperhansen/llama-3-70b-instruct-awq with vLLM).

Placeholders are filled in one pass (``judge_runner.fill``), like the toolkit's
``str.format``: text inside an answer is never substituted. Deliberate differences:

* the rating is read from the judge's ``Rating:`` line and must be one of the rubric's
  values; the toolkit takes ``float()`` of the reply's last token, so "Rating: 4." or
  "4**" scored 0 and any trailing word was a failure scored 0. An unreadable reply is
  asked again (the prompt's format lines as a follow-up); one that stays unreadable is a
  judge failure, counted and left out of the mean rather than scored 0;
* temperature is fixed (0 by default); the toolkit sent none (the server's default).
"""

from __future__ import annotations

import re

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import fill, run

PROMPT_VERSION = "audiobench-official@e991641:one-pass-fill"

# eval_llama3_70b.py, llama3_70b_as_judge_one_sample(), PROMPT_TEMPLATE
RUBRIC_PROMPT = (
    '        [Reference Answer]\n'
    '        {reference}\n'
    '\n'
    '        [Model Answer]\n'
    '        {prediction}\n'
    '\n'
    '        [Question]\n'
    '        {question}\n'
    '\n'
    '        [Task]\n'
    "        Rate the model's answer based on its alignment with the reference answer, focusing on accuracy and relevance to the reference provided. Please be critical on the details. If the model response is something like 'cannot decide', please rate as 0.\n"
    "        Criteria: Assess if the model's response mirrors the reference in terms of content, accuracy, and relevance.\n"
    "        Score0: The answer is refusing to give concrete results, providing something like 'cannot decide'.\n"
    '        Score0: The answer is completely misaligned, providing incorrect or irrelevant information compared to the reference.\n'
    '        Score1: The answer shows minimal alignment, often misunderstanding or providing irrelevant details unrelated to the reference.\n'
    '        Score2: The answer recognizes the topic but diverges significantly from the reference in accuracy or relevance.\n'
    '        Score3: The answer aligns with the reference generally but lacks detail or precise accuracy in some aspects.\n'
    '        Score4: The answer is mostly accurate and relevant, closely following the reference but could be clearer or more detailed.\n'
    '        Score5: The answer is highly accurate, detailed, and matches the reference answer perfectly, capturing its essence and detail.\n'
    '\n'
    '        Your response should be formatted as follows:\n'
    '        Explanation: (Provide a concise explanation of your rating, comparing the reference answer with the model\'s response. "The reference answer is [XXX], while the model\'s answer is [YYY]. I think ...")\n'
    '        Rating: (int)'
)
# eval_llama3_70b.py, llama3_70b_as_judge_binary_one_sample(), PROMPT_TEMPLATE
BINARY_PROMPT = (
    '        [Reference Answer]\n'
    '        {reference}\n'
    '\n'
    '        [Model Answer]\n'
    '        {prediction}\n'
    '\n'
    '        [Question]\n'
    '        {question}\n'
    '\n'
    '        [Task]\n'
    "        Rate the model's answer based on its alignment with the reference answer, focusing on accuracy and relevance to the reference provided. Please be critical on the details.\n"
    "        Criteria: Assess if the model's response mirrors the reference in terms of content, accuracy, and relevance. Please give a score of 0 or 1. \n"
    "        Score0: The answer is refusing to give concrete results, providing something like 'cannot decide'.\n"
    '        Score0: The answer is wrong, providing incorrect or irrelevant information compared to the reference. \n'
    '        Score1: The answer is correct, capturing or covering the meaning from the reference.\n'
    '\n'
    '        Your response should be formatted as follows:\n'
    '        Explanation: (Provide a concise explanation of your rating, comparing the reference answer with the model\'s response. "The reference answer is [XXX], while the model\'s answer is [YYY]. I think ...")\n'
    '        Rating: (int)'
)

KINDS = {
    # kind: (prompt, allowed ratings, rescale factor to 0-100)
    "rubric": (RUBRIC_PROMPT, frozenset(range(6)), 20),
    "binary": (BINARY_PROMPT, frozenset({0, 1}), 100),
}


def _format_lines(prompt: str) -> str:
    """The prompt's own answer-format instructions, for a follow-up after an unreadable reply."""
    tail = prompt[prompt.index("Your response should be formatted as follows:") :]
    return "\n".join(line.strip() for line in tail.splitlines())


REASK = {kind: _format_lines(prompt) for kind, (prompt, _, _) in KINDS.items()}


def judge_prompt(kind: str, question: str, reference: str, prediction: str) -> str:
    prompt = KINDS[kind][0]
    return fill(prompt, {"{reference}": reference, "{prediction}": prediction, "{question}": question})


# "Rating: 4", "**Rating:** 4", "Rating: 4/5", "- rating = 4.0." at the start of a line.
_RATING = re.compile(r"^[\s>*_#-]*rating[\s*_]*[:=][\s*_]*(\d+(?:\.\d+)?)\s*(?:/\s*\d+)?[\s*_.]*$", re.I | re.M)


def parse_rating(reply: str, kind: str):
    """The judge's rating as an int, or None when its reply has no single valid ``Rating:`` line.

    Only the judge's reply is read. Several ``Rating:`` lines must agree; a value outside
    the rubric (6, 2 for the binary judge, 3.5) is not a rating.
    """
    found = {float(m.group(1)) for m in _RATING.finditer(reply or "")}
    if len(found) != 1:
        return None
    value = found.pop()
    if not value.is_integer() or int(value) not in KINDS[kind][1]:
        return None
    return int(value)


def judge_ratings(items: list[dict], config: JudgeConfig, task, kind: str) -> list[int | None]:
    """Each item's rating (None: judge failure). Items carry uniq_id, question, reference, response."""

    def requests_for(item):
        prompt = judge_prompt(kind, item["question"], item["reference"], item["response"])
        return [(kind, [{"role": "user", "content": prompt}], None, REASK[kind])]

    verdicts = run(
        f"audiobench_{kind}", task, config, items, requests_for,
        lambda reply: parse_rating(reply, kind), f"AudioBench {kind} judge", PROMPT_VERSION,
    )
    return [verdict[kind].parsed for verdict in verdicts]
