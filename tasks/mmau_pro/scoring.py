"""MMAU-Pro's scores per question kind, as ``evaluate_mmau_pro_comprehensive.py`` (sonalkum/MMAUPro@960e93a4)
computes them, and its overall number.

* closed: ``official_acc``, the embedding match (``lm_eval_audio.tasks.mmau_pro.embedding_match``), plus the paper's
  ``glitters_acc`` (``lm_eval_audio.judges.choice_scoring``);
* ``open``: the judge's five 1-5 scores (``lm_eval_audio.tasks.mmau_pro.judges``): ``judge_overall`` (the
  script's avg_overall), ``judge_correctness``, ``good_response_rate`` (overall >= 4) and
  ``poor_response_rate`` (<= 2);
* ``instruction following``: ``instructions_followed``, the success rate of the rule checks
  (``lm_eval_audio.tasks.mmau_pro.instructions``).

Every kind also reports ``performance_score``, the script's per-category number: the accuracy, avg_overall / 5,
or the success rate. The ``mmau_pro`` group averages it weighted by each category's size: the script's "Overall
Weighted Performance".

Documents left out of a score, each counted: a missing clip (``audio_missing``; closed and instruction-following
documents score it wrong, as there is no response; open ones are left out of the judged means), a judge failure
(``judge_failures``), an instruction check that needs nltk's sentence model where it is absent
(``instructions_unchecked``).
"""

from __future__ import annotations

import json
import logging

from lm_eval_audio.judges import choice_scoring, task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.mmau_pro import embedding_match, instructions, judges
from lm_eval_audio.metrics.stderr import mean_stderr

log = logging.getLogger("lm_eval.audio.mmau_pro")


def process_closed(doc: dict, results: list, task) -> dict:
    out = choice_scoring.process_mcq(doc, results, task, official=False)
    item = {"doc_id": doc["doc_id"], "response": "" if doc["audio_problem"] else results[0],
            "choices": doc["choices"], "answer": doc["answer"], "audio_missing": bool(doc["audio_problem"]),
            "category": doc["category"], "sub_category": doc["sub_category"]}
    return {**out, "official_acc": item, "performance_score": item}


def process_open(doc: dict, results: list, task) -> dict:
    missing = bool(doc["audio_problem"])
    out = {"audio_missing": float(missing)}
    if task.judged:
        item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "question": doc["question"],
                "answer": doc["answer"], "response": results[0], "audio_missing": missing}
        for metric in ("performance_score", "judge_overall", "judge_correctness", "good_response_rate",
                       "poor_response_rate", "judge_failures"):
            out[metric] = item
    return out


def process_instructions(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    kwargs, crash = json.loads(doc["kwargs"]), None
    try:
        # The script checks str(response); a missing clip has no response and fails.
        score = 0.0 if missing else float(instructions.follows(
            results[0], doc["task_identifier"], kwargs, doc["question"]))
    except instructions.SentenceModelMissing:
        score = None
    except (TypeError, AttributeError) as e:
        if None not in kwargs.values():
            raise
        # A null kwargs field the check compares or calls a method on: the official script stops there with this
        # error; the item counts as failed, and is named in the results.
        score, crash = 0.0, f"{type(e).__name__}: {e}"
    item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "score": score,
            "task_identifier": doc["task_identifier"], "script_error": crash}
    return {"instructions_followed": item, "performance_score": item, "instructions_unchecked": float(score is None),
            "audio_missing": float(missing)}


# --- closed: the embedding match ------------------------------------------------------------------------------


def _embedder(task) -> tuple[str, str | None, bool]:
    metadata = task.metadata
    return (str(metadata.get("mmau_pro_embedder") or embedding_match.DEFAULT_EMBEDDER),
            metadata.get("mmau_pro_embedder_device"), bool(metadata.get("mmau_pro_embedder_local_files_only")))


