"""OpenAudioBench's judge: the Hub repository's own eval scripts (``eval_scripts/`` of baichuan-inc/OpenAudioBench,
not readable here; VoiceAgentGroup/AudioCompass@bafbcb0 src/benchmarks/openaudiobench/evaluator/{alpaca,llama_qst,
reasoning,trivia_qa,web_qst}.py copy them, with their output paths and comments), whose prompts MoonshotAI/
Kimi-Audio-Evalkit@4080c49 almeval/datasets/ds_refqa.py:58-171 reproduces ("follow code from: huggingface.co/
datasets/baichuan-inc/OpenAudioBench", ds_refqa.py:280) with its lines re-wrapped.

The prompts are benchmark data: each is the Hub scripts' f-string as Python evaluates it (its ``\\n`` escapes are
newlines, its trailing spaces kept, AlpacaEval's eight-space indentation kept: it is inside the method's string),
the one user message after the system message Kimi-Audio-Evalkit's gpt-4o-mini judge sends (almeval/judge_models/
__init__.py:38-45; the same as AudioCompass@bafbcb0 evaluator/ai_judge.py:17-18). The judge: gpt-4o-mini,
temperature 0, top_p 0.95, max_tokens 1024 (ds_refqa.py:187, base.py:193, judge_models/__init__.py:6-12; the Hub
scripts' copy sets no temperature, AudioCompass@bafbcb0 ai_judge.py:15-22).

The replies are read as the Hub scripts read them (AudioCompass@bafbcb0 evaluator/alpaca.py:29-42, trivia_qa.py:37-51
and web_qst.py:38-52, their ``get_eval_score``; llama_qst.py:62-70 and reasoning.py:63-69, the loops of their
``evaluate``); ``scripts/check_openaudiobench_readings.py`` runs those functions on this module's test replies:

* AlpacaEval: the first ``[[n]]``; n out of 1-10 stops the Hub script (an assert), here it is unread;
* Reasoning QA: the last ``[d]``, d from 0 to 5 (a reply without one is -1 in the Hub script);
* Llama Questions: the first "the score is [Correct]" / "[Incorrect]" (T or t); the Hub script stops on a reply
  without one; there, and only there, "[correct]"/"[incorrect]" are read here (Kimi-Audio-Evalkit's regex,
  ds_refqa.py:348-349): a reply with both reads its capitalized verdict, as the Hub script does;
* TriviaQA, Web Questions: the reply stripped (ai_judge.py:23), then ``reply[7:-3]`` (what a "```json ... ```"
  fence leaves), else the whole reply, read as a dict with an ``analysis`` and a ``judgment`` that is exactly
  "correct" or "incorrect"; anything else is unread (the Hub scripts' ``{"judgment": ""}``, never correct).
  The Hub scripts ``eval()`` the text; here it is read as a literal only (``ast.literal_eval``): no code in a reply
  is ever run (a reply only ``eval`` reads is unread). Kimi-Audio-Evalkit reads these more leniently (the first
  ``{`` to the first ``}``, "correct" in any case, no ``analysis`` needed: ds_refqa.py:366-376).

A reply read no way is asked once, as the Hub scripts ask (``judge_max_parse_attempts: 1`` in the YAML), and
counted in ``judge_failures``; what it is worth is ``scoring``'s (``UNREAD_IS_WRONG``).
"""

from __future__ import annotations

import ast
import re

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import fill, run

PROMPT_VERSION = "openaudiobench-hub-eval-scripts(AudioCompass@bafbcb0);system-message(Kimi-Audio-Evalkit@4080c49)"
SYSTEM = "You are a helpful assistant who tries to help answer the user's question."

ALPACA_EVAL = (
    '\n'
    '        [Instruction] \n'
    '        Please act as an impartial judge and evaluate the quality of the response provided by an AI '
    'assistant to the user question displayed below. Your evaluation should consider factors such as the '
    'helpfulness, relevance, accuracy, depth, creativity, and level of detail of the response. Begin '
    'your evaluation by providing a short explanation. Be as objective as possible. After providing your '
    'explanation, you must rate the response on a scale of 1 to 10 by strictly following this format: '
    '"[[rating]]", for example: "Rating: [[5]]".  \n'
    '        [Question] \n'
    '        {question}  \n'
    '        \n'
    '        [The Start of Assistant’s Answer] \n'
    '        {prediction} \n'
    '        [The End of Assistant’s Answer]\n'
    '        '
)

