"""``lm-eval-audio report``: the tables' numbers against hand-computed ones and the paper's
own tables, the intervals, the paired test, the plots, and its errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_airbench_groups import TABLE3, TABLE5

from conftest import run_cli
from lm_eval_audio.analysis import stats

DATE = "2026-01-01T00-00-00.000000"


def write_run(folder, model, tasks: dict[str, list[tuple[dict, dict]]], reported: dict[str, dict]):
    """A results file and sample logs as lm-eval writes them; ``tasks``: lm-eval task ->
    [(doc, metric values)] per document."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{DATE}.json").write_text(json.dumps({"results": reported, "model_name": model}))
    for task, docs in tasks.items():
        with open(folder / f"samples_{task}_{DATE}.jsonl", "w") as f:
            for i, (doc, values) in enumerate(docs):
                judged = {k: v for k, v in values.items() if k in ("gpt_align", "score")}
                plain = {k: v for k, v in values.items() if k not in judged}
                # a judge metric's sample value is the item dict; its score is under item_scores
                f.write(json.dumps({"doc_id": i, "doc_hash": f"h{task}{i}", "filter": "none", "doc": doc,
                                    **{k: {"doc_id": i} for k in judged}, **plain, "item_scores": judged}) + "\n")
    return folder


FOUNDATION = {  # AIR-Bench task -> per-document gpt_align
    "Speaker_Gender_Recognition": [1, 0, 1, 1],
    "Spoken_Language_Identification": [0, 0, 1],
    "Audio_Grounding": [1, 1],
    "Music_AQA": [0, 1, 0, 0],
}
CHAT = {  # AIR-Bench chat task -> per-document judge score (None: the judge failed)
    "speech_QA": [8, 6], "speech_dialogue_QA": [4], "sound_QA": [5, None], "music_QA": [7],
    "speech_and_sound_QA": [9, 7], "speech_and_music_QA": [3],
}


def _airbench_run(folder, model, flip=()):
    """A run over FOUNDATION and CHAT; ``flip``: positions of foundation documents scored the other way."""
    # Music_AQA's documents alternate between two audio folders (datasets); the other tasks have one.
    listed = [(t, f"ds{j % 2}" if t == "Music_AQA" else "ds", v) for t, values in FOUNDATION.items()
              for j, v in enumerate(values)]
    foundation = [({"task_name": t, "dataset_name": d}, {"gpt_align": float(v ^ (i in flip)), "exact_match": 0.0})
                  for i, (t, d, v) in enumerate(listed)]
    chat = [({"task_name": t}, {"score": v}) for t, values in CHAT.items() for v in values]
    mean = sum(v["gpt_align"] for _, v in foundation) / len(foundation)
    return write_run(folder, model, {"airbench_foundation_x": foundation, "airbench_chat_x": chat},
                     {"airbench_foundation_x": {"gpt_align,none": mean, "exact_match,none": 0.0},
                      "airbench_chat_x": {"score,none": 6.0}})


