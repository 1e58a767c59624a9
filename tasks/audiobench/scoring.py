"""AudioBench's scores from per-item values: long-form recordings rejoined from their chunks
before WER, and the spread of a metric across instruction templates (``prompt_mode=sweep``).

Every metric is computed in two steps, per item then combined, so that the sweep metrics
(``<metric>_template_mean/min/max/std``) combine the same per-item values once per template.
The task folder's ``utils.py`` hands lm-eval these as aggregation functions.
"""

from __future__ import annotations

import logging
import math
import re
import statistics

from lm_eval_audio.metrics import error_rates

log = logging.getLogger("lm_eval.audio.audiobench")


def scored(items):
    return [i for i in items if not i["audio_missing"]]


def wer_counts(items, task, report: bool = False) -> list[tuple[int, error_rates.Counts]]:
    """(template id, edit counts) per recording: chunk responses rejoined in order with a
    space (as the toolkit's model code joins them), scored against the recording's reference.
    A recording missing some of its chunks (``--limit`` cut it) cannot be scored: it is
    left out, and with ``report`` named in a warning and in the results."""
    recordings: dict[str, list[dict]] = {}
    for item in scored(items):
        recordings.setdefault(item["recording"], []).append(item)
    out, incomplete = [], []
    for key, chunks in recordings.items():
        chunks.sort(key=lambda i: i["chunk_index"])
        if [c["chunk_index"] for c in chunks] != list(range(chunks[0]["chunk_count"])):
            incomplete.append(f"{key} (chunks {[c['chunk_index'] for c in chunks]} of {chunks[0]['chunk_count']})")
            continue
        hypothesis = " ".join(c["response"].strip() for c in chunks)
        out.append((chunks[0]["template_id"], error_rates.counts(chunks[0]["reference"], hypothesis, "whisper_english_spelled_numbers")))
    if incomplete and report:
        task.note("audiobench_incomplete_recordings", task.name, incomplete)
        log.log(logging.ERROR if not out else logging.WARNING,
                "%s: %d recording(s) lack some of their chunks (is --limit cutting a long-form task?) and are left "
                "out of wer%s: %s", task.name, len(incomplete), ", which is NaN" if not out else "",
                "; ".join(incomplete[:5]))
    return out


def combine_wer(values) -> float:
    return error_rates.rate(error_rates.total(c for _, c in values))


def combine_mean(values) -> float:
    numbers = [v for _, v in values if v is not None]
    return sum(numbers) / len(numbers) if numbers else float("nan")


SPREAD = ("mean", "min", "max", "std")


def spread(name, per_item, combine):
    """Four aggregations: the metric per template, then its mean, min, max and population
    standard deviation across templates (``prompt_mode=sweep``). A template with no score
    (every item unjudged) is left out of the spread, named in a warning and in the results.
    ``per_item(items, task)`` gives (template id, value) pairs; ``task`` is the task's ``TaskScoring``."""

    def stats(items, task, report: bool) -> dict[str, float]:
        by_template: dict[int, list] = {}
        for template_id, value in per_item(items, task):
            by_template.setdefault(template_id, []).append((template_id, value))
        scores = {t: combine(v) for t, v in sorted(by_template.items())}
        if report:  # each template's own number (Figure 2 plots one per prompt)
            task.note("audiobench_template_scores", f"{task.name}/{name}", {str(t): v for t, v in scores.items()})
        unscored = [t for t, score in scores.items() if math.isnan(score)]
        if unscored and report:
            task.note("audiobench_sweep_unscored_templates", f"{task.name}/{name}", unscored)
            log.warning("%s: template(s) %s have no %s and are left out of its spread across templates",
                        task.name, unscored, name)
        values = [score for score in scores.values() if not math.isnan(score)]
        if not values:
            return dict.fromkeys(SPREAD, float("nan"))
        return {"mean": sum(values) / len(values), "min": min(values), "max": max(values),
                "std": statistics.pstdev(values)}

    def aggregation(statistic: str):
        def aggregate(items, task):
            value = stats(items, task, report=statistic == "mean")[statistic]
            if value != value:
                return task.not_a_number(f"{name}_template_{statistic}", f"no template of the sweep has a {name} (each "
                                         "template's items all unjudged or unanswered: the judge log and "
                                         "failed_items say which)")
            return value

        return aggregate

    return tuple(aggregation(s) for s in SPREAD)


# The toolkit cuts Qwen2-Audio's ASR answers down to the quoted transcript before WER
# (AudioLLMs/AudioBench, src/model_src/qwen2_audio_7b_instruct.py, post_process_qwen2_asr, applied
# when task_type is ASR, per chunk of a long recording). The same steps, in the same order:
_DOUBLE_QUOTED = re.compile(r'"((?:\\.|[^"\\])*)"')
_SINGLE_QUOTED = re.compile(r"'(.*)'")


def qwen2_asr_answer(answer: str) -> str:
    """The transcript inside a Qwen2-Audio answer such as ``The original content of this audio is:
    'He hoped...'``: the first double-quoted span if there is one; then, after a ``:'`` or ``: '``,
    the text from that quote to the next such marker; then the widest single-quoted span on a line."""
    match = _DOUBLE_QUOTED.search(answer)
    if match:
        answer = match.group(1)
    for marker in (":'", ": '"):
        if marker in answer:
            answer = "'" + answer.split(marker)[1]
            break
    match = _SINGLE_QUOTED.search(answer)
    return match.group(1) if match else answer