LLAMA_QUESTIONS = (
    '\n'
    '## Background\n'
    "You are a professional QA evaluation expert. You need to assess whether the model's answer is "
    'correct based on the standard answer.\n'
    '\n'
    '\n'
    '\n'
    '## Scoring Criteria\n'
    'Correct: The answer matches or is equivalent to the standard answer \n'
    '\n'
    'Incorrect: The answer is wrong or irrelevant to the question \n'
    '\n'
    '\n'
    '\n'
    '## Evaluation Guidelines\n'
    '1. The expression of answers can be flexible, not requiring exact matches. For example: \n'
    '\n'
    '   - Numbers can be expressed in either Arabic numerals or words \n'
    '\n'
    '   - Proper nouns can be in either English or Chinese \n'
    '\n'
    '   - Differences in punctuation can be ignored \n'
    '\n'
    '2. Focus on whether the core meaning of the answer is correct \n'
    '\n'
    '\n'
    '## Output Format\n'
    'Provide the reasoning for your score, then generate the result in "[]" format and make sure it '
    'contains "the score is [Correct]" or "the score is [Incorrect]", for example:\n'
    '```\n'
    'The answer is correct and equivalent to the standard answer, the score is [Correct]\n'
    '```\n'
    'or\n'
    '```\n'
    'The answer is incorrect and does not match the standard answer, the score is [Incorrect]\n'
    '```\n'
    '\n'
    '\n'
    '\n'
    '## Question:\n'
    '{question}\n'
    '\n'
    '## Standard Answer:\n'
    '{answer}\n'
    '\n'
    "## Model's Answer:\n"
    '{prediction}\n'
    '\n'
)

REASONING_QA = (
    '\n'
    '## 背景\n'
    '现在你是一个大学数学老师。你需要依据 标准答案 来判断每道题的得分\n'
    '\n'
    ' \n'
    '\n'
    '## 判分依据\n'
    '5分答案：满分答案，需要回答的答案正确，同时过程正确，且回答考虑到了各种可能性，考虑全面 \n'
    '\n'
    '4分答案：答案正确，但是没有过程 \n'
    '\n'
    '3分答案：答案错误，过程大部分正确；或者答案正确，但是过程出现明显错误 \n'
    '\n'
    '2分答案：答案错误，且过程大部分错误 \n'
    '\n'
    '1分答案：答案错误，过程和思路全错\n'
    '\n'
    ' \n'
    '\n'
    '## 其他注意事项\n'
    '你需要忽略格式问题，以下都是一些等价的情况，不应该作为答案正确性的判断，比如 \n'
    '\n'
    '1）latex格式表达的公式，普通格式表达的公式 \n'
    '\n'
    '2）分数和小数表达的数值：比如1/3和0.33都算对 \n'
    '\n'
    '3）关于π的表达：比如π、pi、3.14都是等价的 \n'
    '\n'
    '4）关于常数的表达：比如n、k等常数表达都是等价的 \n'
    '\n'
    '等，还有很多其他类似的等价表达 \n'
    '\n'
    ' \n'
    '\n'
    '## 生成格式\n'
    '以"[]"的格式生成分数，比如：\n'
    '```\n'
    '得分是[4]\n'
    '```\n'
    '\n'
    '\n'
    ' \n'
    '\n'
    '## 题目\n'
    '{question}\n'
    '\n'
    '## 标准答案: \n'
    '{answer}\n'
    '\n'
    '## 学生回答:\n'
    '{prediction}\n'
    '\n'
)

TRIVIA_WEB_QA = (
    '\n'
    'Your will be given a question, the reference answers to that question, and an answer to be judged. '
    'Your tasks is to judge whether the answer to be judged is correct, given the question and reference '
    'answers. An answer considered correct expresses or contains the same meaning as at least **one of** '
    'the reference answers. The format and the tone of the response does not matter.  \n'
    '\n'
    'You should respond in JSON format. First provide a one-sentence concise analysis for the judgement '
    'in field ‘analysis‘, then your judgment in field ‘judgment‘. For example, \n'
    "'''json \n"
    '{"analysis": "<a one-sentence concise analysis for the judgement>", "judgment": < your final '
    'judgment, "correct" or "incorrect">} \n'
    "'''  \n"
    '\n'
    '# Question \n'
    '{question}  \n'
    '\n'
    '# Reference Answer \n'
    '{answer}  \n'
    '\n'
    '# Answer To Be Judged \n'
    '{prediction}\n'
    '\n'
)