def test_table3_table5_and_per_task_numbers_are_the_hand_computed_ones(tmp_path):
    _airbench_run(tmp_path / "runs" / "model-a", "model-a")
    _airbench_run(tmp_path / "runs" / "model-b", "model-b", flip={0, 4})  # B: doc 0 wrong, doc 4 right
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "runs"), "--output", str(out)])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    a = report["airbench"]["model-a"]
    speech = (3 / 4 + 1 / 3) / 2  # mean of the speech tasks' accuracies
    assert a["foundation"]["speech"]["value"] == pytest.approx(speech)
    assert a["foundation"]["sound"]["value"] == pytest.approx(1.0)
    assert a["foundation"]["music"]["value"] == pytest.approx(0.25)
    assert a["foundation"]["average"]["value"] == pytest.approx((speech + 1.0 + 0.25) / 3)
    assert a["foundation_tasks"]["Spoken_Language_Identification"]["value"] == pytest.approx(1 / 3)
    # per audio folder, as score_foundation.py prints them: Music_AQA's [0, 1, 0, 0] split into [0, 0] and [1, 0]
    assert {f: (e["n"], e["value"]) for f, e in a["foundation_folders"].items() if f.startswith("Music")} == {
        "Music_AQA_ds0": (2, 0.0), "Music_AQA_ds1": (2, 0.5)}
    assert a["foundation_folders"]["Audio_Grounding_ds"]["value"] == a["foundation_tasks"]["Audio_Grounding"]["value"]
    # chat: speech/sound/music are item means, mixed the mean of its two tasks, average of the four
    assert a["chat"]["speech"]["value"] == pytest.approx((8 + 6 + 4) / 3)
    assert a["chat"]["sound"]["value"] == pytest.approx(5.0)  # the unjudged item left out
    assert a["chat"]["mixed"]["value"] == pytest.approx((8 + 3) / 2)
    assert a["chat"]["average"]["value"] == pytest.approx((6 + 5 + 7 + 5.5) / 4)
    b = report["airbench"]["model-b"]
    assert b["foundation_tasks"]["Speaker_Gender_Recognition"]["value"] == pytest.approx(2 / 4)
    assert b["foundation_tasks"]["Spoken_Language_Identification"]["value"] == pytest.approx(2 / 3)
    per_task = report["tasks"]["airbench_foundation_x"]
    assert per_task["model-a"]["value"] == pytest.approx(7 / 13) and per_task["model-a"]["n"] == 13
    for entry in [*a["foundation"].values(), *a["chat"].values(), per_task["model-a"]]:
        assert entry["low"] <= entry["value"] <= entry["high"]
    assert a["foundation"]["sound"]["low"] == a["foundation"]["sound"]["high"] == 1.0  # no spread to resample
    # the markdown shows the same numbers
    md = (out / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| model-a |"))
    assert f"| {speech * 100:.1f} [" in row and "| 100.0 [100.0, 100.0] |" in row and "| 6.00 [" in row
    assert "| Spoken_Language_Identification | speech | 33.3 [" in md
    assert "| Music_AQA_ds1 | 50.0 [" in md and "(n=2) |" in md
    assert "Notes:" in md and "model-a: 1 AIR-Bench document(s) without a judge score are left out" in md
    # paired: A minus B on the same 13 documents, one flipped each way
    paired = report["comparison"]["tasks"]["airbench_foundation_x"]
    assert paired["n"] == 13 and paired["difference"] == pytest.approx(0.0) and paired["p_value"] == pytest.approx(1.0)
    # the plots
    for name in ("categories.png", "radar_model-a.png", "radar_model-b.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_a_run_on_the_bundled_sample_is_called_synthetic_in_the_markdown_json_and_plots(tmp_path, monkeypatch):
    from lm_eval_audio.analysis import report as report_module
    from lm_eval_audio.tasks.airbench.data import SYNTHETIC_SAMPLE_DATASET

    docs = [({"task_name": "Speaker_Gender_Recognition", "dataset_name": SYNTHETIC_SAMPLE_DATASET}, {"gpt_align": v})
            for v in (1.0, 0.0, 1.0)]
    write_run(tmp_path / "sample-run", "tiny", {"airbench_sample_foundation": docs},
              {"airbench_sample_foundation": {"gpt_align,none": 2 / 3}})
    _airbench_run(tmp_path / "real-run", "real")  # its documents name other datasets: not the sample
    titles = []
    monkeypatch.setattr("matplotlib.axes.Axes.set_title", lambda ax, title, *a, **k: titles.append(title))
    built = report_module.build([report_module.find([str(tmp_path / "sample-run")])[0],
                                 report_module.find([str(tmp_path / "real-run")])[0]], ["gpt_align"])
    report_module.plots(built, str(tmp_path))
    md = report_module.markdown(built)
    assert built["synthetic_sample"] == ["tiny"]
    assert md.startswith("**Synthetic sample**: tiny scored the bundled synthetic sample")
    assert "## AIR-Bench scoring on the synthetic sample, not AIR-Bench data: layout of Table 3" in md
    assert "AIR-Bench foundation\nsynthetic sample, not AIR-Bench data" in titles
    assert "tiny\nsynthetic sample, not AIR-Bench data" not in titles  # one task: no radar plot for it
    assert "real" in titles  # the real run's radar carries no such mark


def test_table3_from_the_papers_table5(tmp_path):
    """Documents built to give the paper's per-task accuracies (Table 5) reproduce its Table 3."""
    for model, accuracies in TABLE5.items():
        docs = []
        for task, percent in accuracies.items():
            right = round(percent * 10)  # of 1000 documents
            docs += [({"task_name": task}, {"gpt_align": float(i < right)}) for i in range(1000)]
        write_run(tmp_path / model, model, {"airbench_foundation": docs}, {"airbench_foundation": {"gpt_align,none": 0.5}})
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "Qwen-Audio"), str(tmp_path / "Qwen-Audio-Turbo"),
                    "--output", str(out)])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    for model, expected in TABLE3.items():
        got = report["airbench"][model]["foundation"]
        for column, paper in zip(("speech", "sound", "music", "average"), expected):
            assert got[column]["value"] * 100 == pytest.approx(paper, abs=0.051), (model, column)
    paired = report["comparison"]["tasks"]["airbench_foundation"]
    assert paired["n"] == 19000 and paired["p_value"] < 0.001  # Turbo is better on average, by 3.3 points


