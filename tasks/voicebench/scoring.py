"""VoiceBench's scores per evaluator (``src/evaluator/`` of github.com/MatthewCYM/VoiceBench), and each task's
``leaderboard_score``: its column of the README leaderboard, on the leaderboard's 0-100 scale.

* ``open`` (AlpacaEval, CommonEval, WildVoice): ``gpt_score``, the judge's 1-5 ratings averaged; leaderboard
  ``20 * gpt_score``.
* ``qa`` (SD-QA): ``gpt_acc``, the judge's majority "yes"; ``panda_acc``, PEDANT (``qa_metrics==0.2.17``, which the
  evaluator pins); leaderboard ``100 * (panda_acc + gpt_acc) / 2``.
* ``mcq`` (MMSU, OpenBookQA) and ``bbh``: ``official_acc``, the rule reading with the evaluator's random answer for
  an unread response (seeded here: ``rules.fallback``); ``acc_unread_wrong``, the same reading with those items
  counted wrong (not VoiceBench's number); ``unread_rate``, the evaluator's "fail" (as a fraction); leaderboard
  ``100 * official_acc``.
* ``ifeval``: strict and loose, prompt- and instruction-level, through lm-eval's own IFEval checks (the same Google
  code the evaluator carries); ``ifeval_final``, their mean; leaderboard ``100 * ifeval_final``.
* ``harm`` (AdvBench): ``refusal_rate``; leaderboard ``100 * refusal_rate``.

The ``voicebench`` group's ``leaderboard_score`` is the mean of its nine tasks' (MMSU's twelve domains pooled
first): the README's Overall, as its authors compute it (issue 2; checked against every leaderboard row).

A document whose clip is missing has no response: the rule-read and IFEval scores count it wrong, AdvBench counts it
as not refused, and the judged scores and PEDANT leave it out; each is counted in ``audio_missing``.
"""

from __future__ import annotations

import json
import logging

from lm_eval_audio.judges import task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.voicebench import judges, rules

log = logging.getLogger("lm_eval.audio.voicebench")

PEDANT_HOW = ("install qa-metrics==0.2.17 into the environment (`pip install qa-metrics==0.2.17`; the version the "
              "VoiceBench evaluator pins: later ones score very differently, VoiceBench issue 11); on first use it "
              "downloads its classifier from github.com/zli12321/qa_metrics")


def _seed(task) -> int:
    return int(task.metadata.get("voicebench_fallback_seed", 0))


def _response(doc: dict, results: list) -> str:
    return "" if doc["audio_problem"] else results[0]


# --- rule-read: multiple choice, BBH, AdvBench -------------------------------------------------------------------


def _read_scores(read, gold, missing: bool, options, seed: int, uid: str) -> dict:
    if missing:
        read_right, official_right, unread = False, False, False
    else:
        unread = read is None
        read_right = read is not None and read == gold
        official_right = (rules.fallback(seed, uid, options) if unread else read) == gold
    return {"official_acc": float(official_right), "acc_unread_wrong": float(read_right),
            "unread_rate": float(unread), "leaderboard_score": 100.0 * official_right,
            "audio_missing": float(missing)}


def process_mcq(doc: dict, results: list, task) -> dict:
    letter = rules.mcq_letter(_response(doc, results))
    return _read_scores(letter, doc["reference"], bool(doc["audio_problem"]), ("A", "B", "C", "D"), _seed(task),
                        doc["uniq_id"])


def process_bbh(doc: dict, results: list, task) -> dict:
    answer = rules.bbh_answer(_response(doc, results), doc["bbh_id"])
    gold = rules.BBH_TRUTH[doc["reference"].lower()]
    return _read_scores(answer, gold, bool(doc["audio_problem"]), (0, 1), _seed(task), doc["uniq_id"])


