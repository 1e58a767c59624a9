"""``lm-eval-audio diagnose``: the arithmetic on constructed per-document outcomes, and the
command itself, offline, on the bundled cascade and the AIR-Bench sample."""

from __future__ import annotations

import json

import pytest

from conftest import readme_block, run_readme_block
from lm_eval_audio.diagnose import (
    choose_metric,
    diagnose_runs,
    diagnose_task,
    item_class,
    table,
    threshold_for,
)


def test_each_class_follows_the_papers_definition():
    assert item_class(True, True, [False, False]) == "TS"
    assert item_class(True, False, [False, True]) == "FS"
    assert item_class(True, False, [False, False]) == "XS"
    assert item_class(False, True, [True, True]) == "AH"
    assert item_class(False, False, [True, False]) == "UN"


def test_measures_and_class_counts_on_constructed_outcomes():
    # 10 documents, 2 fragments: full right on 0-5, none right on 0-1 and 8, fragments as listed.
    full = {d: float(d < 6) for d in range(10)}
    none = {d: float(d in (0, 1, 8)) for d in range(10)}
    frag1 = {d: float(d in (2, 3)) for d in range(10)}
    frag2 = {d: float(d in (3, 9)) for d in range(10)}
    r = diagnose_task("t", "acc", {"full": full, "none": none, "fragment:2:1": frag1, "fragment:2:2": frag2}, 2, 0.5)
    assert (r.n, r.acc_full, r.acc_none) == (10, 0.6, 0.3)
    assert r.r_tp == pytest.approx(0.5)
    assert r.acc_fragments == [0.2, 0.2] and r.retention == pytest.approx(0.2 / 0.6)
    # TS: 0,1   FS: 2,3   XS: 4,5   AH: 8   UN: 6,7,9
    assert r.classes == {"TS": 2, "FS": 2, "XS": 2, "AH": 1, "UN": 3} and r.unscored == 0


def test_judge_scores_are_thresholded_and_unscored_documents_counted_apart():
    # AIR-Bench chat scores (1-10), right from 7: document 3 has no score under "none".
    full = {0: 8.0, 1: 9.5, 2: 3.0, 3: 7.0}
    none = {0: 7.0, 1: 2.0, 2: 7.5, 3: None}
    frag = {0: 1.0, 1: 6.5, 2: 1.0, 3: 8.0}
    r = diagnose_task("chat", "score", {"full": full, "none": none, "fragment:1:1": frag}, 1,
                      threshold_for("score", full.values(), None))
    assert r.threshold == 7.0
    assert r.acc_full == pytest.approx(6.875) and r.acc_none == pytest.approx(16.5 / 3)  # unscored left out
    assert r.classes == {"TS": 1, "FS": 0, "XS": 1, "AH": 1, "UN": 0} and r.unscored == 1
    assert threshold_for("acc", [0.0, 1.0], None) == 0.5
    with pytest.raises(ValueError, match="wer_like is a graded score .* pass --threshold"):
        threshold_for("wer_like", [0.3, 0.9], None)
    assert threshold_for("wer_like", [0.3], 0.25) == 0.25


def _sample(doc_id, **values):
    judged = {k: v for k, v in values.items() if k == "gpt_align"}
    return {"doc_id": doc_id, "filter": "none", **{k: v for k, v in values.items() if k not in judged},
            "item_scores": judged}


