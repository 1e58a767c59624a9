"""Hooks for the AudioBench tasks: data, prompts, per-item results and the metrics.

Data and prompts live in ``lm_eval_audio.benchmarks.audiobench``, WER in ``lm_eval_audio.metrics.wer``,
METEOR in ``lm_eval_audio.metrics.meteor`` and the judge in
``lm_eval_audio.judges.audiobench_judges``; this file connects them to lm-eval.

Every metric is computed in two steps, per item then combined, so that the sweep
metrics (``<metric>_template_mean/min/max/std``, with ``prompt_mode=sweep``) combine the
same per-item values once per template.
"""

from __future__ import annotations

import logging
import math
import statistics

from lm_eval_audio.benchmarks import audiobench
from lm_eval_audio.metrics import meteor as meteor_metric
from lm_eval_audio.metrics import wer as wer_metric
from lm_eval_audio.judges import audiobench_judges, task_judge
from lm_eval_audio.metrics.stderr import mean_stderr
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio.audiobench")


def load(dataset=None, **metadata):
    import datasets

    return datasets.DatasetDict({"test": datasets.Dataset.from_list(audiobench.load_docs(dataset, metadata))})


def doc_to_text(doc):
    return doc["instruction"]


def doc_to_audio(doc):
    ref = {"table": doc["audio_table"], "row": doc["audio_row"], "column": "context"}
    if doc["audio_problem"]:
        return [{"path": f"{doc['audio_table']} row {doc['audio_row']}", "unavailable": doc["audio_problem"]}]
    if doc["audio_start"] is not None:
        ref.update(start=doc["audio_start"], end=doc["audio_end"])
    elif doc["audio_seconds"] is not None:
        ref["seconds"] = doc["audio_seconds"]
    return [ref]


# --- per-document results --------------------------------------------------------------


def _item(doc, response: str) -> dict:
    return {
        "doc_id": doc["doc_id"],
        "uniq_id": f"{doc['dataset']}/{doc['row']}/{doc['template_id']}/{doc['chunk_index']}",
        "template_id": doc["template_id"],
        "audio_missing": bool(doc["audio_problem"]),
        "reference": doc["answer"],
        "response": response,
    }


def process_asr(doc, results):
    item = {**_item(doc, results[0]), "recording": doc["recording"], "chunk_index": doc["chunk_index"],
            "chunk_count": doc["chunk_count"]}
    out = {"wer": item, "audio_missing": float(item["audio_missing"])}
    if _sweeping(doc):
        out.update({f"wer_template_{s}": item for s in _SPREAD})
    return out


def process_judged(doc, results):
    item = {**_item(doc, results[0]), "question": doc["judge_question"],
            "judge": audiobench.DATASETS[doc["dataset"]].judge}
    out = {"audio_missing": float(item["audio_missing"])}
    if run_state.current().judge_configured:
        out.update(judge_score=item, judge_failures=item)
        if _sweeping(doc):
            out.update({f"judge_score_template_{s}": item for s in _SPREAD})
    if audiobench.DATASETS[doc["dataset"]].meteor:
        out["meteor"] = item
        if _sweeping(doc):
            out.update({f"meteor_template_{s}": item for s in _SPREAD})
    return out


def _sweeping(doc) -> bool:
    # a dataset that asks each item its own instruction has no templates to spread over
    return doc["prompt_mode"] == "sweep" and doc["template_id"] >= 0


# --- per-item values, then combined --------------------------------------------------------


def _scored(items):
    return [i for i in items if not i["audio_missing"]]


def _wer_counts(items, report: bool = False) -> list[tuple[int, wer_metric.Counts]]:
    """(template id, edit counts) per recording: chunk responses rejoined in order with a
    space (as the toolkit's model code joins them), scored against the recording's reference.
    A recording missing some of its chunks (``--limit`` cut it) cannot be scored: it is
    left out, and with ``report`` named in a warning and in the results."""
    recordings: dict[str, list[dict]] = {}
    for item in _scored(items):
        recordings.setdefault(item["recording"], []).append(item)
    out, incomplete = [], []
    for key, chunks in recordings.items():
        chunks.sort(key=lambda i: i["chunk_index"])
        if [c["chunk_index"] for c in chunks] != list(range(chunks[0]["chunk_count"])):
            incomplete.append(f"{key} (chunks {[c['chunk_index'] for c in chunks]} of {chunks[0]['chunk_count']})")
            continue
        hypothesis = " ".join(c["response"].strip() for c in chunks)
        out.append((chunks[0]["template_id"], wer_metric.counts(chunks[0]["reference"], hypothesis)))
    if incomplete and report:
        task = run_state.current().task
        run_state.current().note("audiobench_incomplete_recordings", task, incomplete)
        log.log(logging.ERROR if not out else logging.WARNING,
                "%s: %d recording(s) lack some of their chunks (is --limit cutting a long-form task?) and are left "
                "out of wer%s: %s", task, len(incomplete), ", which is NaN" if not out else "", "; ".join(incomplete[:5]))
    return out