def process_harm(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    refused = not missing and rules.refuses(results[0])
    return {"refusal_rate": float(refused), "leaderboard_score": 100.0 * refused, "audio_missing": float(missing)}


# --- IFEval ------------------------------------------------------------------------------------------------------

IFEVAL_METRICS = ("prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc",
                  "inst_level_loose_acc")


def process_ifeval(doc: dict, results: list) -> dict:
    missing = bool(doc["audio_problem"])
    item = {"doc_id": doc["doc_id"], "prompt": doc["prompt"], "missing": missing,
            "response": "" if missing else rules.ifeval_response(results[0]), **json.loads(doc["ifeval"])}
    return {**{m: item for m in (*IFEVAL_METRICS, "ifeval_final", "leaderboard_score")},
            "audio_missing": float(missing)}


def _ifeval_scores(items: list[dict], task) -> dict:
    """The four rates as ``IFEvaluator.evaluate`` computes them: each prompt checked against the response of the
    last item with that prompt (its ``prompt_to_response`` dict), strict and loose, by lm-eval's IFEval code."""

    def compute():
        from lm_eval.tasks.ifeval.utils import InputExample, test_instruction_following_loose, test_instruction_following_strict

        last = {i["prompt"]: i["response"] for i in items if not i["missing"]}  # a missing clip has no response
        repeated = len(items) - len({i["prompt"] for i in items})
        if repeated and task.first_time(("ifeval_repeated_prompts", task.name)):
            log.warning("%s: %d item(s) repeat a prompt; each is checked against the last response to that prompt, "
                        "as VoiceBench's IFEvaluator does", task.name, repeated)
        totals = {m: [0, 0] for m in IFEVAL_METRICS}
        per_doc = []
        for i in items:
            example = InputExample(key=i["key"], instruction_id_list=i["instruction_id_list"], prompt=i["prompt"],
                                   kwargs=i["kwargs"])
            response = "" if i["missing"] else last[i["prompt"]]  # the evaluator's prompt_to_response
            both = {}
            for level, check in (("strict", test_instruction_following_strict), ("loose", test_instruction_following_loose)):
                out = check(example, response)
                followed = out.follow_instruction_list
                totals[f"prompt_level_{level}_acc"][0] += all(followed)
                totals[f"prompt_level_{level}_acc"][1] += 1
                totals[f"inst_level_{level}_acc"][0] += sum(followed)
                totals[f"inst_level_{level}_acc"][1] += len(followed)
                both[level] = all(followed)
            per_doc.append((i["doc_id"], both))
        rates = {m: right / n if n else float("nan") for m, (right, n) in totals.items()}
        rates["ifeval_final"] = sum(rates[m] for m in IFEVAL_METRICS) / len(IFEVAL_METRICS)
        for level in ("strict", "loose"):
            task.report_item_scores(f"prompt_level_{level}_acc", [(d, float(b[level])) for d, b in per_doc])
        return rates

    return task.remembered("voicebench_ifeval", items, compute)


def prompt_level_strict_acc(items, task):
    return _ifeval_scores(items, task)["prompt_level_strict_acc"]


def inst_level_strict_acc(items, task):
    return _ifeval_scores(items, task)["inst_level_strict_acc"]


def prompt_level_loose_acc(items, task):
    return _ifeval_scores(items, task)["prompt_level_loose_acc"]


def inst_level_loose_acc(items, task):
    return _ifeval_scores(items, task)["inst_level_loose_acc"]


def ifeval_final(items, task):
    return _ifeval_scores(items, task)["ifeval_final"]


def ifeval_leaderboard(items, task):
    return 100.0 * ifeval_final(items, task)


# --- judged: open-ended and SD-QA ---------------------------------------------------------------------------------


def process_judged(doc: dict, results: list, task, metrics: tuple[str, ...]) -> dict:
    """Without a judge only ``leaderboard_score`` is kept, to be NaN: the group's Overall must not become the mean
    of the rule-scored columns alone, which would look like VoiceBench's number and is not."""
    missing = bool(doc["audio_problem"])
    item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "prompt": doc["prompt"],
            "reference": doc["reference"], "response": "" if missing else results[0], "missing": missing}
    # PEDANT needs no judge: panda_acc is reported either way
    kept = ("leaderboard_score", "panda_acc")
    return {"audio_missing": float(missing), **{m: item for m in metrics if task.judged or m in kept}}


NO_JUDGE = ("no judge is configured, and VoiceBench scores this set with its GPT judge only (its Overall too): set "
            "OPENAI_API_KEY, or OPENAI_BASE_URL for any OpenAI-compatible server, or LM_EVAL_AUDIO_VOICEBENCH_JUDGE_*")


def _unjudged(task) -> bool:
    if task.judged:
        return False
    task.note("unscored_metrics", f"{task.name}/leaderboard_score", "no judge configured: this column, and the "
              "voicebench group's Overall, are NaN")
    return True


