"""Running one judge over a task's items: requests to the engine, verdicts, judge log and summary.

Shared by the benchmark judges (``airbench_judges``, ``audiobench_judges``), which only
build prompts and parse replies.
"""

from __future__ import annotations

import logging
import re

from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_engine import JudgeEngine, JudgeRequest, JudgeStats

log = logging.getLogger("lm_eval.audio.judge")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace each placeholder in one pass: text inside an answer (say the word
    ``QUESTION``) is never substituted again, as chained ``str.replace`` would do."""
    pattern = re.compile("|".join(re.escape(k) for k in sorted(values, key=len, reverse=True)))
    return pattern.sub(lambda m: values[m.group(0)], template)


# The longest model answer a judge prompt carries. Past it the answer is cut, with a note saying how
# much: a padded answer cannot push the judge's instructions out of its context window. AIR-Bench chat
# answers are generated with max_gen_toks 512 (about 2,500 characters); this is over three times that.
MAX_ANSWER_CHARS = 8000


def bounded_answer(text: str) -> str:
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    return text[:MAX_ANSWER_CHARS] + f"\n[... {len(text) - MAX_ANSWER_CHARS} more characters of this answer not shown]"


def run(kind, task, config, items, requests_for, parse, desc, prompt_version):
    """Judge ``items`` once per run (several metrics read the same verdicts: ``task``, the task's
    ``metrics.task_scoring.TaskScoring``, remembers them, and keeps the judge's log and summary).

    ``requests_for(item)`` lists ``(pass_name, messages, parse_or_None, reask)`` for an
    item (and a fifth element, the sample number, where several independent replies to the same messages are
    wanted), whose ``uniq_id`` names it in logs and request ids. Returns, per item, a dict
    from pass name to the engine's outcome (``.parsed`` is None when judging failed).
    """
    return task.remembered(kind, items, lambda: _judge(kind, task, config, items, requests_for, parse, desc,
                                                       prompt_version))


def _judge(kind, scoring, config, items, requests_for, parse, desc, prompt_version):
    task = scoring.name
    engine = JudgeEngine(config)
    requests, owners = [], []
    cut = 0
    for index, item in enumerate(items):
        response = item.get("response")
        if isinstance(response, str) and len(response) > MAX_ANSWER_CHARS:
            item, cut = {**item, "response": bounded_answer(response)}, cut + 1
        for pass_name, messages, parse_one, reask, *sample in requests_for(item):
            requests.append(JudgeRequest(f"{item['uniq_id']}:{pass_name}", messages, parse_one, reask, *sample))
            owners.append((index, pass_name))
    outcomes, stats = engine.run(requests, parse, desc=f"{desc} [{task}]")
    engine.cache.close()
    verdicts: list[dict] = [{} for _ in items]
    for (index, pass_name), outcome in zip(owners, outcomes):
        verdicts[index][pass_name] = outcome
        item = items[index]
        scoring.judge_records.append(
            {
                "doc_id": item.get("doc_id"),
                "uniq_id": item["uniq_id"],
                "pass": pass_name,
                "judge_model": config.model,
                "prompt_version": prompt_version,
                "temperature": config.temperature,
                "messages": outcome.messages,
                "replies": outcome.replies,
                "cache": outcome.cache,
                "parsed": outcome.parsed,
                "error": outcome.error,
            },
        )
    failed = sorted({str(items[i]["uniq_id"]) for (i, _), o in zip(owners, outcomes) if o.failed})
    if cut:
        log.warning("judge [%s]: %d answer(s) longer than %d characters were cut to that length in the judge's "
                    "prompt (counted as answers_cut in the judge summary)", task, cut, MAX_ANSWER_CHARS)
    scoring.judge_summary = _summary(task, kind, config, stats, failed, prompt_version, cut)
    return verdicts


def every_sample(verdicts: list[dict], passes) -> list[list | None]:
    """Per item the readings of its ``passes`` (several samples of one prompt), in order; None where the judge failed
    on any of them (the item is left out and counted by its benchmark)."""
    out = []
    for verdict in verdicts:
        samples = [verdict[name].parsed for name in passes]
        out.append(None if any(s is None for s in samples) else samples)
    return out


def judged_mean(task, metric: str, judged: list[dict], verdicts: list, value, what: str) -> float:
    """A judged score's aggregation: each judged item's ``value(verdict)`` reported as its per-document score
    (None for a judge failure), the mean over the items the judge scored, with its standard error; NaN, with a
    warning naming ``what`` went unjudged, when the judge scored none."""
    from lm_eval_audio.metrics.stderr import mean_stderr

    task.report_item_scores(metric, [(i["doc_id"], None if v is None else value(v))
                                        for i, v in zip(judged, verdicts)])
    values = [value(v) for v in verdicts if v is not None]
    if not values:
        return task.not_a_number(metric, f"the judge scored none of the {len(judged)} {what}(s) it was given "
                                         "(counted as judge failures; the judge log has its replies)")
    task.report_stderr(metric, mean_stderr(values))
    return sum(values) / len(values)


def _summary(task: str, kind: str, config: JudgeConfig, stats: JudgeStats, failed: list[str], prompt_version: str,
             answers_cut: int) -> dict:
    """The judge's settings and counts for one task, logged (``lm_eval_audio_judge`` in the results)."""
    summary = (
        {
            "kind": kind,
            "judge": config.public(),
            "prompt_version": prompt_version,
            "requests": stats.requests,
            "calls": stats.calls,
            "cache_hits": stats.cache_hits,
            "retries": stats.retries,
            "reasks": stats.reasks,
            "unjudged_items": failed,  # judge failures (the uniq_ids); failed_items is the model's failed requests
            "answers_cut": answers_cut,
        }
    )
    log.info(
        "judge [%s]: %d requests, %d calls, %d cache hits, %d retries, %d re-asks, %d failed items (model %s)",
        task, stats.requests, stats.calls, stats.cache_hits, stats.retries, stats.reasks, len(failed), config.model,
    )
    if failed:
        shown = ", ".join(failed[:10]) + (f" and {len(failed) - 10} more" if len(failed) > 10 else "")
        log.warning(
            "judge [%s]: %d item(s) could not be judged (uniq_id %s); see the judge log for the replies",
            task, len(failed), shown,
        )
    return summary
