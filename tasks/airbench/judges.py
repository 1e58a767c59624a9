"""AIR-Bench's two judges: foundation choice alignment and the chat pairwise score.

The prompt strings are benchmark data, reproduced exactly from OFA-Sys/AIR-Bench at
commit 983247666e2a25519b5c122810c2bcd91f26fd8d:

* ``align_in_foundation.py``, ``build_test_file()``: the choice-alignment prompt;
* ``score_chat.py``, ``build_test_file()``: the pairwise chat prompt.

Both are sent as one user message, as there. Two deliberate differences:

* placeholders are filled in one pass, so text inside an answer (say the word
  ``QUESTION`` or ``XAssistant2X``) is never substituted again, as chained
  ``str.replace`` would do;
* temperature is fixed (0 by default) instead of a random 1.0 or 2.0 per call.

The parsers read only the judge's reply, and only in the format the prompt asks for:
one letter, or one line of two numbers. Whatever an evaluated model wrote stays inside
the prompt and cannot be mistaken for a score.
"""

from __future__ import annotations

import functools
import re

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import fill, run

PROMPT_VERSION = "airbench-official@983247666e2a:one-pass-fill"

# align_in_foundation.py, build_test_file(), variable `system_prompt` (sent as the user message)
ALIGN_PROMPT = (
    'There is a question "QUESTION", and one response is "ANSWER". Among the following choices, '
    "which option best matches this response? You may only response with the letter of the option. "
    "If the letter of an option has already appeared in the Answer, then simply return that letter. "
    "If there are no matching options, then choose one at random. The following lines are the options."
)
# align_in_foundation.py, build_test_file(), variable `attention`
ALIGN_ATTENTION = "To reiterate, the response you provide to me must be a single letter, either A, B, C, or D."

# score_chat.py, build_test_file(), variable `system_prompt` (sent as the user message)
CHAT_PROMPT = (
    "You are a helpful and precise assistant for checking the quality of the answer.\n"
    "[Detailed Audio Description]\nXAudioX\n[Question]\nXQuestionX\n"
    "[The Start of Assistant 1s Answer]\nXAssistant1X\n[The End of Assistant 1s Answer]\n"
    "[The Start of Assistant 2s Answer]\nXAssistant2X\n[The End of Assistant 2s Answer]\n[System]\n"
    "We would like to request your feedback on the performance of two AI assistants in response to the user question "
    "and audio description displayed above. AI assistants are provided with detailed audio descriptions and questions.\n"
    "Please rate the helpfulness, relevance, accuracy, and comprehensiveness of their responses. "
    "Each assistant receives an overall score on a scale of 1 to 10, where a higher score indicates better overall performance. "
    "Please output a single line containing only two values indicating the scores for Assistant 1 and 2, respectively. "
    "The two scores are separated by a space."
)

# Follow-ups after an unparsable reply: the prompts' own format instructions, asked again.
ALIGN_REASK = ALIGN_ATTENTION
CHAT_REASK = CHAT_PROMPT[CHAT_PROMPT.index("Please output a single line") :]

LETTERS = "ABCD"


def alignment_prompt(question: str, response: str, choices: list) -> str:
    head = fill(ALIGN_PROMPT, {"ANSWER": response, "QUESTION": question})
    a, b, c, d = (list(choices) + [None] * 4)[:4]
    if c is None or d is None:
        return head + "\nA. " + a + "\nB. " + b + "\n" + ALIGN_ATTENTION
    return head + "\nA. " + a + "\nB. " + b + "\nC. " + c + "\nD. " + d + "\n" + ALIGN_ATTENTION


def chat_prompt(meta_info: str, question: str, assistant1: str, assistant2: str) -> str:
    return fill(
        CHAT_PROMPT,
        {"XAudioX": meta_info, "XQuestionX": question, "XAssistant1X": assistant1, "XAssistant2X": assistant2},
    )


def _first_line(reply: str) -> str:
    for line in (reply or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


_LETTER_ALONE = re.compile(r"^[\"'(\[*]*([A-D])[\"')\]*]*[.:]?$")
_LETTER_WITH_OPTION = re.compile(r"^\(?([A-D])[.):]\s+\S")


def parse_choice(reply: str, n_choices: int = 4):
    """The letter the judge answered, or None. Accepts ``A``, ``(A)``, ``A.`` and
    ``A. <option text>`` on the reply's first line, nothing else."""
    line = _first_line(reply)
    m = _LETTER_ALONE.match(line) or _LETTER_WITH_OPTION.match(line)
    if not m or LETTERS.index(m.group(1)) >= n_choices:
        return None
    return m.group(1)


_TWO_SCORES = re.compile(r"^(\d{1,2}(?:\.\d+)?)\s*[ ,]\s*(\d{1,2}(?:\.\d+)?)$")


def parse_pair_scores(reply: str):
    """(score of Assistant 1, score of Assistant 2) from the reply's first line, which
    must hold the two numbers and nothing else; each 0 to 10 as in ``cal_score.py``."""
    m = _TWO_SCORES.match(_first_line(reply))
    if not m:
        return None
    first, second = float(m.group(1)), float(m.group(2))
    if not (0 <= first <= 10 and 0 <= second <= 10):
        return None
    return first, second


def judge_choices(items: list[dict], config: JudgeConfig, task) -> list[str | None]:
    """The letter the judge matched each response to (None: judge failure)."""

    def requests_for(item):
        prompt = alignment_prompt(item["question"], item["response"], item["choices"])
        n_choices = 4 if None not in item["choices"][:4] else 2  # the prompt lists C and D only with both
        parse = functools.partial(parse_choice, n_choices=n_choices)
        return [("align", [{"role": "user", "content": prompt}], parse, ALIGN_REASK)]

    verdicts = run("choice_alignment", task, config, items, requests_for, None, "AIR-Bench choice alignment", PROMPT_VERSION)
    return [verdict["align"].parsed for verdict in verdicts]


def judge_chat(items: list[dict], config: JudgeConfig, task) -> list[dict | None]:
    """Both passes per item: reference first, then the model first (the official swap).

    Returns per item ``{"model": [s1, s2], "reference": [r1, r2]}``, or None when either
    pass could not be judged.
    """

    def requests_for(item):
        q, meta, ref, hyp = item["question"], item["meta_info"], item["answer_gt"], item["response"]
        return [
            ("reference_first", [{"role": "user", "content": chat_prompt(meta, q, ref, hyp)}], None, CHAT_REASK),
            ("model_first", [{"role": "user", "content": chat_prompt(meta, q, hyp, ref)}], None, CHAT_REASK),
        ]

    verdicts = run("chat_pairwise", task, config, items, requests_for, parse_pair_scores, "AIR-Bench chat judge", PROMPT_VERSION)
    out = []
    for verdict in verdicts:
        first, second = verdict["reference_first"].parsed, verdict["model_first"].parsed
        if first is None or second is None:
            out.append(None)
            continue
        out.append({"model": [first[1], second[0]], "reference": [first[0], second[1]]})
    return out
