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

import hashlib
import json
import logging

from lm_eval_audio.judges import choice_scoring, task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.mmau_pro import embedding_match, instructions, judges
from lm_eval_audio.metrics.stderr import mean_stderr
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio.mmau_pro")


def process_closed(doc: dict, results: list) -> dict:
    out = choice_scoring.process_mcq(doc, results, official=False)
    item = {"doc_id": doc["doc_id"], "response": "" if doc["audio_problem"] else results[0],
            "choices": doc["choices"], "answer": doc["answer"], "audio_missing": bool(doc["audio_problem"]),
            "category": doc["category"], "sub_category": doc["sub_category"]}
    return {**out, "official_acc": item, "performance_score": item}


def process_open(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    out = {"audio_missing": float(missing)}
    if run_state.current().judge_configured:
        item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "question": doc["question"],
                "answer": doc["answer"], "response": results[0], "audio_missing": missing}
        for metric in ("performance_score", "judge_overall", "judge_correctness", "good_response_rate",
                       "poor_response_rate", "judge_failures"):
            out[metric] = item
    return out


def process_instructions(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    try:
        # The script checks str(response); a missing clip has no response and fails.
        score = 0.0 if missing else float(instructions.follows(
            results[0], doc["task_identifier"], json.loads(doc["kwargs"]), doc["question"]))
    except instructions.SentenceModelMissing:
        score = None
    item = {"doc_id": doc["doc_id"], "score": score, "task_identifier": doc["task_identifier"]}
    return {"instructions_followed": item, "performance_score": item, "instructions_unchecked": float(score is None),
            "audio_missing": float(missing)}


# --- closed: the embedding match ------------------------------------------------------------------------------


def _embedder() -> tuple[str, str | None, bool]:
    metadata = run_state.current().task_metadata
    return (str(metadata.get("mmau_pro_embedder") or embedding_match.DEFAULT_EMBEDDER),
            metadata.get("mmau_pro_embedder_device"), bool(metadata.get("mmau_pro_embedder_local_files_only")))


def _closed_scores(items: list[dict]) -> list[float] | None:
    """Each document right (1.0) or wrong by the embedding match; None, once logged, when the embedder is absent."""
    state = run_state.current()
    name, device, local_only = _embedder()
    key = "embedding_match:" + hashlib.sha256(json.dumps([name, items], sort_keys=True, default=str)
                                              .encode()).hexdigest()
    if key not in state.judge_verdicts:
        try:
            encode = embedding_match.load_encoder(name, device, local_only)
        except embedding_match.EmbedderUnavailable as e:
            state.note("unscored_metrics", f"{state.task}/official_acc", str(e))
            if ("embedder", name) not in state.warned:
                state.warned.add(("embedder", name))
                log.error("%s; official_acc and performance_score of MMAU-Pro's closed questions are NaN", e)
            state.judge_verdicts[key] = None
        else:
            present = [i for i in items if not i["audio_missing"]]
            matched = dict(zip((i["doc_id"] for i in present), embedding_match.matched_choices(present, encode)))
            state.judge_verdicts[key] = [float(i["doc_id"] in matched and matched[i["doc_id"]] == i["answer"])
                                         for i in items]
    return state.judge_verdicts[key]


def closed_official_acc(items: list[dict], metric: str = "official_acc") -> float:
    scores = _closed_scores(items)
    return float("nan") if scores is None else choice_scoring.accuracy(metric, items, scores)


def closed_performance(items: list[dict]) -> float:
    return closed_official_acc(items, "performance_score")


# --- open: the judge --------------------------------------------------------------------------------------------


def _open_verdicts(items: list[dict]) -> tuple[list[dict], list[dict | None]]:
    judged = [i for i in items if not i["audio_missing"]]
    return judged, judges.judge_open(judged, task_judge.for_aggregation(), run_state.current().task)


def _open_mean(metric: str, items: list[dict], value) -> float:
    return judged_mean(metric, *_open_verdicts(items), value, "open answer")


def open_performance(items):
    return _open_mean("performance_score", items, lambda v: v["overall"] / 5.0)


def judge_overall(items):
    return _open_mean("judge_overall", items, lambda v: v["overall"])


def judge_correctness(items):
    return _open_mean("judge_correctness", items, lambda v: v["correctness"])


def good_response_rate(items):
    return _open_mean("good_response_rate", items, lambda v: float(v["overall"] >= 4.0))


def poor_response_rate(items):
    return _open_mean("poor_response_rate", items, lambda v: float(v["overall"] <= 2.0))


def judge_failures(items):
    return sum(v is None for v in _open_verdicts(items)[1])


# --- instruction following ------------------------------------------------------------------------------------


def _instruction_rate(metric: str, items: list[dict]) -> float:
    state = run_state.current()
    state.report_item_scores(metric, [(i["doc_id"], i["score"]) for i in items])
    scores = [i["score"] for i in items if i["score"] is not None]
    unchecked = len(items) - len(scores)
    if unchecked and ("punkt", state.task) not in state.warned:
        state.warned.add(("punkt", state.task))
        state.note("unscored_items", f"{state.task}/instructions", f"{unchecked} sentence-count checks: "
                   + instructions.HOW_TO_GET_PUNKT)
        log.warning("%s: %d instruction check(s) count sentences, which needs nltk's punkt_tab model, absent here: "
                    "left out of %s and counted in instructions_unchecked; %s", state.task, unchecked, metric,
                    instructions.HOW_TO_GET_PUNKT)
    if not scores:
        return float("nan")
    state.report_stderr(metric, mean_stderr(scores))
    return sum(scores) / len(scores)


def instructions_followed(items):
    return _instruction_rate("instructions_followed", items)


def instructions_performance(items):
    return _instruction_rate("performance_score", items)