PROMPTS = {"alpaca_eval": ALPACA_EVAL, "llama_questions": LLAMA_QUESTIONS, "reasoning_qa": REASONING_QA,
           "trivia_qa": TRIVIA_WEB_QA, "web_questions": TRIVIA_WEB_QA}


def messages_for(subset: str, question: str, answer: str, prediction: str) -> list[dict]:
    """The judge's messages; the placeholders filled in one pass (an answer saying ``{answer}`` stays as it is)."""
    values = {"{question}": question, "{prediction}": prediction}
    if subset != "alpaca_eval":  # AlpacaEval's judge rates the answer alone: no reference
        values["{answer}"] = answer
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": fill(PROMPTS[subset], values)}]


def read_rating(reply: str) -> int | None:
    """AlpacaEval: the first ``[[n]]`` (re.search), 1-10."""
    match = re.search(r"\[\[(\d+)\]\]", reply or "")
    return int(match.group(1)) if match and 1 <= int(match.group(1)) <= 10 else None


def read_grade(reply: str) -> int | None:
    """Reasoning QA: the last ``[0]``-``[5]``."""
    found = re.findall(r"\[([0-5])\]", reply or "")
    return int(found[-1]) if found else None


def read_score_line(reply: str) -> bool | None:
    """Llama Questions: the first "the score is [Correct|Incorrect]" (T or t), as the Hub script reads it
    (llama_qst.py:64, case-sensitive: a lowercase verdict before a capitalized one is passed over); only where the
    reply has none, where the Hub script stops, the first "[correct]"/"[incorrect]" (Kimi-Audio-Evalkit's regex)."""
    found = (re.findall(r"[Tt]he score is \[(Correct|Incorrect)\]", reply or "")
             or re.findall(r"[Tt]he score is \[(correct|incorrect)\]", reply or ""))
    return found[0].lower() == "correct" if found else None


def read_judgment(reply: str) -> bool | None:
    """TriviaQA, Web Questions (the Hub scripts' ``get_eval_score``): ``reply[7:-3]``, else the whole reply, as a
    literal dict with ``analysis`` and ``judgment`` in ("correct", "incorrect"); True for "correct"."""
    reply = (reply or "").strip()  # AudioCompass@bafbcb0 ai_judge.py:23 strips the judge's reply
    for text in (reply[7:-3], reply):  # the first text that reads is kept, as eval's try/except keeps it
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict) and "analysis" in value and value.get("judgment") in ("correct", "incorrect"):
            return value["judgment"] == "correct"
        return None
    return None


READERS = {"alpaca_eval": read_rating, "llama_questions": read_score_line, "reasoning_qa": read_grade,
           "trivia_qa": read_judgment, "web_questions": read_judgment}
# What each read verdict is worth on the reports' 0-100 scale (ds_refqa.py:319, 335, 357, 379)
POINTS = {"alpaca_eval": lambda v: 10.0 * v, "reasoning_qa": lambda v: 20.0 * v,
          "llama_questions": lambda v: 100.0 * v, "trivia_qa": lambda v: 100.0 * v,
          "web_questions": lambda v: 100.0 * v}


def judge(subset: str, items: list[dict], config: JudgeConfig, task) -> list[tuple]:
    """Per item ``(verdict, replied)``: the read verdict (a rating, a grade, or True/False), None where the judge
    failed; ``replied`` whether the judge gave a non-empty reply (an unread one, not an endpoint error). Items hold
    ``uniq_id``, ``question``, ``reference`` and ``response``."""

    def requests_for(item):
        return [("verdict", messages_for(subset, item["question"], item["reference"], item["response"]),
                 READERS[subset], None)]

    verdicts = run("openaudiobench_judge", task, config, items, requests_for, None, f"OpenAudioBench {subset} judge",
                   PROMPT_VERSION)
    return [(v["verdict"].parsed, any(r and r.strip() for r in v["verdict"].replies)) for v in verdicts]
