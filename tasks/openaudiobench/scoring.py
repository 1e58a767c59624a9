"""OpenAudioBench's scores, per subset on the 0-100 scale its reports print (Baichuan-Omni-1.5's, Kimi-Audio's,
Step-Audio 2's and LongCat's tables; the arithmetic of MoonshotAI/Kimi-Audio-Evalkit@4080c49
almeval/datasets/ds_refqa.py:311-383):

* ``judge_score``: AlpacaEval, 10 x the mean 1-10 rating; Reasoning QA, 20 x the mean 1-5 grade; Llama Questions,
  TriviaQA, Web Questions, 100 x the share judged correct; each over the items whose verdict was read (``judges``).
* ``judge_failures``: the items whose verdict could not be read, left out of the score (Kimi-Audio-Evalkit's
  "invalid"; the Hub scripts average a -1 into Reasoning QA, count TriviaQA's and Web Questions' wrong, and stop on
  AlpacaEval's and Llama Questions').

The ``openaudiobench`` group's ``judge_score`` is the unweighted mean of the five (the reports' "Avg": Kimi-Audio's
row 58.02, 79.33, 70.20, 62.10, 75.73 averages to the 69.08 printed beside it). Without a judge, ``judge_score`` is
NaN with its reason (the answers are logged); a missing clip is not judged: counted in ``audio_missing``.
"""

from __future__ import annotations

from lm_eval_audio.judges import task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.openaudiobench import judges

NO_JUDGE = ("no judge is configured, and OpenAudioBench scores every subset with its GPT judge only (its Overall "
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


def _verdicts(items: list[dict], task) -> tuple[list[dict], list]:
    judged = [i for i in items if not i["missing"]]
    subset = judged[0]["subset"] if judged else ""
    return judged, (judges.judge(subset, judged, task_judge.for_aggregation(task), task) if judged else [])


def judge_score(items: list[dict], task) -> float:
    if _unjudged(task):
        return task.not_a_number("judge_score", NO_JUDGE, said=True)  # the preflight warns once per command
    judged, verdicts = _verdicts(items, task)
    if not judged:
        return task.not_a_number("judge_score", "no item has a usable clip (audio_missing counts them)")
    return judged_mean(task, "judge_score", judged, verdicts, judges.POINTS[judged[0]["subset"]], "answer")


def judge_failures(items: list[dict], task) -> int:
    return sum(v is None for v in _verdicts(items, task)[1])
