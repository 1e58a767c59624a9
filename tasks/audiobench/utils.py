"""Hooks for the AudioBench tasks: data, prompts, per-item results and the metrics.

Data and prompts live in ``lm_eval_audio.tasks.data.data``, WER in ``lm_eval_audio.metrics.error_rates`` (rule
``whisper_english_spelled_numbers``, the toolkit's ``preprocess_text_asr``), METEOR in ``lm_eval_audio.metrics.meteor`` and the judge in
``lm_eval_audio.tasks.data.judges``; this file connects them to lm-eval.

Every metric is computed per item, then combined (``lm_eval_audio.tasks.data.scoring``:
long-form recordings rejoined, the spread across templates with ``prompt_mode=sweep``).
"""

from __future__ import annotations

from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.judges import task_judge
from lm_eval_audio.tasks.audiobench import data, judges, scoring
from lm_eval_audio.metrics import meteor as meteor_metric
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.metrics.stderr import mean_stderr
from lm_eval_audio.model_wrappers.failed_requests import is_failed


@loader
def load(dataset=None, *, notes, **metadata):
    # recorded: no family publishes an AudioBench prompt (the toolkit's template pools are asked)
    author_prompts.authors_text(notes, f"audiobench_{dataset}", metadata, {}, "AudioBench", overridable=False)
    return data.load_docs(dataset, metadata, notes=notes)


def qwen2_asr_cleaned(resps, docs):
    """The ``qwen2_asr_cleaned`` filter: the toolkit's cleaning of Qwen2-Audio's ASR answers
    (``scoring.qwen2_asr_answer``); a failed request stays a counted failure."""
    return [[r if is_failed(r) else scoring.qwen2_asr_answer(r) for r in doc_resps] for doc_resps in resps]


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
        out.update({f"wer_template_{s}": item for s in scoring.SPREAD})
    return out


def process_judged(doc, results, task):
    item = {**_item(doc, results[0]), "question": doc["judge_question"],
            "judge": data.DATASETS[doc["dataset"]].judge}
    out = {"audio_missing": float(item["audio_missing"])}
    if task.judged:
        out.update(judge_score=item, judge_failures=item)
        if _sweeping(doc):
            out.update({f"judge_score_template_{s}": item for s in scoring.SPREAD})
    if data.DATASETS[doc["dataset"]].meteor:
        out["meteor"] = item
        if _sweeping(doc):
            out.update({f"meteor_template_{s}": item for s in scoring.SPREAD})
    return out


def _sweeping(doc) -> bool:
    # a dataset that asks each item its own instruction has no templates to spread over
    return doc["prompt_mode"] in ("sweep", "figure2") and doc["template_id"] >= 0


# --- per-item values, then combined --------------------------------------------------------


def _ratings(items, task) -> list[tuple[int, float | None]]:
    """(template id, rating rescaled to 0-100 or None for a judge failure) per item."""
    scored = scoring.scored(items)
    if not scored:
        return []
    kind = scored[0]["judge"]
    ratings = judges.judge_ratings(scored, task_judge.for_aggregation(task), task, kind)
    scale = judges.KINDS[kind][2]
    return [(i["template_id"], None if r is None else r * scale) for i, r in zip(scored, ratings)]


def _meteor_values(items, task=None) -> list[tuple[int, float]]:
    return [(i["template_id"], meteor_metric.score(i["reference"], i["response"]))
            for i in scoring.scored(items)]


def _mean_stderr(values) -> float | None:
    return mean_stderr([v for _, v in values if v is not None])


# --- aggregations (rank 0, after the gather) ---------------------------------------------


def wer(items, task):
    """Corpus WER (a fraction) over every scored recording."""
    return scoring.combine_wer(scoring.wer_counts(items, task, report=True))


def _report_items(task, metric: str, items, values) -> None:
    scored = scoring.scored(items)
    task.report_item_scores(metric, [(i["doc_id"], v) for i, (_, v) in zip(scored, values)])


def judge_score(items, task):
    """Mean judge rating on 0-100 (rubric x20, binary x100) over the items the judge rated."""
    values = _ratings(items, task)
    _report_items(task, "judge_score", items, values)
    if values and all(v is None for _, v in values):
        return task.not_a_number("judge_score", f"the judge could rate none of the {len(values)} responses (the "
                                                "judge log has its replies)")
    task.report_stderr("judge_score", _mean_stderr(values))
    return scoring.combine_mean(values)


def judge_failures(items, task):
    """Responses left out of judge_score because the judge gave no valid rating."""
    return sum(v is None for _, v in _ratings(items, task))


def meteor(items, task):
    """Mean per-item METEOR (0-1), as AudioBench computes it through ``evaluate``."""
    values = _meteor_values(items)
    _report_items(task, "meteor", items, values)
    task.report_stderr("meteor", _mean_stderr(values))
    return scoring.combine_mean(values)


wer_template_mean, wer_template_min, wer_template_max, wer_template_std = scoring.spread(
    "wer", scoring.wer_counts, scoring.combine_wer)
(judge_score_template_mean, judge_score_template_min, judge_score_template_max,
 judge_score_template_std) = scoring.spread("judge_score", _ratings, scoring.combine_mean)
meteor_template_mean, meteor_template_min, meteor_template_max, meteor_template_std = scoring.spread(
    "meteor", _meteor_values, scoring.combine_mean)