def test_a_folder_reports_a_model_from_its_runs_and_pairs_documents_by_uniq_id(tmp_path):
    """Foundation run one day and chat the next, into one folder: one model with both. Two
    copies of the data (other audio paths, other document order) still pair by uniq_id."""
    folder = tmp_path / "runs" / "model-a"
    write_run(folder, "model-a", {"airbench_foundation_x": [({"task_name": "Music_AQA", "uniq_id": 1}, {"exact_match": 1.0})]},
              {"airbench_foundation_x": {"exact_match,none": 1.0}})
    (folder / f"results_{DATE}.json").rename(folder / "results_2026-01-01T00-00-00.json")
    (folder / f"samples_airbench_foundation_x_{DATE}.jsonl").rename(
        folder / "samples_airbench_foundation_x_2026-01-01T00-00-00.jsonl")
    write_run(folder, "model-a", {"airbench_chat_x": [({"task_name": "music_QA"}, {"score": 6.0})]},
              {"airbench_chat_x": {"score,none": 6.0}})
    docs = [({"task_name": "Music_AQA", "uniq_id": u, "path": f"/copy/{u}.wav"}, {"exact_match": float(u % 2)})
            for u in (3, 2, 1)]
    write_run(tmp_path / "other" / "model-b", "model-b", {"airbench_foundation_x": docs},
              {"airbench_foundation_x": {"exact_match,none": 2 / 3}})
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "runs"), str(tmp_path / "other"), "--output", str(out)])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["models"] == ["model-a", "model-b"] and len(report["sources"]["model-a"]) == 2
    assert report["airbench"]["model-a"]["chat"]["music"]["value"] == 6.0
    paired = report["comparison"]["tasks"]["airbench_foundation_x"]
    assert paired["n"] == 1 and paired["difference"] == 0.0  # uniq_id 1: right in both


def test_a_run_without_its_samples_in_the_folder_is_skipped_with_a_note(tmp_path):
    """``report results`` over a folder where one model's run was made without --log_samples: the others are
    reported, and the skipped run is named with how to include it."""
    write_run(tmp_path / "results" / "model-a", "model-a", {"airbench_chat_x": [({"task_name": "music_QA"},
                                                                                {"score": 6.0})]},
              {"airbench_chat_x": {"score,none": 6.0}})
    bare = tmp_path / "results" / "model-b"
    bare.mkdir(parents=True)
    (bare / f"results_{DATE}.json").write_text(json.dumps({"results": {"airbench_chat_x": {"score,none": 5.0}},
                                                           "model_name": "model-b"}))
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "results"), "--output", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert f"report: skipped {bare / f'results_{DATE}.json'}: no samples_<task>_{DATE}.jsonl beside it" in proc.stderr
    assert "--log_samples to include it" in proc.stderr
    assert json.loads((out / "report.json").read_text())["models"] == ["model-a"]


