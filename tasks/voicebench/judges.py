"""VoiceBench's GPT judge (``api_judge.py``, github.com/MatthewCYM/VoiceBench@5338154): the open-ended prompt for
AlpacaEval, CommonEval and WildVoice, the question-answer prompt for SD-QA (the script picks it for any row with a
``reference``). The prompts are benchmark data, reproduced exactly, typographic apostrophes, leading and trailing
newlines of the open prompt and the trailing space of the QA prompt's question line included; they are filled as
the script fills them, by replacing ``{prompt}``, ``{reference}`` and ``{response}`` (in one pass here: a response
holding the text "{reference}" is not filled again).

The script asks gpt-4o-mini for three samples (``n=3``, temperature 0.5, top_p 0.95, 1,024 tokens) after the
system message below. Here the three samples are three requests (passes ``s1``..``s3``, each cached on its own),
with the same settings by default (the task YAMLs' ``judge_*_default``).

Reading the samples, as ``src/evaluator/open.py`` and ``qa.py`` read them:
* open-ended: each sample is ``float(text)``, else the first ``[[n]]`` in it; the task's score is the mean over
  all samples. A sample neither reads is asked again; failing that it is left out and counted
  (``judge_failures``), where the script stops with an error.
* SD-QA: the samples are lower-cased and the most frequent one is the verdict; the item is right when it is
  exactly ``yes`` (``"yes."`` is not). Where the three samples all differ the script takes whichever its set
  yields first (not reproducible); here no sample has a majority and the item counts as not right, and such
  items are counted (``judge_ties``).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import every_sample, run

PROMPT_VERSION = "voicebench@5338154:api_judge;n3-as-3-requests;unreadable-reasked"
SAMPLES = ("s1", "s2", "s3")  # n=3

SYSTEM_PROMPT = "You are a helpful assistant who tries to help answer the user's question."

OPEN_PROMPT = """
I need your help to evaluate the performance of several models in the speech interaction scenario. The models will receive a speech input from the user, which they need to understand and respond to with a speech output.
Your task is to rate the model’s responses based on the provided user input transcription [Instruction] and the model’s output transcription [Response].

Please evaluate the response on a scale of 1 to 5:
1 point: The response is largely irrelevant, incorrect, or fails to address the user’s query. It may be off-topic or provide incorrect information.
2 points: The response is somewhat relevant but lacks accuracy or completeness. It may only partially answer the user’s question or include extraneous information.
3 points: The response is relevant and mostly accurate, but it may lack conciseness or include unnecessary details that don’t contribute to the main point.
4 points: The response is relevant, accurate, and concise, providing a clear answer to the user’s question without unnecessary elaboration.
5 points: The response is exceptionally relevant, accurate, and to the point. It directly addresses the user’s query in a highly effective and efficient manner, providing exactly the information needed.

Below are the transcription of user’s instruction and models’ response:
### [Instruction]: {prompt}
### [Response]: {response}

After evaluating, please output the score only without anything else.
You don’t need to provide any explanations.
"""

QA_PROMPT = """
### Question
{prompt}

### Reference answer
{reference}

### Candidate answer
{response}

Is the candidate answer correct based on the question and reference answer? 
Please only output a single "Yes" or "No". Do not output anything else.
""".strip()

REASK_OPEN = "After evaluating, please output the score only without anything else."
_RATING = re.compile(r"\[\[(\d+)\]\]")


def _filled(template: str, values: dict[str, str]) -> str:
    pattern = re.compile("|".join(re.escape("{" + k + "}") for k in values))
    return pattern.sub(lambda m: values[m.group(0)[1:-1]], template)


def messages_for(prompt: str, response: str, reference: str | None) -> list[dict]:
    if reference is None:
        user = _filled(OPEN_PROMPT, {"prompt": prompt, "response": response})
    else:
        user = _filled(QA_PROMPT, {"prompt": prompt, "reference": reference, "response": response})
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_rating(reply: str) -> float | None:
    """``OpenEvaluator``: ``float`` of the stripped reply, else its first ``[[n]]``; None where neither reads, and
    for "nan" or "inf", which ``float`` reads and which would make the task's mean NaN or infinite there."""
    text = (reply or "").strip()
    try:
        value = float(text)
        return value if math.isfinite(value) else None
    except ValueError:
        pass
    match = _RATING.search(text)
    return float(match.group(1)) if match else None


def parse_qa(reply: str) -> str:
    """A QA sample as ``majority_vote`` compares it: the stripped reply, lower-cased. Every reply is a vote."""
    return (reply or "").strip().lower()


def qa_verdict(votes: list[str]) -> tuple[bool, bool]:
    """(right, tied): the most frequent vote is exactly "yes"; tied when no vote is more frequent than another."""
    counts = Counter(votes).most_common()
    tied = len(counts) > 1 and counts[0][1] == counts[1][1]
    return (not tied and counts[0][0] == "yes"), tied


def judge(items: list[dict], config: JudgeConfig, task) -> list[list | None]:
    """Per item its three samples' readings (ratings, or QA votes), None where the judge failed on a sample.
    Items hold ``uniq_id``, ``prompt``, ``response`` and ``reference`` (None for the open-ended sets)."""

    def requests_for(item):
        messages = messages_for(item["prompt"], item["response"], item["reference"])
        if item["reference"] is None:
            return [(s, messages, parse_rating, REASK_OPEN, k) for k, s in enumerate(SAMPLES)]
        return [(s, messages, parse_qa, None, k) for k, s in enumerate(SAMPLES)]

    verdicts = run("voicebench_gpt_judge", task, config, items, requests_for, None, "VoiceBench GPT judge",
                   PROMPT_VERSION)
    return every_sample(verdicts, SAMPLES)
