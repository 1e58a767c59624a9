"""URO-Bench's GPT judge (Ruiqi-Yan/URO-Bench@9e74bc04 metrics/mark_gpt.py): one prompt per scoring mode
(``prompts``), filled with the question's text (``source_text``), the transcript of the spoken answer and the
reference or the subset's own field, sent after the system message "You are a helpful assistant." to gpt-4o-mini,
``max_tokens=1024``, ``temperature=0.5``, ``top_p=0.95``, ``n=3`` (``mark``, 563-582). Here the three samples are three
requests (passes ``s1``..``s3``, each cached on its own) with the same settings (the YAMLs' ``judge_*_default``).

The script fills a prompt by chained ``str.replace``; here in one pass (an answer holding the text "{reference}" is
not filled again). Its readings:

* the 1-5 modes (open, semi-open, gs, ue, sf, ml, and the dialogues' multi and sa): ``int(reply)`` of each sample, the item's score their mean. A
  reply ``int`` cannot read stops the script (an exception); here it is asked again, then the item is left out and
  counted (``judge_failures``);
* qa: each sample is 1 where the reply is exactly ``Yes`` (not "yes", not "Yes."), else 0; every reply reads.

SRT's judge (metrics/mark_gemini.py) is gemini-2.0-flash hearing the spoken answer: its prompt (``prompts.SRT``,
sent unstripped as the script sends it) then the answer's WAV file (``judge_audio``: OpenAI's ``input_audio``, which
Gemini's OpenAI-compatible endpoint reads), no system message, one reply, Gemini's default sampling (its YAML:
temperature 1.0, top_p not sent), read as the 1-5 modes. The script scores a reply ``int`` cannot read 0; here as
the 1-5 modes (asked again, then counted and left out).

An API error makes the script score the item 0 (``mark`` returns ``[0, 0, 0]``); here it is retried, then left out
and counted: a failed call is no verdict. An empty transcript ("" or " ") scores 0 there after the call; here
without one (``scoring``).
"""

from __future__ import annotations

from lm_eval_audio.judges.judge_audio import audio_part
from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import every_sample, fill, run
from lm_eval_audio.tasks.urobench import prompts

PROMPT_VERSION = "urobench@9e74bc04:mark_gpt;n3-as-3-requests;one-pass-fill;unreadable-reasked"
SYSTEM = "You are a helpful assistant."  # mark_gpt.py:567
SAMPLES = ("s1", "s2", "s3")  # n=3
# SRT's judge (metrics/mark_gemini.py): gemini-2.0-flash hears the answer, one reply per item
SRT_PROMPT_VERSION = "urobench@9e74bc04:mark_gemini;answer-wav-as-input_audio;unreadable-reasked"
SRT_SAMPLES = ("s1",)
REASK = "After evaluating, please output the score only without anything else."  # the 1-5 prompts' own words

# mode -> (prompt, {placeholder: the item's field})
TEMPLATES = {
    "open": (prompts.OPEN, {"{question}": "question", "{answer}": "response"}),
    "semi-open": (prompts.SEMI_OPEN, {"{question}": "question", "{answer}": "response", "{reference}": "reference"}),
    "qa": (prompts.QA, {"{question}": "question", "{answer}": "response", "{reference}": "reference"}),
    "gs": (prompts.GS, {"{question}": "question", "{answer}": "response", "{reference}": "reference",
                        "{style}": "style"}),
    "ue": (prompts.UE, {"{question}": "question", "{answer}": "response", "{reference}": "reference",
                        "{emotion}": "emotion"}),
    "sf": (prompts.SF, {"{question}": "question", "{answer}": "response", "{reference}": "reference"}),
    "ml": (prompts.ML, {"{question}": "question", "{answer}": "response", "{language}": "requirement"}),
}


def _rounds(count: int) -> dict[str, str]:
    """A dialogue prompt's placeholders: round k's ``{questionk}``, ``{answerk}``, ``{referencek}`` filled from the
    item's ``question<k-1>`` and the others (mark_gpt.py:461-554: ``replace("{question1}", item["question0"])``)."""
    return {f"{{{name}{k + 1}}}": f"{name}{k}" for k in range(count) for name in ("question", "answer", "reference")}


# The dialogue modes: multi by its number of rounds (prompt_multi2..5), sa's three (mark_gpt.py:461-554)
DIALOGUE_TEMPLATES = {
    "multi2": (prompts.MULTI2, _rounds(2)), "multi3": (prompts.MULTI3, _rounds(3)),
    "multi4": (prompts.MULTI4, _rounds(4)), "multi5": (prompts.MULTI5, _rounds(5)), "sa": (prompts.SA, _rounds(3)),
}


def template_key(mode: str, item: dict) -> str:
    """The prompt an item is judged with: multi's by the item's number of rounds."""
    return f"multi{item['rounds']}" if mode == "multi" else mode


def messages_for(mode: str, item: dict) -> list[dict]:
    if mode == "srt":  # mark_gemini.py:55-62: contents=[prompt, the answer's wav], no system instruction
        text = fill(prompts.SRT, {"{question}": str(item["question"])})
        heard = audio_part(item["answer_audio"]["path"], item["answer_audio"]["sha256"])
        return [{"role": "user", "content": [{"type": "text", "text": text}, heard]}]
    template, fields = {**TEMPLATES, **DIALOGUE_TEMPLATES}[template_key(mode, item)]
    user = fill(template, {placeholder: str(item[field]) for placeholder, field in fields.items()})
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_int(reply: str) -> int | None:
    """``int(reply)`` as Python reads it (spaces and a sign allowed, "4.0" not); None where it cannot."""
    try:
        return int(reply)
    except (TypeError, ValueError):
        return None


def parse_yes(reply: str) -> int:
    """mark_gpt.py:675-677: ``1 if i == "Yes" else 0``."""
    return 1 if reply == "Yes" else 0


def item_score(samples: list[int]) -> float:
    """An item's score before the subset's scale: the mean of its samples (ratings 1-5, or qa's 1 for "Yes")."""
    return sum(samples) / len(samples)


def judge(mode: str, items: list[dict], config: JudgeConfig, task) -> list[list[int] | None]:
    """Per item its samples' readings (three; SRT's one), None where the judge failed on one. Items hold
    ``uniq_id``, ``question``, ``response`` (the transcript), ``reference`` and the mode's own field; SRT's
    ``answer_audio``, the spoken answer's file, which its judge hears."""
    parse, reask = (parse_yes, None) if mode == "qa" else (parse_int, REASK)
    kind, desc, version, samples = ("urobench_gemini_judge", "URO-Bench Gemini judge", SRT_PROMPT_VERSION,
                                    SRT_SAMPLES) if mode == "srt" else \
        ("urobench_gpt_judge", "URO-Bench GPT judge", PROMPT_VERSION, SAMPLES)

    def requests_for(item):
        messages = messages_for(mode, item)
        return [(s, messages, parse, reask, k) for k, s in enumerate(samples)]

    return every_sample(run(kind, task, config, items, requests_for, None, desc, version), samples)
