"""Big Bench Audio's judge, as Artificial Analysis describe it ("Evaluating Audio Reasoning with Big Bench Audio",
huggingface.co/blog/big-bench-audio-release, source huggingface/blog@a0bf57a, big-bench-audio-release.md): the LLM
evaluator gets the candidate answer, the official answer and the question "for reference only", and labels the
answer CORRECT or INCORRECT; their scores are judged by Claude 3.5 Sonnet (Oct '24), ``claude-3-5-sonnet-20241022``
(any OpenAI-compatible endpoint serves it here: Anthropic's has one).

The prompt is benchmark data, reproduced exactly from the blog's block, with two choices recorded in
``PROMPT_VERSION``: its ``\\n\\n`` after the question, printed there as the two characters of a Python escape, is
two newlines (as most implementations read it), and it is sent as the one user message (the blog names no system
message). The blog gives no temperature or token limit: temperature 0 here.

Reading the verdict (the blog does not say how): the reply, stripped of spaces and a trailing full stop, upper-cased,
must be exactly CORRECT or INCORRECT ("INCORRECT" holds "CORRECT": a substring test would count every verdict
right); anything else is asked again, then counted in ``judge_failures`` and left out.

The question: the dataset holds no text of it, so it is a transcript of the clip, by the recognizer
``bigbench_audio_question_asr`` names (a faster-whisper model name or folder; default the bundled Whisper
tiny.en), cached with the cascade's transcripts (a cascade run with the same recognizer transcribes each clip once).
"""

from __future__ import annotations

import functools
import logging
import os

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_runner import fill, run

log = logging.getLogger("lm_eval.audio.bigbench_audio")

PROMPT_VERSION = "big-bench-audio-blog@a0bf57a;escaped-newlines-as-newlines;user-message;question-by-asr"

EVALUATOR_PROMPT = """Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.
For the CANDIDATE ANSWER to be correct, it must be consistent with the OFFICIAL ANSWER.
If the CANDIDATE ANSWER contradicts itself, assess the first proposed answer.
If the CANDIDATE ANSWER provides a final answer and working, assess the final answer only.
If the CANDIDATE ANSWER includes irrelevant information, assess only the relevant information.
If the CANDIDATE ANSWER includes a numeric value it is ok if it is spelled e.g. 7 or seven
It is ok if the CANDIDATE ANSWER involves a misspelling of a person's name e.g. Leda or Lida, Autry or Audrie.
  
The question, for reference only: START QUESTION {question} 

END QUESTION

The OFFICIAL ANSWER:{official_answer}

BEGIN CANDIDATE ANSWER TO ASSESS

{candidate_answer}

END CANDIDATE ANSWER TO ASSESS

Reply only with CORRECT or INCORRECT."""

REASK = "Reply only with CORRECT or INCORRECT."


def messages_for(question: str, official_answer: str, candidate: str) -> list[dict]:
    user = fill(EVALUATOR_PROMPT, {"{question}": question, "{official_answer}": official_answer,
                                   "{candidate_answer}": candidate})
    return [{"role": "user", "content": user}]


def parse_verdict(reply: str) -> bool | None:
    """True for CORRECT, False for INCORRECT, None for anything else."""
    word = (reply or "").strip().rstrip(".").strip().upper()
    return {"CORRECT": True, "INCORRECT": False}.get(word)


@functools.lru_cache(maxsize=2)
def _transcripts(model: str | None, path: str | None):
    """The recognizer and its transcript cache (``path``, else the default one), loaded once for all four tasks."""
    from lm_eval_audio.model_wrappers import transcription

    return transcription.TranscriptCache(transcription.FasterWhisper(model), path)


def question_transcripts(items: list[dict], task) -> dict[str, str]:
    """Each item's clip transcribed (``uniq_id`` -> text), through the transcript cache."""
    from lm_eval_audio.audio import decoding
    from lm_eval_audio.audio.refs import content_digest
    from lm_eval_audio.model_wrappers import transcription

    cache = _transcripts(task.metadata.get("bigbench_audio_question_asr") or None,
                         os.environ.get("LM_EVAL_AUDIO_TRANSCRIPT_CACHE") or None)
    transcriber = cache.transcriber
    task.note("bigbench_audio_question_asr", task.name, transcriber.name)
    digests = {i["uniq_id"]: content_digest(i["audio"]) for i in items}
    clips = {digests[i["uniq_id"]]: i["audio"] for i in items}
    texts, _, errors = cache.get_all(clips, lambda ref: decoding.load(ref, transcription.SAMPLING_RATE),
                                     f"Big Bench Audio: {transcriber.name} transcribes the questions for the judge")
    for _digest, error in errors.items():
        log.warning("%s: a question clip cannot be transcribed for the judge (%s): it is judged without it",
                    task.name, error)
    return {uid: texts.get(digest, "") for uid, digest in digests.items()}


def judge(items: list[dict], config: JudgeConfig, task) -> list[bool | None]:
    """Per item the verdict (True: CORRECT), None where the judge failed. Items hold ``uniq_id``, ``audio`` (the
    clip), ``answer`` and ``response``."""
    questions = task.remembered("bigbench_audio_questions", items, lambda: question_transcripts(items, task))

    def requests_for(item):
        return [("verdict", messages_for(questions[item["uniq_id"]], item["answer"], item["response"]),
                 parse_verdict, REASK)]

    verdicts = run("bigbench_audio_judge", task, config, items, requests_for, None, "Big Bench Audio judge",
                   PROMPT_VERSION)
    return [v["verdict"].parsed for v in verdicts]