def test_the_task_score_is_the_first_metric_with_per_document_values():
    samples = [_sample(0, gpt_align=1.0, exact_match=0.0), _sample(1, gpt_align=0.0, exact_match=1.0)]
    assert choose_metric("t", {"gpt_align,none": 0.5, "exact_match,none": 0.5}, samples,
                         ["gpt_align", "exact_match"]) == ("gpt_align", None)
    metric, why = choose_metric("t", {"gpt_align,none": float("nan"), "exact_match,none": 0.5}, samples,
                                ["gpt_align", "exact_match"])
    assert metric == "exact_match"
    metric, why = choose_metric("t", {"score,none": float("nan")}, samples, ["score"])
    assert metric is None and why == "score is NaN (nothing was scored; see the run's log)"
    runs = {label: {"results": {"t": {"exact_match,none": 0.5}},
                    "samples": {"t": [_sample(d, exact_match=v) for d, v in enumerate(values)]}}
            for label, values in {"full": [1, 1, 0], "none": [1, 0, 0], "fragment:1:1": [0, 1, 1]}.items()}
    (row,) = diagnose_runs(runs, 1, ["exact_match"])
    assert row.metric == "exact_match" and row.classes == {"TS": 1, "FS": 1, "XS": 0, "AH": 0, "UN": 1}
    text = table([row], 1)
    assert "| t | exact_match (>= 0.5) | 3 | 0.667 | 0.333 | 0.500 | 0.667 | 1.000 | 1 | 1 | 0 | 0 | 1 | 0 |" in text


def test_cli_diagnose_cascade_on_the_sample_offline(tmp_path):
    """The issue's command, as the README gives it, in a scratch folder with no endpoint."""
    command = readme_block("diagnose").split()
    assert command[:6] == [".venv/bin/lm-eval-audio", "diagnose", "--model", "cascade", "--tasks", "airbench_sample"]
    first = run_readme_block("diagnose", tmp_path)
    assert first.returncode == 0, first.stderr[-4000:]
    header = "| task | metric (right if >=) | n | Acc_full | Acc_none | R_TP | frag 1/4 | frag 2/4 | frag 3/4 | frag 4/4 | R_4 |"
    assert header in first.stdout
    row = next(line for line in first.stdout.splitlines() if line.startswith("| airbench_sample_foundation |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "gpt_align (>= 0.5)" and cells[2] == "35"
    # Acc_full and Acc_none are the gpt_align that each condition's own results file reports
    out = tmp_path / "results"
    base = "cascade__whisper-tiny.en__SmolLM2-135M-Instruct"
    folders = {p.name for p in out.iterdir() if p.is_dir()}
    assert folders == {base, f"{base}__audio-none", *(f"{base}__audio-fragment-4-{k}" for k in range(1, 5))}

    def reported(folder):
        (results,) = [json.loads(p.read_text()) for p in (out / folder).glob("results_*.json")]
        return results

    full, none = reported(base), reported(f"{base}__audio-none")
    assert full["lm_eval_audio_condition"] == "full" and none["lm_eval_audio_condition"] == "none"
    acc_full = full["results"]["airbench_sample_foundation"]["gpt_align,none"]
    acc_none = none["results"]["airbench_sample_foundation"]["gpt_align,none"]
    assert cells[3] == f"{acc_full:.3f}" and cells[4] == f"{acc_none:.3f}"
    assert cells[5] == (f"{acc_none / acc_full:.3f}" if acc_full else "n/a")
    counts = [int(c) for c in cells[11:17]]
    assert sum(counts) == 35  # TS+FS+XS+AH+UN+unscored
    # the chat sample's smoke-test judge cannot score: said so, not scored 0
    assert "- airbench_sample_chat: not diagnosed: score is NaN" in first.stdout
    (summary,) = (out / base).glob("diagnose_*.json")
    data = json.loads(summary.read_text())
    assert data["conditions"] == ["full", "none", "fragment:4:1", "fragment:4:2", "fragment:4:3", "fragment:4:4"]
    assert (out / base / summary.name.replace(".json", ".png")).read_bytes()[:4] == b"\x89PNG"
    # A re-run asks the model nothing: every condition's answers come from the request cache.
    second = run_readme_block("diagnose", tmp_path)
    assert second.returncode == 0, second.stderr[-4000:]
    assert second.stderr.count("Cached requests: 41, Requests remaining: 0") == 6
    assert row in second.stdout
