"""Big Bench Audio's score: the share of questions the judge labels CORRECT (``judges``), per task (one per
category) and pooled over the ``bigbench_audio`` group; the per-category accuracies in
``lm_eval_audio_data.official_breakdown``.

A question whose clip is missing has no answer: it counts as INCORRECT without a call (``audio_missing``). A
question the judge could not label is left out of the accuracy and counted (``judge_failures``).
Artificial Analysis average three independent runs of each model; one run is one run here.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_by
from lm_eval_audio.judges import task_judge
from lm_eval_audio.metrics.stderr import proportion_stderr
from lm_eval_audio.tasks.bigbench_audio import judges


def process_results(doc: dict, results: list, task) -> dict:
    missing = bool(doc["audio_problem"])
    out = {"audio_missing": float(missing)}
    if task.judged:
        item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "category": doc["category"],
                "answer": doc["answer"], "audio": doc["audio"][0], "response": "" if missing else results[0],
                "missing": missing}
        out.update(judge_acc=item, judge_failures=item)
    return out


def _verdicts(items: list[dict], task) -> list[bool | None]:
    """Per item: True (CORRECT), False (INCORRECT, or no clip), None (the judge failed)."""
    judged = [i for i in items if not i["missing"]]
    found = dict(zip((i["doc_id"] for i in judged), judges.judge(judged, task_judge.for_aggregation(task), task)))
    return [False if i["missing"] else found[i["doc_id"]] for i in items]


def judge_acc(items: list[dict], task) -> float:
    verdicts = _verdicts(items, task)
    task.report_item_scores("judge_acc", [(i["doc_id"], None if v is None else float(v)) for i, v in zip(items, verdicts)])
    pairs = [(i, float(v)) for i, v in zip(items, verdicts) if v is not None]
    task.note_for_task("official_breakdown", "judge_acc", {"category": accuracy_by("category", pairs)})
    if not pairs:
        return task.not_a_number("judge_acc", f"the judge gave a verdict on none of the {len(items)} item(s) "
                                 "(judge_failures counts them): check its endpoint and the judge log beside the results")
    acc = sum(s for _, s in pairs) / len(pairs)
    task.report_stderr("judge_acc", proportion_stderr(acc, len(pairs)))
    return acc


def judge_failures(items: list[dict], task) -> int:
    return sum(v is None for v in _verdicts(items, task))
