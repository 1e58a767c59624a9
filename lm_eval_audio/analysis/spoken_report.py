"""What ``lm-eval-audio report`` shows of spoken answers: a table of each task answered in speech, its headline beside
how its answers were said and how they sound, and a page to listen to them.

* :func:`collect`: per task answered in speech (``lm_eval_audio_spoken`` in its results) and model, the spoken
  metrics lm-eval reported (``metrics.spoken_scores``, ``metrics.speech_quality``), and what transcribed and rated
  them;
* :func:`markdown`: that table, each task's headline cell (the per-task table's) first;
* :func:`answers_page`: ``answers.html``, for the first N documents of each spoken task of each model: an audio
  player for each answer (the WAV copied beside the page, so the page keeps working wherever the folder goes), the
  target, the transcript the task scored, the model's own text, and the document's scores. Where a number looks
  wrong, a researcher listens.
"""

from __future__ import annotations

import html
import os
import re
import shutil

from lm_eval_audio.analysis.run_results import Run, first_filter
from lm_eval_audio.metrics.speech_quality import QUALITY, UNRATED, shown

# the spoken metrics, as the table and the page show them, in this order
COLUMNS = ("speech_text_wer", "speech_text_cer", "answer_seconds", "words_per_minute", "characters_per_minute",
           *QUALITY, "spoken_failed", UNRATED)
PAGE = "answers.html"


def _spoken_tasks(run: Run) -> dict:
    return run.results.get("lm_eval_audio_spoken") or {}


def collect(model_runs: list[list[Run]], names: list[str]) -> dict:
    """task -> model -> {"metrics": the spoken metrics reported, "recognizer": its model, "raters": theirs}."""
    out: dict[str, dict] = {}
    for name, runs in zip(names, model_runs):
        for run in runs:
            for task, said in _spoken_tasks(run).items():
                reported = {c: run.metric(task, c) for c in COLUMNS}
                values = {c: v for c, v in reported.items() if v is not None}
                raters = ((said.get("quality") or {}).get("raters") or {})
                out.setdefault(task, {})[name] = {
                    "metrics": values, "recognizer": (said.get("recognizer") or {}).get("model"),
                    "raters": {rater: entry.get("model") for rater, entry in raters.items()}}
    return out


def markdown(spoken: dict, headline: dict) -> list[str]:
    """The "Spoken answers" section (``headline``: task -> model -> the per-task table's cell)."""
    if not spoken:
        return []
    columns = [c for c in COLUMNS if any(c in e["metrics"] for per in spoken.values() for e in per.values())]
    lines = ["", "## Spoken answers", "",
             "Tasks answered in speech: the headline (scored on the transcript of each spoken answer) beside how the "
             "answers were said and how they sound, as lm-eval reported them. `answers.html` plays the first answers "
             "of each task.", "",
             "| task | model | headline | " + " | ".join(columns) + " | recognizer | raters |",
             "|---|---|---|" + "---|" * len(columns) + "---|---|"]
    for task, per_model in spoken.items():
        for model, entry in per_model.items():
            cells = [_number(entry["metrics"].get(c)) for c in columns]
            raters = ", ".join(f"{r}: {m}" for r, m in entry["raters"].items()) or "–"
            lines.append(f"| {task} | {model} | {headline.get(task, {}).get(model, '–')} | " + " | ".join(cells)
                         + f" | {entry['recognizer'] or '–'} | {raters} |")
    return lines


def _number(value) -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3f}"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _scores(sample: dict, task_results: dict) -> dict:
    """The document's own scores, under the metrics its task reported."""
    reported = {key.split(",")[0] for key in task_results if "," in key and "_stderr" not in key}
    return {m: sample[m] for m in sorted(reported) if isinstance(sample.get(m), (int, float)) and m in sample}


def answers_page(model_runs: list[list[Run]], names: list[str], folder: str, first: int) -> str | None:
    """Write ``answers.html`` in ``folder`` (the answers' WAVs copied under ``answers/``); its path, or None where
    no run answered in speech. A saved answer that is no longer where the run left it is said so on the page."""
    sections, missing = [], 0
    for name, runs in zip(names, model_runs):
        for run in runs:
            for task in _spoken_tasks(run):
                samples = sorted(first_filter(run.samples(task)), key=lambda s: s.get("doc_id", 0))[:first]
                rows = []
                for sample in samples:
                    players = []
                    for k, said in enumerate(sample.get("spoken_answer") or []):
                        source = said.get("path") or ""
                        if not os.path.isfile(source):
                            missing += 1
                            players.append(f"<p class=missing>not found: {html.escape(source)}</p>")
                            continue
                        target = os.path.join("answers", _safe(name), _safe(task),
                                              f"doc{sample.get('doc_id', 0)}_r{k}.wav")
                        os.makedirs(os.path.join(folder, os.path.dirname(target)), exist_ok=True)
                        shutil.copyfile(source, os.path.join(folder, target))
                        quality = ", ".join(shown(m, v) for m, v in (said.get("quality") or {}).items())
                        players.append(
                            f'<audio controls preload="metadata" src="{html.escape(target)}"></audio>'
                            f"<p><b>transcript</b> {html.escape(said.get('transcript') or '')}</p>"
                            f"<p><b>model's text</b> {html.escape(said.get('text') or '')}</p>"
                            + (f"<p><b>how it sounds</b> {html.escape(quality)}</p>" if quality else ""))
                    if not players:
                        players.append("<p class=missing>no spoken answer (counted in spoken_failed)</p>")
                    scores = ", ".join(f"{m} {v:g}" for m, v in _scores(sample, run.tasks().get(task, {})).items())
                    rows.append(f"<tr><td>{sample.get('doc_id')}</td><td>{html.escape(str(sample.get('target')))}"
                                f"</td><td>{''.join(players)}</td><td>{html.escape(scores)}</td></tr>")
                sections.append(f"<h2>{html.escape(name)}: {html.escape(task)}</h2><p>the first {len(samples)} "
                                f"documents of {html.escape(str(run.path))}</p><table><tr><th>doc</th><th>target"
                                f"</th><th>spoken answer</th><th>scores</th></tr>{''.join(rows)}</table>")
    if not sections:
        return None
    note = f"<p class=missing>{missing} saved answer(s) not found where the run left them.</p>" if missing else ""
    page = ("<!DOCTYPE html><html><head><meta charset=utf-8><title>Spoken answers</title><style>"
            "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
            "padding:.4em;vertical-align:top}.missing{color:#a00}</style></head><body><h1>Spoken answers</h1>"
            + note + "".join(sections) + "</body></html>\n")
    path = os.path.join(folder, PAGE)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path
