"""MuChoMusic's scoring, as ``muchomusic_eval/scoring.py`` and ``evaluate.py`` (mulab-mir/muchomusic@d3c9a42) score.

Reading (``official_choice``): the text after the last "The correct answer is:", stripped; if exactly one of the
letters A-D occurs in it (as a character anywhere: the "B" of "Based" counts), that option; else the first option,
in the order asked, whose lower-cased text the lower-cased answer contains; else unanswered (wrong).

* ``acc``: right over every question (``accuracy``); ``ifr``: the share answered (``IFR``, 1 - unanswered rate).
* ``knowledge_acc`` / ``reasoning_acc``: accuracy over the questions with at least one knowledge / reasoning
  dimension (``knowledge.overall``, ``reasoning.overall``); each dimension's accuracy (a question counts in each of
  its dimensions), and each source's and genre's, in ``lm_eval_audio_data.official_breakdown``.

A missing clip has no answer: counted (``audio_missing``) and unanswered.
"""

from __future__ import annotations

from lm_eval_audio.benchmarks.choice_layout import accuracy_by
from lm_eval_audio.metrics.stderr import proportion_stderr
from lm_eval_audio.tasks.muchomusic.data import LETTERS

PREFIX = "The correct answer is:"


def official_choice(response, options: list[str]) -> int:
    """The option index the official ``extract_responses`` reads, -1 for unanswered."""
    if not isinstance(response, str):
        return -1
    output = response.split(PREFIX)[-1].strip()
    letters = set(LETTERS).intersection(output)
    if len(letters) == 1:
        return LETTERS.index(letters.pop())
    lowered = output.lower().strip()
    for j, option in enumerate(options):
        if option.lower().strip() in lowered:
            return j
    return -1


def process_results(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    choice = -1 if missing else official_choice(results[0], doc["options"])
    right = float(choice == doc["answer_index"])
    item = {"doc_id": doc["doc_id"], "score": right, "knowledge": doc["knowledge"], "reasoning": doc["reasoning"],
            "source": doc["source"], "genre": doc["genre"], "matched": doc["matched"]}
    return {"acc": right, "ifr": float(choice != -1), "knowledge_acc": item, "reasoning_acc": item,
            "audio_missing": float(missing)}


def _subset_acc(items: list[dict], task, dimension: str) -> float:
    if not all(i["matched"] for i in items):  # data.load_docs named the questions
        return task.not_a_number(f"{dimension}_acc", "which questions carry the dimension cannot all be told: some "
                                 "questions match no row of the official muchomusic.csv (named in the results under "
                                 "lm_eval_audio_data); acc covers every question")
    tagged = [i for i in items if i[dimension]]
    task.report_item_scores(f"{dimension}_acc", [(i["doc_id"], i["score"] if i[dimension] else None) for i in items])
    per_dimension = {}
    for item in tagged:
        for name in item[dimension]:
            entry = per_dimension.setdefault(name, {"items": 0, "correct": 0.0})
            entry["items"] += 1
            entry["correct"] += item["score"]
    accuracies = {name: {"items": v["items"], "accuracy": v["correct"] / v["items"]}
                  for name, v in sorted(per_dimension.items())}
    task.note_for_task("official_breakdown", f"{dimension}_acc", {"dimension": accuracies})
    if not tagged:
        return task.not_a_number(f"{dimension}_acc", f"no question of this run carries a {dimension} dimension")
    acc = sum(i["score"] for i in tagged) / len(tagged)
    task.report_stderr(f"{dimension}_acc", proportion_stderr(acc, len(tagged)))
    return acc


def knowledge_acc(items: list[dict], task) -> float:
    task.note_for_task("official_breakdown", "acc", {f: accuracy_by(f, [(i, i["score"]) for i in items])
                                                     for f in ("source", "genre")})
    return _subset_acc(items, task, "knowledge")


def reasoning_acc(items: list[dict], task) -> float:
    return _subset_acc(items, task, "reasoning")