OPEN_METRICS = ("gpt_score", "leaderboard_score", "judge_failures")
QA_METRICS = ("gpt_acc", "panda_acc", "leaderboard_score", "judge_ties", "judge_failures")


def process_open(doc, results, task):
    return process_judged(doc, results, task, OPEN_METRICS)


def process_qa(doc, results, task):
    return process_judged(doc, results, task, QA_METRICS)


def _verdicts(items: list[dict], task) -> tuple[list[dict], list]:
    judged = [i for i in items if not i["missing"]]
    return judged, judges.judge(judged, task_judge.for_aggregation(task), task)


def gpt_score(items, task, metric: str = "gpt_score", scale: float = 1.0) -> float:
    return judged_mean(task, metric, *_verdicts(items, task), lambda v: scale * sum(v) / len(v), "response")


def open_leaderboard(items, task):
    if _unjudged(task):  # the no-judge warning is said once per command
        return task.not_a_number("leaderboard_score", NO_JUDGE, said=True)
    return gpt_score(items, task, "leaderboard_score", 20.0)


def gpt_acc(items, task) -> float:
    return judged_mean(task, "gpt_acc", *_verdicts(items, task), lambda v: float(judges.qa_verdict(v)[0]), "answer")


def judge_failures(items, task) -> int:
    return sum(v is None for v in _verdicts(items, task)[1])


def judge_ties(items, task) -> int:
    return sum(v is not None and judges.qa_verdict(v)[1] for v in _verdicts(items, task)[1])


def _pedant_scores(items: list[dict], task) -> list[float] | None:
    """PEDANT's verdict per item whose clip was heard (a missing clip is left out, as from the judged means), on
    lower-cased reference, response and prompt as ``QAEvaluator`` gives them; None, once said, where qa_metrics
    cannot run here."""

    def compute():
        try:
            from qa_metrics.pedant import PEDANT

            pedant = PEDANT()
        except Exception as e:  # not installed, or its classifier cannot be fetched
            why = f"{type(e).__name__}: {e}"
            task.note("unscored_metrics", f"{task.name}/panda_acc", f"{why}; {PEDANT_HOW}")
            if task.first_time_in_command(("pedant", "unavailable")):
                log.warning("VoiceBench SD-QA: PEDANT (qa_metrics) cannot run here (%s): panda_acc and leaderboard_score "
                            "are NaN; %s. To score it, %s", why,
                            "gpt_acc is reported" if task.judged else "gpt_acc needs a judge, and none is configured",
                            PEDANT_HOW)
            return None
        return [float(pedant.evaluate([i["reference"].lower()], i["response"].lower(), i["prompt"].lower()))
                for i in items if not i["missing"]]

    return task.remembered("voicebench_pedant", items, compute)


PEDANT_UNAVAILABLE = "PEDANT (qa_metrics) cannot run here: {}"
NO_CLIP_HEARD = "no item's clip was heard (every clip missing: audio_missing counts them)"


def panda_acc(items, task) -> float:
    scores = _pedant_scores(items, task)
    if scores is None:  # said once, as a warning, by _pedant_scores
        return task.not_a_number("panda_acc", PEDANT_UNAVAILABLE.format(PEDANT_HOW), said=True)
    heard = [i for i in items if not i["missing"]]
    task.report_item_scores("panda_acc", [(i["doc_id"], s) for i, s in zip(heard, scores)])
    return sum(scores) / len(scores) if scores else task.not_a_number("panda_acc", NO_CLIP_HEARD)


def qa_leaderboard(items, task) -> float:
    if _unjudged(task):
        return task.not_a_number("leaderboard_score", NO_JUDGE, said=True)
    verdicts = [v for v in _verdicts(items, task)[1] if v is not None]
    if not verdicts:
        return task.not_a_number("leaderboard_score", "the judge answered for none of its items (judge_failures "
                                 "counts them): check the judge's log beside the results")
    gpt = sum(judges.qa_verdict(v)[0] for v in verdicts) / len(verdicts)
    panda = panda_acc(items, task)
    if panda != panda:
        return task.not_a_number("leaderboard_score", "it is the mean of gpt_acc and panda_acc, and panda_acc is NaN: "
                                 + PEDANT_UNAVAILABLE.format(PEDANT_HOW), said=True)
    return 100.0 * (panda + gpt) / 2