def _closed_scores(items: list[dict], task) -> list[float] | None:
    """Each document right (1.0) or wrong by the embedding match; None, once logged, when the embedder is absent.
    Matched once per run: official_acc and performance_score read the same items."""
    name, device, local_only = _embedder(task)

    def match():
        try:
            encode = embedding_match.load_encoder(name, device, local_only)
        except embedding_match.EmbedderUnavailable as e:
            task.note("unscored_metrics", f"{task.name}/official_acc", str(e))
            if task.first_time_in_command(("embedder", name)):  # the same in every run of the command
                log.warning("%s; official_acc and performance_score of MMAU-Pro's closed questions are NaN", e)
            return None
        present = [i for i in items if not i["audio_missing"]]
        try:
            choices = embedding_match.matched_choices(present, encode)
        except Exception as e:  # the embedder's own code (remote, written for older transformers), memory: the
            # answers are in; the two metrics are NaN with why, not an error that loses them
            why = f"the embedding match failed: {type(e).__name__}: {e}"
            task.note("unscored_metrics", f"{task.name}/official_acc", why)
            log.warning("%s: %s; official_acc and performance_score of its closed questions are NaN", task.name, why)
            return None
        matched = dict(zip((i["doc_id"] for i in present), choices))
        return [float(i["doc_id"] in matched and matched[i["doc_id"]] == i["answer"]) for i in items]

    return task.remembered(f"embedding_match:{name}", items, match)


def closed_official_acc(items: list[dict], task, metric: str = "official_acc") -> float:
    scores = _closed_scores(items, task)
    if scores is None:
        return task.not_a_number(metric, "its embedding match did not run here (lm_eval_audio_data.unscored_metrics "
                                         "says why and how to get it)", said=True)
    return choice_scoring.accuracy(task, metric, items, scores)


def closed_performance(items: list[dict], task) -> float:
    return closed_official_acc(items, task, "performance_score")


# --- open: the judge --------------------------------------------------------------------------------------------


def _open_verdicts(items: list[dict], task) -> tuple[list[dict], list[dict | None]]:
    judged = [i for i in items if not i["audio_missing"]]
    return judged, judges.judge_open(judged, task_judge.for_aggregation(task), task)


def _open_mean(task, metric: str, items: list[dict], value) -> float:
    return judged_mean(task, metric, *_open_verdicts(items, task), value, "open answer")


def open_performance(items, task):
    return _open_mean(task, "performance_score", items, lambda v: v["overall"] / 5.0)


def judge_overall(items, task):
    return _open_mean(task, "judge_overall", items, lambda v: v["overall"])


def judge_correctness(items, task):
    return _open_mean(task, "judge_correctness", items, lambda v: v["correctness"])


def good_response_rate(items, task):
    return _open_mean(task, "good_response_rate", items, lambda v: float(v["overall"] >= 4.0))


def poor_response_rate(items, task):
    return _open_mean(task, "poor_response_rate", items, lambda v: float(v["overall"] <= 2.0))


def judge_failures(items, task):
    return sum(v is None for v in _open_verdicts(items, task)[1])


# --- instruction following ------------------------------------------------------------------------------------


def _instruction_rate(task, metric: str, items: list[dict]) -> float:
    task.report_item_scores(metric, [(i["doc_id"], i["score"]) for i in items])
    scores = [i["score"] for i in items if i["score"] is not None]
    unchecked = len(items) - len(scores)
    if unchecked and task.first_time(("punkt", task.name)):
        task.note("unscored_items", f"{task.name}/instructions", f"{unchecked} sentence-count checks: "
                  + instructions.HOW_TO_GET_PUNKT)
        log.warning("%s: %d instruction check(s) count sentences, which needs nltk's punkt_tab model, absent here: "
                    "left out of %s and counted in instructions_unchecked; %s", task.name, unchecked, metric,
                    instructions.HOW_TO_GET_PUNKT)
    crashed = [i for i in items if i.get("script_error")]
    for i in crashed:
        task.note("instruction_checks_the_script_cannot_run", f"{task.name}/{i['uniq_id']}",
                  f"{i['task_identifier']}: {i['script_error']}")
    if crashed and task.first_time(("script_errors", task.name)):
        log.warning("%s: %d instruction item(s) have a null kwargs field their check needs, where the official "
                    "script stops with an error; counted as not followed: %s", task.name, len(crashed),
                    "; ".join(f"id {i['uniq_id']} ({i['task_identifier']}: {i['script_error']})" for i in crashed[:5]))
    if not scores:
        return task.not_a_number(metric, "no instruction check could be scored (each item's clip missing, or its "
                                 "check unchecked: instructions_unchecked counts those)")
    task.report_stderr(metric, mean_stderr(scores))
    return sum(scores) / len(scores)


def instructions_followed(items, task):
    return _instruction_rate(task, "instructions_followed", items)


def instructions_performance(items, task):
    return _instruction_rate(task, "performance_score", items)
