"""OpenAudioBench's scores, per subset on the 0-100 scale Baichuan-Audio's, Kimi-Audio's and LongCat's tables print
(Baichuan-Omni-1.5's README prints Web Questions, TriviaQA and AlpacaEval on 0-10: baichuan-inc/Baichuan-Omni-1.5@
51f55ff README.md:826-830), with the arithmetic of MoonshotAI/Kimi-Audio-Evalkit@4080c49
almeval/datasets/ds_refqa.py:311-383:

* ``judge_score``: AlpacaEval, 10 x the mean 1-10 rating; Reasoning QA, 20 x the mean 0-5 grade; Llama Questions,
  TriviaQA, Web Questions, 100 x the share judged correct (``judges`` reads the verdicts).
* ``judge_failures``: the items whose verdict could not be read. TriviaQA's and Web Questions' replies that were
  given but read no way count as wrong, as the Hub scripts count them (their ``{"judgment": ""}``, AudioCompass@
  bafbcb0 evaluator/trivia_qa.py:45-63, web_qst.py:46-64): ``UNREAD_IS_WRONG``. The other failures (no reply from
  the endpoint, and any unread reply of the other three subsets) are left out of the score, as Kimi-Audio-Evalkit
  leaves its "invalid" out (ds_refqa.py:311-383); the Hub scripts average a -1 into Reasoning QA (reasoning.py:
  63-70) and stop on AlpacaEval's out-of-range ratings and Llama Questions' unread replies.

The ``openaudiobench`` group's ``judge_score`` is the unweighted mean of the five 0-100 scores: a convenience of
this plugin. No source read prints an OpenAudioBench average (baichuan-inc/Baichuan-Audio@805d456 assets/result.png,
MoonshotAI/Kimi-Audio@2607d51 README.md:458-481, meituan-longcat/LongCat-Flash-Omni@5481889 README.md:183-188 print
the five alone). Without a judge, ``judge_score`` is NaN with its reason (the answers are logged); a missing clip
is not judged: counted in ``audio_missing``.
"""

from __future__ import annotations

from lm_eval_audio.judges import task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.openaudiobench import judges

NO_JUDGE = ("no judge is configured, and OpenAudioBench scores every subset with its GPT judge only (the group mean "
            "too): set OPENAI_API_KEY, or OPENAI_BASE_URL for any OpenAI-compatible server, or "
            "LM_EVAL_AUDIO_OPENAUDIOBENCH_JUDGE_*")


def process_results(doc: dict, results: list, task) -> dict:
    """Without a judge only ``judge_score`` is kept, to be NaN with its reason."""
    missing = bool(doc["audio_problem"])
    item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "subset": doc["subset"], "question": doc["question"],
            "reference": doc["reference"], "response": "" if missing else results[0], "missing": missing}
    out = {"audio_missing": float(missing), "judge_score": item}
    if task.judged:
        out["judge_failures"] = item
    return out


def _unjudged(task) -> bool:
    if task.judged:
        return False
    task.note("unscored_metrics", f"{task.name}/judge_score", "no judge configured: this score, and the "
              "openaudiobench group's Overall, are NaN; the answers are logged")
    return True


# The subsets whose Hub script counts a judge reply it cannot read as a wrong answer
UNREAD_IS_WRONG = ("trivia_qa", "web_questions")


def _verdicts(items: list[dict], task) -> tuple[list[dict], list]:
    """The judged items and, per item, ``(verdict, replied)`` (``judges.judge``)."""
    judged = [i for i in items if not i["missing"]]
    subset = judged[0]["subset"] if judged else ""
    return judged, (judges.judge(subset, judged, task_judge.for_aggregation(task), task) if judged else [])


def scored_verdict(subset: str, verdict, replied: bool):
    """What enters the score: the verdict; for TriviaQA and Web Questions a given but unread reply is False."""
    return False if verdict is None and replied and subset in UNREAD_IS_WRONG else verdict


def judge_score(items: list[dict], task) -> float:
    if _unjudged(task):
        return task.not_a_number("judge_score", NO_JUDGE, said=True)  # the preflight warns once per command
    judged, outcomes = _verdicts(items, task)
    if not judged:
        return task.not_a_number("judge_score", "no item has a usable clip (audio_missing counts them)")
    subset = judged[0]["subset"]
    verdicts = [scored_verdict(subset, verdict, replied) for verdict, replied in outcomes]
    return judged_mean(task, "judge_score", judged, verdicts, judges.POINTS[subset], "answer")


def judge_failures(items: list[dict], task) -> int:
    """Every item whose verdict was not read, those counted wrong included."""
    return sum(verdict is None for verdict, _ in _verdicts(items, task)[1])