def test_intervals_and_the_paired_test_behave_as_statistics_should():
    rng = np.random.default_rng(1)
    coin = rng.integers(0, 2, 400).astype(float)
    low, high = stats.mean_interval(list(coin))
    assert high - low == pytest.approx(2 * 1.96 * np.sqrt(0.25 / 400), rel=0.12)  # the normal approximation
    assert low < coin.mean() < high
    same = stats.paired(list(coin), list(coin))
    assert same["difference"] == 0 and same["p_value"] == 1.0
    better = stats.paired([1.0] * 20, [0.0] * 20)
    assert better["difference"] == 1.0 and better["p_value"] < 0.001 and better["low"] == better["high"] == 1.0
    noise = stats.paired(list(coin[:200]), list(coin[200:]))
    assert noise["p_value"] > 0.05 and noise["low"] < 0 < noise["high"]


def test_errors_name_the_file(tmp_path):
    no_samples = tmp_path / "bare"
    no_samples.mkdir()
    (no_samples / f"results_{DATE}.json").write_text(json.dumps({"results": {"t": {"acc,none": 0.5}}}))
    proc = run_cli(["lm-eval-audio", "report", str(no_samples)])
    assert proc.returncode != 0 and "no samples_<task>_" in proc.stderr and "--log_samples" in proc.stderr
    (tmp_path / "broken.json").write_text("{")
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "broken.json")])
    assert proc.returncode != 0 and "broken.json: not a JSON results file" in proc.stderr
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "missing")])
    assert proc.returncode != 0 and "missing: no such file or folder" in proc.stderr


def test_the_report_says_where_each_runs_data_came_from(tmp_path):
    folder = _airbench_run(tmp_path / "runA", "model-a")
    results = folder / f"results_{DATE}.json"
    data = json.loads(results.read_text())
    commit = "0123456789abcdef0123456789abcdef01234567"
    data["lm_eval_audio_data"] = {"sources": {
        "AIR-Bench": {"repo_id": "qyang1021/AIR-Bench-Dataset", "repo_type": "dataset", "revision": "main",
                      "commit": commit},
        "MMAR": {"local_folder": "/data/mmar", "metadata_files": ["MMAR-meta.json"], "metadata_sha256": "ab" * 32},
        "MMAU test-mini": {"repo_id": "gamma-lab-umd/MMAU-test-mini", "repo_type": "dataset", "revision": "main",
                           "commit": commit, "metadata": {"file": "mmau-test-mini.json", "from": "github.com/Sakshi113/MMAU",
                                                          "commit": "110127f54c0dfba3faa5ec9feee4a7e4148679c5"},
                           "hub_rows_against_metadata": {"metadata_items": 1000, "differing": 2, "items_without_a_row": 0,
                                                         "differing_first": ["x", "y"]},
                           "differences_from_metadata": {"differing": 2}}}}
    results.write_text(json.dumps(data))
    proc = run_cli(["lm-eval-audio", "report", str(folder), "--output", str(tmp_path / "report")])
    assert proc.returncode == 0, proc.stderr
    assert f"| model-a | AIR-Bench | qyang1021/AIR-Bench-Dataset@{commit} (main) |" in proc.stdout
    assert "| model-a | MMAR | /data/mmar (metadata sha256 abababababababab) |" in proc.stdout
    assert (f"| model-a | MMAU test-mini | gamma-lab-umd/MMAU-test-mini@{commit} (main); questions: mmau-test-mini.json "
            "from github.com/Sakshi113/MMAU@110127f54c0d; against them: differing 2 |") in proc.stdout
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["data_sources"]["model-a"]["AIR-Bench"]["commit"] == commit