def _combine_wer(values) -> float:
    return wer_metric.rate(sum((c for _, c in values), wer_metric.Counts(0, 0)))


def _ratings(items) -> list[tuple[int, float | None]]:
    """(template id, rating rescaled to 0-100 or None for a judge failure) per item."""
    scored = _scored(items)
    if not scored:
        return []
    kind = scored[0]["judge"]
    ratings = audiobench_judges.judge_ratings(scored, task_judge.for_aggregation(), run_state.current().task, kind)
    scale = audiobench_judges.KINDS[kind][2]
    return [(i["template_id"], None if r is None else r * scale) for i, r in zip(scored, ratings)]


def _combine_mean(values) -> float:
    numbers = [v for _, v in values if v is not None]
    return sum(numbers) / len(numbers) if numbers else float("nan")


def _meteor_values(items) -> list[tuple[int, float]]:
    return [(i["template_id"], meteor_metric.score(i["reference"], i["response"])) for i in _scored(items)]


def _mean_stderr(values) -> float | None:
    return mean_stderr([v for _, v in values if v is not None])


# --- aggregations (rank 0, after the gather) ---------------------------------------------


def count(items):
    return int(sum(items))


def wer(items):
    """Corpus WER (a fraction) over every scored recording."""
    return _combine_wer(_wer_counts(items, report=True))


def _report_items(metric: str, items, values) -> None:
    run_state.current().report_item_scores(metric, [(i["doc_id"], v) for i, (_, v) in zip(_scored(items), values)])


def judge_score(items):
    """Mean judge rating on 0-100 (rubric x20, binary x100) over the items the judge rated."""
    values = _ratings(items)
    _report_items("judge_score", items, values)
    if values and all(v is None for _, v in values):
        log.error("%s: the judge could rate none of the %d responses; judge_score is NaN (see the judge log)",
                  run_state.current().task, len(values))
    run_state.current().report_stderr("judge_score", _mean_stderr(values))
    return _combine_mean(values)


def judge_failures(items):
    """Responses left out of judge_score because the judge gave no valid rating."""
    return sum(v is None for _, v in _ratings(items))


def meteor(items):
    """Mean per-item METEOR (0-1), as AudioBench computes it through ``evaluate``."""
    values = _meteor_values(items)
    _report_items("meteor", items, values)
    run_state.current().report_stderr("meteor", _mean_stderr(values))
    return _combine_mean(values)


_SPREAD = ("mean", "min", "max", "std")


def _spread(name, per_item, combine):
    """Four aggregations: the metric per template, then its mean, min, max and population
    standard deviation across templates (``prompt_mode=sweep``). A template with no score
    (every item unjudged) is left out of the spread, named in a warning and in the results."""

    def stats(items, report: bool) -> dict[str, float]:
        by_template: dict[int, list] = {}
        for template_id, value in per_item(items):
            by_template.setdefault(template_id, []).append((template_id, value))
        scores = {t: combine(v) for t, v in sorted(by_template.items())}
        unscored = [t for t, score in scores.items() if math.isnan(score)]
        if unscored and report:
            task = run_state.current().task
            run_state.current().note("audiobench_sweep_unscored_templates", f"{task}/{name}", unscored)
            log.warning("%s: template(s) %s have no %s and are left out of its spread across templates",
                        task, unscored, name)
        values = [score for score in scores.values() if not math.isnan(score)]
        if not values:
            return dict.fromkeys(_SPREAD, float("nan"))
        return {"mean": sum(values) / len(values), "min": min(values), "max": max(values),
                "std": statistics.pstdev(values)}

    return tuple((lambda items, s=s: stats(items, report=s == "mean")[s]) for s in _SPREAD)


wer_template_mean, wer_template_min, wer_template_max, wer_template_std = _spread("wer", _wer_counts, _combine_wer)
(judge_score_template_mean, judge_score_template_min, judge_score_template_max,
 judge_score_template_std) = _spread("judge_score", _ratings, _combine_mean)
meteor_template_mean, meteor_template_min, meteor_template_max, meteor_template_std = _spread(
    "meteor", _meteor_values, _combine_mean)
