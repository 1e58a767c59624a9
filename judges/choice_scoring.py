"""Per-document results and aggregations of multiple-choice tasks (MMAU's, MMAR's and MMAU-Pro's folders use them).

Each document is scored twice, so the benchmark's number and the paper's come out of one run:

* ``official_acc``: the benchmark's own rule (MMAU and MMAR: ``choice_matching.official_string_match`` on the
  raw response; MMAU-Pro: ``lm_eval_audio.tasks.mmau_pro.embedding_match``), micro-averaged, with the official
  script's per-group accuracies in the results (``lm_eval_audio_data.official_breakdown.<task>``);
* ``glitters_acc``: arXiv 2604.24401's reading: a letter read by pattern or by the option's text
  (``choice_matching.read_letter``), else the judge's (``lm_eval_audio.judges.choice_judge``); an empty
  response, a response the judge could not read, and a missing clip count as wrong, over all documents.

Judge-free beside them: ``pattern_acc``, right by that pattern and option-text reading alone, every response only
a judge could read counted wrong (a lower bound of ``glitters_acc``, and no benchmark's or paper's number: it is
there for runs without a judge). Counts: ``glitters_judge_calls`` (responses only the judge could read),
``glitters_judge_failures``, ``pattern_read`` (the share read without the judge; a rate, not a score) and
``audio_missing``.
"""

from __future__ import annotations

from lm_eval_audio.metrics.choice_matching import answer_letter, official_string_match, read_letter
from lm_eval_audio.judges import choice_judge, task_judge
from lm_eval_audio.metrics.stderr import proportion_stderr


BREAKDOWN_FIELDS = ("task", "difficulty", "modality", "category", "sub_category")
# What the benchmark folders that score this way declare (their benchmark.py): glitters_acc first, the paper's
# number; official_acc the benchmark's own rule; pattern_acc the judge-free lower bound (a run without a judge).
HEADLINE_METRICS = ("glitters_acc", "official_acc", "pattern_acc")
COUNT_METRICS = ("glitters_judge_calls", "glitters_judge_failures")
JUDGE_METRICS = ("glitters_acc",)
RATE_METRICS = {"pattern_read": "read without the judge"}


def _group_fields(doc: dict) -> dict:
    return {k: doc[k] for k in BREAKDOWN_FIELDS if doc.get(k) is not None}


def process_mcq(doc: dict, results: list, task, official: bool = True) -> dict:
    """The document's results; ``official=False`` where the benchmark's rule is not a string match (MMAU-Pro)."""
    response = results[0]
    missing = bool(doc["audio_problem"])
    text, letter = read_letter(response, doc["choices"])
    if missing:
        text, letter = "", None  # the model was not run on it
    gold = answer_letter(doc["answer"], doc["choices"])
    out = {
        "pattern_read": float(not missing and letter is not None),
        "pattern_acc": float(letter is not None and letter == gold),
        "glitters_judge_calls": float(not missing and letter is None and bool(text.strip())),
        "audio_missing": float(missing),
    }
    if official:
        right = not missing and official_string_match(doc["answer"], response, doc["choices"])
        out["official_acc"] = {"doc_id": doc["doc_id"], "score": float(right), **_group_fields(doc)}
    if task.judged:
        item = {
            "doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "question": doc["question"],
            "choices": doc["choices"], "answer": doc["answer"],
            "answer_letter": gold,
            "response": text, "letter": letter, "audio_missing": missing, **_group_fields(doc),
        }
        out["glitters_acc"] = item
        out["glitters_judge_failures"] = item
    return out


def report_breakdown(task, metric: str, items: list[dict], scores: list[float]) -> None:
    """The official scripts' per-group accuracies (per task, difficulty, modality, category, sub-category)."""
    from lm_eval_audio.benchmarks.choice_layout import accuracy_by

    pairs = list(zip(items, scores))
    breakdown = {field: accuracy_by(field, pairs) for field in BREAKDOWN_FIELDS if any(field in i for i in items)}
    task.note_for_task("official_breakdown", metric, breakdown)


def accuracy(task, metric: str, items: list[dict], scores: list[float]) -> float:
    """The mean of 0/1 scores, with each document's score, the official breakdown and the standard error
    reported beside it."""
    task.report_item_scores(metric, [(i["doc_id"], s) for i, s in zip(items, scores)])
    report_breakdown(task, metric, items, scores)
    acc = sum(scores) / len(scores)
    task.report_stderr(metric, proportion_stderr(acc, len(scores)))
    return acc


def official_acc(items: list[dict], task) -> float:
    """MMAU's / MMAR's accuracy: the string-match rule, over every document (a missing clip counts wrong)."""
    return accuracy(task, "official_acc", items, [i["score"] for i in items])


def _needs_judge(item: dict) -> bool:
    return not item["audio_missing"] and item["letter"] is None and bool(item["response"].strip())


def _glitters_verdicts(items: list[dict], task) -> list[bool | None]:
    """Per item: right or wrong, None where the judge was needed and failed."""
    asked = [i for i in items if _needs_judge(i)]
    verdicts = dict(zip((i["doc_id"] for i in asked),
                        choice_judge.judge_choices(asked, task_judge.for_aggregation(task), task)
                        if asked else []))
    out = []
    for item in items:
        if item["letter"] is None and not _needs_judge(item):
            out.append(False)  # a missing clip, an empty response
        elif item["letter"] is not None:
            out.append(item["answer_letter"] is not None and item["letter"] == item["answer_letter"])
        else:
            verdict = verdicts[item["doc_id"]]
            if verdict is None:
                out.append(None)
                continue
            selected, judged_right = verdict
            out.append(selected == item["answer_letter"] if selected and item["answer_letter"] else judged_right)
    return out


def glitters_acc(items: list[dict], task) -> float:
    """The paper's accuracy: right over all documents; a judge failure counts wrong (and is counted)."""
    verdicts = _glitters_verdicts(items, task)
    judged = [v for i, v in zip(items, verdicts) if _needs_judge(i)]
    if judged and all(v is None for v in judged):
        # Not a score of 0: the judge answered nothing usable (a wrong key, model or endpoint).
        return task.not_a_number("glitters_acc", f"the judge could read none of the {len(judged)} responses it was "
                                                 "given (the judge log has its replies)")
    return accuracy(task, "glitters_acc", items, [float(bool(v)) for v in verdicts])


def glitters_judge_failures(items: list[dict], task) -> int:
    return sum(v is None for v in _glitters_verdicts(items, task))