def write_lm_eval_run(folder, model, date, tasks: dict[str, list[dict]], reported: dict[str, dict],
                      higher_is_better: dict[str, dict]):
    """A results file in lm-eval's layout (``results``, ``higher_is_better``, ``configs``) and one sample log per
    task; ``tasks``: lm-eval task -> its sample lines (doc_id and filter added here)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{date}.json").write_text(json.dumps({
        "results": reported, "higher_is_better": higher_is_better, "configs": {t: {"task": t} for t in reported},
        "model_name": model}))
    for task, lines in tasks.items():
        with open(folder / f"samples_{task}_{date}.jsonl", "w") as f:
            for i, line in enumerate(lines):
                f.write(json.dumps({"doc_id": i, "filter": "none", **line}) + "\n")


REFERENCES = ["the cat sat", "a dog ran far", "hello world", "one two three four", "a clip never heard"]
FLEURS_TASK = "fleurs_asr_sample_en_us"


def _asr_lines(answers: list[str]) -> list[dict]:
    """A FLEURS-like task's sample lines, scored by corpus WER, as the startup hook leaves them: the per-document
    ``wer`` field null (its item was the document), the reference and rule in the document, the answer in
    filtered_resps. The last document's clip could not be played: it is out of the rate."""
    return [{"doc": {"uniq_id": f"u{i}", "reference": ref, "scoring": "whisper_basic",
                      "audio_problem": "unreadable clip" if i == len(REFERENCES) - 1 else ""},
              "target": ref, "filtered_resps": [answer], "wer": None, "audio_missing": float(i == len(REFERENCES) - 1)}
             for i, (ref, answer) in enumerate(zip(REFERENCES, answers))]


def test_an_error_rate_is_read_with_metric_wer_as_a_corpus_rate_in_percent_lower_is_better(tmp_path):
    # A: one deletion, one substitution, one deletion over 3 + 4 + 2 + 4 = 13 reference words; B: one substitution
    a_lines = _asr_lines(["the cat sat", "a dog ran", "hello word", "one two three", ""])
    b_lines = _asr_lines(["the bat sat", "a dog ran far", "hello world", "one two three four", ""])
    direction = {FLEURS_TASK: {"wer": False, "audio_missing": False}}
    for model, lines, wer in (("model-a", a_lines, 3 / 13), ("model-b", b_lines, 1 / 13)):
        write_lm_eval_run(tmp_path / "runs" / model, model, DATE, {FLEURS_TASK: lines},
                          {FLEURS_TASK: {"alias": FLEURS_TASK, "wer,none": wer, "wer_stderr,none": "N/A",
                                         "audio_missing,none": 1}}, direction)
    # by default no metric of the task's is read: the hint names the one it reports, and its direction
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "runs"), "--output", str(tmp_path / "default")])
    assert proc.returncode == 0, proc.stderr
    assert "reports none of acc, exact_match; it reports wer (lower is better): choose with --metric wer" in proc.stdout
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "runs"), "--output", str(out), "--metric", "wer"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    a, b = report["tasks"][FLEURS_TASK]["model-a"], report["tasks"][FLEURS_TASK]["model-b"]
    assert a["value"] == pytest.approx(3 / 13) and b["value"] == pytest.approx(1 / 13) and a["n"] == b["n"] == 4
    assert a["statistic"] == "corpus rate" and a["higher_is_better"] is False and a["printed_as_percent"] is True
    assert a["low"] <= a["value"] <= a["high"] and b["low"] == 0.0  # B's errors are in one document
    # printed in %, the direction in the metric column
    assert f"| {FLEURS_TASK} | wer (%, lower is better) | {300 / 13:.2f} [" in proc.stdout
    assert f"(n=4) | {100 / 13:.2f} [" in proc.stdout and "An error rate (%) is the corpus rate" in proc.stdout
    # paired: the difference of the corpus rates on the documents both heard, in percentage points; A is worse
    paired = report["comparison"]["tasks"][FLEURS_TASK]
    assert paired["n"] == 4 and paired["difference"] == pytest.approx(2 / 13) and paired["higher_is_better"] is False
    assert paired["low"] <= paired["difference"] <= paired["high"]
    assert f"| {FLEURS_TASK} | wer (%, lower is better) | 4 | +{200 / 13:.2f} | [" in proc.stdout
    assert "a negative difference means model-a is better" in proc.stdout
    # the radar (outward is better) leaves it out and says so; the bars are drawn
    assert "left out, as lower is better and outward is better on its spokes: " + FLEURS_TASK in proc.stdout
    assert (out / "categories.png").read_bytes()[:4] == b"\x89PNG"


def test_other_lower_is_better_metrics_and_a_rate_with_nothing_to_recount(tmp_path):
    """A metric lm-eval marks lower-is-better with per-document values is a mean, its direction stated; a WER whose
    samples carry no reference to recount it from is shown as reported, with no interval and no paired test."""
    for model, losses in (("model-a", [0.5, 1.5, 1.0]), ("model-b", [1.0, 2.0, 1.5])):
        tasks = {"my_loss_task": [{"doc": {}, "loss": v} for v in losses],
                 "my_asr_task": [{"doc": {}, "filtered_resps": ["x"], "wer": None}] * 3}
        write_lm_eval_run(tmp_path / model, model, DATE, tasks,
                          {"my_loss_task": {"loss,none": sum(losses) / 3}, "my_asr_task": {"wer,none": 0.25}},
                          {"my_loss_task": {"loss": False}, "my_asr_task": {"wer": False}})
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "model-a"), str(tmp_path / "model-b"),
                    "--output", str(out), "--metric", "loss,wer"])
    assert proc.returncode == 0, proc.stderr
    assert "| my_loss_task | loss (lower is better) | 1.000 [" in proc.stdout
    assert "| my_loss_task | loss (lower is better) | 3 | -0.500 | [" in proc.stdout
    assert "| my_asr_task | wer (%, lower is better) | 25.00 (as reported; no interval) |" in proc.stdout
    assert "sample log has no reference and answer to recount it from" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["tasks"]["my_asr_task"]["model-a"]["statistic"] == "as reported"
    assert report["comparison"]["tasks"]["my_asr_task"] == {"note": "not compared: no per-document score in either run"}
    assert report["comparison"]["tasks"]["my_loss_task"]["higher_is_better"] is False


def test_a_task_run_twice_in_a_models_folder_says_which_run_it_read_and_how_to_read_the_other(tmp_path):
    folder = tmp_path / "runs" / "model-a"
    older, newer = "2026-01-01T00-00-00.000000", "2026-01-02T00-00-00.000000"
    direction = {FLEURS_TASK: {"wer": False}}
    write_lm_eval_run(folder, "model-a", older, {FLEURS_TASK: _asr_lines(REFERENCES)},
                      {FLEURS_TASK: {"wer,none": 0.0}}, direction)
    write_lm_eval_run(folder, "model-a", newer, {FLEURS_TASK: _asr_lines([
        "the cat sat", "a dog ran", "hello world", "one two three four", ""])}, {FLEURS_TASK: {"wer,none": 1 / 13}},
        direction)
    write_lm_eval_run(folder, "model-a", "2025-12-01T00-00-00.000000", {"my_task": [{"doc": {}, "acc": 1.0}]},
                      {"my_task": {"acc,none": 1.0}}, {"my_task": {"acc": True}})  # its only run: nothing to say
    out = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "runs"), "--output", str(out), "--metric", "wer,acc"])
    assert proc.returncode == 0, proc.stderr
    line = (f"- model-a: {FLEURS_TASK}: read from {folder}/results_{newer}.json; not read: "
            f"{folder}/results_{older}.json (to report it: `lm-eval-audio report {folder}/results_{older}.json`)")
    assert proc.stdout.count("## Runs read") == 1 and proc.stdout.count(line) == 1
    assert "my_task" not in proc.stdout.split("## Runs read")[1].split("Notes:")[0]
    assert f"| {FLEURS_TASK} | wer (%, lower is better) | {100 / 13:.2f} [" in proc.stdout  # the newest run's
    report = json.loads((out / "report.json").read_text())
    assert report["runs_not_read"] == {"model-a": [{"tasks": [FLEURS_TASK], "read": f"{folder}/results_{newer}.json",
                                                    "not_read": [f"{folder}/results_{older}.json"]}]}
    # as the line says: the older file beside the folder is a model of its own, compared with the newest
    proc = run_cli(["lm-eval-audio", "report", str(folder), f"{folder}/results_{older}.json",
                    "--output", str(tmp_path / "both"), "--metric", "wer,acc"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "both" / "report.json").read_text())
    assert report["models"] == [f"model-a ({newer})", f"model-a ({older})"]
    assert report["comparison"]["tasks"][FLEURS_TASK]["difference"] == pytest.approx(1 / 13)
