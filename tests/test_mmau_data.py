"""The MMAU, MMAR and MMAU-Pro loaders on fixtures in each official layout, with the official metadata's quirks:
a category written as a list, missing and empty clips, answers that are none of the choices, multi-audio rows,
open-ended rows without choices, instruction-following rows without an answer, kwargs as a struct or a string."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
import soundfile as sf
from conftest import task_scoring

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.tasks.mmar.data import LAYOUT as MMAR
from lm_eval_audio.tasks.mmau import data as mmau_data
from lm_eval_audio.tasks.mmau_pro import data as mmau_pro
from lm_eval_audio.testing.synthetic_audio import SYNTHETIC_SAMPLE_DATASET
from lm_eval_audio.storage import run_state


def _noted(load, *args, **kwargs):
    """A loader's documents, its notes taken into the run state as the seam takes them when lm-eval builds the
    task (harness.task_building.take_notes)."""
    from lm_eval_audio.benchmarks.data_notes import DataNotes
    from lm_eval_audio.harness.task_building import take_notes

    notes = DataNotes()
    try:
        return load(*args, notes=notes, **kwargs)
    finally:
        take_notes(notes)


def _clip(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.zeros(1600, dtype=np.float32), 16000)


def _mmau_item(i, **changes):
    item = {"id": f"id-{i}", "audio_id": f"./test-mini-audios/id-{i}.wav", "question": f"Q{i}?",
            "choices": ["Man", "Woman", "Child", "Robot"], "answer": "Man", "dataset": "AudioSet", "task": "sound",
            "split": "test-mini", "category": "Reasoning", "sub-category": "Acoustic Source Inference",
            "difficulty": "medium"}
    return {**item, **changes}


@pytest.fixture
def mmau_root(tmp_path):
    items = [_mmau_item(0), _mmau_item(1, category=["Reasoning"], task="music", difficulty="easy"),
             _mmau_item(2, task="speech"), _mmau_item(3), _mmau_item(4, choices=["Man"]),
             _mmau_item(5, audio_id="../../etc/passwd.wav"), _mmau_item(6, task="noise")]
    for i in (0, 1, 2, 6):
        _clip(tmp_path / "test-mini-audios" / f"id-{i}.wav")
    (tmp_path / "test-mini-audios" / "id-3.wav").write_bytes(b"")  # empty
    (tmp_path / "mmau-test-mini.json").write_text(json.dumps(items), encoding="utf-8")
    return tmp_path


def test_mmau_test_mini_layout_and_quirks(mmau_root, caplog):
    state = run_state.fresh()
    with caplog.at_level(logging.WARNING):
        sound = _noted(choice_layout.load_items, mmau_data.TEST_MINI, mmau_root, {"task": "sound"}, "mmau sound")
        music = _noted(choice_layout.load_items, mmau_data.TEST_MINI, mmau_root, {"task": "music"}, "mmau music")
    assert [d["uniq_id"] for d in sound] == ["id-0", "id-3"]  # 4 and 5 are left out, named
    assert sound[0]["audio"] == [str(mmau_root / "./test-mini-audios/id-0.wav")] and sound[0]["audio_problem"] == ""
    assert sound[1]["audio_problem"].startswith("empty audio file")  # kept, flagged, counted
    assert music[0]["category"] == "Reasoning" and music[0]["difficulty"] == "easy"  # the list, as a string
    assert sound[0]["sub_category"] == "Acoustic Source Inference"
    assert "choices must be a list of at least two strings" in caplog.text and "id 'id-4'" in caplog.text
    assert "leads outside the snapshot folder" in caplog.text
    assert "have a task no task reads ('noise' (1)" in caplog.text  # evaluation.py would raise on it
    assert state.data_notes["unusable_audio"] == {"mmau sound/id-3": sound[1]["audio_problem"]}
    assert set(state.data_notes["invalid_items"]) == {"mmau sound/4", "mmau sound/5"}


def test_mmau_difficulty_split_and_test_set_without_answers(mmau_root, tmp_path):
    run_state.fresh()
    easy = _noted(choice_layout.load_items, mmau_data.TEST_MINI, mmau_root, {"difficulty": "easy"}, "mmau easy")
    assert [d["uniq_id"] for d in easy] == ["id-1"]
    test = [_mmau_item(9, answer="", split="test", audio_id="./test-audios/id-9.wav")]
    (mmau_root / "mmau-test.json").write_text(json.dumps(test), encoding="utf-8")
    _clip(mmau_root / "test-audios" / "id-9.wav")
    docs = _noted(choice_layout.load_items, mmau_data.TEST, mmau_root, {}, "mmau test")
    assert docs[0]["answer"] == "" and "answer_not_in_choices" not in run_state.current().data_notes


def test_mmau_data_folder_errors_name_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("MMAU_DATA_DIR", raising=False)
    # the test split is not fetched (test-mini is: tests/test_hub_data.py)
    with pytest.raises(choice_layout.LayoutDataError, match="mmau-test.json from github.com/Sakshi113/MMAU .*export "
                       "MMAU_DATA_DIR=.* run the synthetic `mmau_sample` group"):
        choice_layout.check_snapshot(mmau_data.TEST, {})
    with pytest.raises(choice_layout.LayoutDataError, match="holds no mmau-test-mini.json"):
        choice_layout.check_snapshot(mmau_data.TEST_MINI, {"mmau_data_dir": str(tmp_path)})
    (tmp_path / "mmau-test-mini.json").write_text("[{", encoding="utf-8")
    with pytest.raises(choice_layout.LayoutDataError, match="is not valid JSON"):
        _noted(choice_layout.load_items, mmau_data.TEST_MINI, tmp_path, {}, "x")
    (tmp_path / "mmau-test-mini.json").write_text("[]", encoding="utf-8")
    with pytest.raises(choice_layout.TaskDataAbsent, match="lists no items"):
        _noted(choice_layout.load_items, mmau_data.TEST_MINI, tmp_path, {"task": "sound"}, "x")


def _mmar_item(i, **changes):
    item = {"id": f"v{i}_00-01-32_00-02-02", "audio_path": f"./audio/v{i}_00-01-32_00-02-02.wav",
            "question": "Where?", "choices": ["Mountain Canyon", "Dense Forest", "Open Grassland", "City Streets"],
            "answer": "Open Grassland", "modality": "music", "category": "Cultural Layer",
            "sub-category": "Professional Knowledge and Reasoning", "language": None, "source": "youtube"}
    return {**item, **changes}


def test_mmar_reads_the_jsonl_or_the_json_and_keeps_answers_off_the_choices(tmp_path, caplog):
    run_state.fresh()
    items = [_mmar_item(0), _mmar_item(1, answer="3060", choices=["3060 ", "2040 "], modality="mix-sound-speech"),
             _mmar_item(2, thinking="...", rubric=[{"name": "x"}], modality="speech")]
    for i in range(3):
        _clip(tmp_path / "audio" / f"v{i}_00-01-32_00-02-02.wav")
    (tmp_path / "MMAR-meta.json").write_text(json.dumps(items), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        mixed = _noted(choice_layout.load_items, MMAR, tmp_path, {"modality": "mix-sound-speech"}, "mmar mix")
    # the old JSON's quirk: kept, scored as the official rule scores it, and noted
    assert mixed[0]["answer"] == "3060" and "answer that is none of their choices" in caplog.text
    assert run_state.current().data_notes["answer_not_in_choices"] == {"mmar mix/v1_00-01-32_00-02-02": "3060"}
    # the newer JSON Lines file wins where both are present, and its extra fields are ignored
    (tmp_path / "MMAR-meta.jsonl").write_text("\n".join(json.dumps(i) for i in items[2:]) + "\n", encoding="utf-8")
    docs = _noted(choice_layout.load_items, MMAR, tmp_path, {"category": "Cultural Layer"}, "mmar cultural")
    assert [d["modality"] for d in docs] == ["speech"]
    assert run_state.current().data_notes["meta_files"]["mmar cultural"].endswith("MMAR-meta.jsonl")
    (tmp_path / "MMAR-meta.jsonl").write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(choice_layout.LayoutDataError, match="MMAR-meta.jsonl line 2: not JSON"):
        _noted(choice_layout.load_items, MMAR, tmp_path, {}, "x")


def _pro_rows():
    struct = {"keywords": None, "N": None, "N1": None, "N2": None}
    base = {"length_type": "short", "perceptual_skills": ["x"], "reasoning_skills": ["y"], "transcription": None,
            "task_classification": "t", "task_identifier": None, "kwargs": None, "sub-cat": "s"}
    return [
        {**base, "id": "c1", "audio_path": ["data/c1.wav"], "question": "Which?", "answer": "dog",
         "choices": ["dog", "cat"], "category": "sound"},
        {**base, "id": "m1", "audio_path": ["data/m1a.wav", "data/m1b.wav"], "question": "Which clip?",
         "answer": "Audio 2", "choices": ["Audio 1", "Audio 2"], "category": "multi"},
        {**base, "id": "c2", "audio_path": ["data/c2.wav"], "question": "One choice", "answer": "x", "choices": ["x"],
         "category": "sound"},
        {**base, "id": "o1", "audio_path": ["data/o1.wav"], "question": "Describe.", "answer": "A dog barks.",
         "choices": [], "category": "open"},
        {**base, "id": "i1", "audio_path": ["data/i1.wav"], "question": "Lowercase!", "answer": None, "choices": [],
         "category": "instruction following", "task_identifier": "Number Words (at most)",
         "kwargs": {**struct, "N": 5}},
        {**base, "id": "u1", "audio_path": ["data/u1.wav"], "question": "?", "answer": "a", "choices": ["a", "b"],
         "category": "telepathy"},
        {**base, "id": "i2", "audio_path": ["data/i1.wav"], "question": "Anything.", "answer": None, "choices": [],
         "category": "instruction following"},  # no task_identifier: the script fails it, so it is kept
        {**base, "id": "c3", "audio_path": ["data/missing.wav"], "question": "Which?", "answer": "a",
         "choices": ["a", "b"], "category": "sound"},
    ]


@pytest.fixture
def pro_root(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name in ("c1", "m1a", "m1b", "c2", "o1", "i1", "u1"):
        _clip(tmp_path / "data" / f"{name}.wav")
    pq.write_table(pa.Table.from_pylist(_pro_rows()), tmp_path / "test.parquet")
    return tmp_path


def test_mmau_pro_layout_and_quirks(pro_root, caplog):
    state = run_state.fresh()
    with caplog.at_level(logging.WARNING):
        closed = _noted(mmau_pro.load_items, pro_root, ["sound", "multi"], "pro closed")
        both = _noted(mmau_pro.load_items, pro_root, ["open", "instruction following"], "pro other")
    assert [d["uniq_id"] for d in closed] == ["c1", "m1", "c3"]  # c2 (one choice) dropped, as the script drops it
    assert "needs at least two choices" in caplog.text and "'c2'" in caplog.text
    multi = closed[1]
    assert multi["audio"] == [str(pro_root / "data/m1a.wav"), str(pro_root / "data/m1b.wav")]
    assert closed[2]["audio_problem"].startswith("missing audio file")
    assert choice_layout.doc_to_audio(closed[2]) == [{"path": closed[2]["audio"][0], "unavailable": closed[2]["audio_problem"]}]
    opened, instructions, unidentified = both
    assert opened["kind"] == "open" and opened["choices"] == [] and opened["answer"] == "A dog barks."
    # the struct's absent fields stay null, as pandas gives them to the script (its defaults do not apply)
    assert instructions["answer"] == "" and json.loads(instructions["kwargs"]) == {"keywords": None, "N": 5,
                                                                                   "N1": None, "N2": None}
    assert unidentified["uniq_id"] == "i2" and unidentified["task_identifier"] == ""
    assert "'telepathy' (1)" in caplog.text  # a category no task reads
    assert state.data_notes["mmau_pro_clips"]["pro closed"] == "all"
    assert mmau_pro.prompt(opened) == "Describe.\n\nProvide a detailed answer:"
    assert mmau_pro.prompt(instructions) == "Lowercase!"
    assert mmau_pro.prompt(closed[0]).endswith("A: dog\nB: cat\n\nAnswer with the correct option text "
                                               "(you may include the letter).")


def test_mmau_pro_first_clip_only_reproduces_the_paper(pro_root):
    run_state.fresh()
    docs = _noted(mmau_pro.load_items, pro_root, ["multi"], "pro multi", mmau_pro.clips_setting({"mmau_pro_clips": "first"}))
    assert docs[0]["audio"] == [str(pro_root / "data/m1a.wav")] and docs[0]["clips_in_row"] == 2
    with pytest.raises(choice_layout.LayoutDataError, match="mmau_pro_clips 'some'"):
        mmau_pro.clips_setting({"mmau_pro_clips": "some"})


def test_mmau_pro_kwargs_as_a_json_string(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": "i2", "audio_path": ["data/i2.wav"], "question": "q", "answer": None, "choices": [],
             "category": "instruction following", "task_identifier": "Include Keywords",
             "kwargs": '{"keywords": "dog, cat"}'}]
    _clip(tmp_path / "data" / "i2.wav")
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "test.parquet")
    run_state.fresh()
    docs = _noted(mmau_pro.load_items, tmp_path, ["instruction following"], "x")
    assert json.loads(docs[0]["kwargs"]) == {"keywords": "dog, cat"}


def test_the_bundled_samples_are_in_the_official_layouts():
    run_state.fresh()
    mini = _noted(choice_layout.load_items, mmau_data.TEST_MINI, choice_layout.sample_root(mmau_data.TEST_MINI), {}, "sample")
    test = _noted(choice_layout.load_items, mmau_data.TEST, choice_layout.sample_root(mmau_data.TEST), {}, "sample test")
    mmar = _noted(choice_layout.load_items, MMAR, choice_layout.sample_root(MMAR), {}, "sample mmar")
    pro = _noted(mmau_pro.load_items, mmau_pro.sample_root(), list(mmau_pro.CATEGORIES), "sample pro")
    assert (len(mini), len(test), len(mmar), len(pro)) == (12, 3, 14, 14)
    assert all(not d["audio_problem"] for d in mini + test + mmar + pro)
    assert {d["source"] for d in mini + mmar} == {SYNTHETIC_SAMPLE_DATASET}
    assert {d["modality"] for d in mmar} == set(MMAR.groups["modality"])
    assert {d["kind"] for d in pro} == {"closed", "open", "instruction following"}
    assert any(len(d["audio"]) == 2 for d in pro)
    from pathlib import Path

    size = sum(f.stat().st_size for root in (choice_layout.sample_root(mmau_data.TEST_MINI), choice_layout.sample_root(MMAR),
                                             mmau_pro.sample_root()) for f in Path(root).rglob("*") if f.is_file())
    assert size < 5_000_000


def test_mmau_test_predictions_are_written_for_the_official_evaluation(tmp_path):
    """MMAU test's answers are withheld: each response is kept under evaluation.py's key, beside the item."""
    import importlib.util

    from lm_eval_audio import tasks

    spec = importlib.util.spec_from_file_location("mmau_utils", f"{tasks.folder()}/mmau/utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    docs = utils.load(split="test", sample=True)["test"]
    results = [utils.process_prediction(doc, [answer]) for doc, answer in zip(docs, ["horse", "", "three"])]
    task = task_scoring("mmau_test")
    assert utils.predictions_written([r["predictions_written"] for r in results], task) == 3
    assert sum(r["unanswered"] for r in results) == 1
    written = task.submission  # the results writer puts it beside the results as mmau_test_submission_<date>.json
    original = json.loads((choice_layout.sample_root(mmau_data.TEST) / "mmau-test.json").read_text())
    # the benchmark file's own records, key for key and in its order, with the answer added under model_output
    assert written == [{**item, "model_output": answer} for item, answer in zip(original, ["horse", "", "three"])]
    assert [list(w) for w in written] == [[*item, "model_output"] for item in original]


def test_cli_mmau_test_writes_the_predictions_file_beside_the_results(tmp_path):
    """`lm_eval --tasks mmau_test` (answers withheld): no score, and the responses in evaluation.py's input format
    next to the results, for the benchmark's server; a served model answers."""
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    from conftest import run_cli

    import shutil

    # the official test file as MMAU publishes it: some items marked test-mini, some categories one-element lists
    folder = tmp_path / "mmau"
    shutil.copytree(choice_layout.sample_root(mmau_data.TEST), folder)
    original = json.loads((folder / "mmau-test.json").read_text())
    original[0]["category"] = [original[0]["category"]]
    original[1]["split"] = "test-mini"
    (folder / "mmau-test.json").write_text(json.dumps(original, indent=2, ensure_ascii=False))
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda prompt: "B: two") as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args",
                        f"base_url={server.base_url},model=served-audio-lm", "--tasks", "mmau_test",
                        "--output_path", str(tmp_path / "out")],
                       env_extra={"MMAU_DATA_DIR": str(folder)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    (written,) = (tmp_path / "out").rglob("mmau_test_submission_*.json")
    items = json.loads(written.read_text(encoding="utf-8"))
    for item, record in zip(items, original, strict=True):  # key by key, in the file's order
        assert list(item) == [*record, "model_output"]
        assert all(item[k] == record[k] for k in record) and item["model_output"] == "B: two"
    assert items[0]["category"] == [original[0]["category"][0]] and items[1]["split"] == "test-mini"
    assert "predictions for the official evaluation written to" in proc.stderr
    (results,) = (tmp_path / "out").rglob("results_*.json")
    assert json.loads(results.read_text())["results"]["mmau_test"]["predictions_written,none"] == 3


def test_a_groups_official_lines_pool_its_tasks_documents():
    """MMAR's code/evaluation.py prints each sub-category's accuracy over all 1,000 items, and its sub-categories
    span the modality tasks: the group's line is correct / total over every task's items, not a mean of means."""
    breakdowns = {
        "mmar_sound": {"official_acc": {"sub_category": {"Temporal Analysis": {"items": 2, "accuracy": 0.5}},
                                        "modality": {"sound": {"items": 2, "accuracy": 0.5}}}},
        "mmar_music": {"official_acc": {"sub_category": {"Temporal Analysis": {"items": 1, "accuracy": 1.0},
                                                         "Counting and Statistics": {"items": 3, "accuracy": 0.0}},
                                        "modality": {"music": {"items": 4, "accuracy": 0.25}}}},
    }
    pooled = choice_layout.pooled_by_group(breakdowns, {"mmar": ["mmar_sound", "mmar_music"], "outer": ["mmar"]})
    lines = pooled["mmar"]["official_acc"]["sub_category"]
    assert lines["Temporal Analysis"] == {"items": 3, "accuracy": pytest.approx(2 / 3)}
    assert lines["Counting and Statistics"] == {"items": 3, "accuracy": 0.0}
    assert pooled["mmar"]["official_acc"]["modality"]["music"] == {"items": 4, "accuracy": 0.25}
    assert pooled["outer"] == pooled["mmar"]  # a group of groups pools the leaves


def test_cli_the_mmar_groups_sub_category_lines_in_the_results_and_the_report(tmp_path):
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    from conftest import results_json, run_cli

    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda prompt: "A") as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args",
                        f"base_url={server.base_url},model=served-audio-lm", "--tasks", "mmar_sample",
                        "--output_path", str(tmp_path / "out"), "--log_samples"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_json(tmp_path / "out")
    lines = res["lm_eval_audio_data"]["official_breakdown"]["mmar_sample"]["official_acc"]["sub_category"]
    expected: dict = {}
    for path in (tmp_path / "out").rglob("samples_mmar_sample_*.jsonl"):  # the script's count over every item
        for sample in map(json.loads, path.read_text().splitlines()):
            entry = expected.setdefault(sample["doc"]["sub_category"], [0, 0])
            entry[0] += 1
            entry[1] += sample["official_acc"]["score"] if isinstance(sample["official_acc"], dict) else sample["official_acc"]
    assert {k: (v["items"], v["accuracy"]) for k, v in lines.items()} == \
        {k: (n, pytest.approx(right / n)) for k, (n, right) in expected.items()}
    assert sum(v["items"] for v in lines.values()) == 14
    proc = run_cli(["lm-eval-audio", "report", str(tmp_path / "out"), "--output", str(tmp_path / "report")])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "## Sub-categories" in proc.stdout
    for value, entry in lines.items():
        assert f"| mmar_sample | {value} | {entry['items']} | {entry['accuracy']:.3f} |" in proc.stdout


def test_mmau_pro_rows_of_another_category_are_scored_as_the_script_scores_them(pro_root, caplog):
    """evaluate_mmau_pro_comprehensive.py scores every category but open and instruction following as closed,
    under its own name and in its overall number: mmau_pro_other_closed reads them; without such rows (the
    published parquet) it is absent on purpose."""
    run_state.fresh()
    with caplog.at_level(logging.WARNING):
        docs = _noted(mmau_pro.load_items, pro_root, [mmau_pro.OTHER_CLOSED], "pro other closed")
    assert [(d["uniq_id"], d["category"], d["kind"]) for d in docs] == [("u1", "telepathy", "closed")]
    assert "'telepathy' (1)" in caplog.text and "scored as closed questions under their own category" in caplog.text
    assert [d["uniq_id"] for d in _noted(mmau_pro.load_items, pro_root, ["sound"], "pro sound")] == ["c1", "c3"]
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(pro_root / "test.parquet")
    pq.write_table(table.filter(pc.not_equal(table["category"], "telepathy")), pro_root / "test.parquet")
    with pytest.raises(mmau_pro.NoOtherCategories) as absent:
        _noted(mmau_pro.load_items, pro_root, [mmau_pro.OTHER_CLOSED], "pro other closed")
    assert absent.value.expected_absent and absent.value.skippable_in_group


def _all_closed_categories(folder, extra=()):
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = {k: v for k, v in _pro_rows()[0].items() if k not in ("id", "audio_path", "category")}
    rows = [{**base, "id": f"r{i}", "audio_path": [f"data/r{i}.wav"], "category": c}
            for i, c in enumerate([*mmau_pro.CLOSED_CATEGORIES, *extra])]
    for row in rows:
        _clip(folder / row["audio_path"][0])
    pq.write_table(pa.Table.from_pylist(rows), folder / "test.parquet")
    return folder


def test_cli_mmau_pro_closed_scores_another_category_and_is_whole_without_one(tmp_path):
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    from conftest import results_json, run_cli

    def run(folder, out):
        with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda prompt: "dog") as server:
            return run_cli(["lm_eval", "--model", "openai-audio", "--model_args",
                            f"base_url={server.base_url},model=served-audio-lm", "--tasks", "mmau_pro_closed",
                            "--output_path", str(out)], env_extra={"MMAU_PRO_DATA_DIR": str(folder)})

    published = _all_closed_categories(tmp_path / "published")
    proc = run(published, tmp_path / "out1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_json(tmp_path / "out1")
    assert "mmau_pro_other_closed" not in res["results"]
    assert not [line for line in proc.stderr.splitlines() if "WARNING" in line and "left out of its group" in line]
    assert "PARTIAL" not in res["results"]["mmau_pro_closed"]["alias"]  # the quiet absence costs the group nothing

    other = _all_closed_categories(tmp_path / "other", extra=("telepathy",))
    proc = run(other, tmp_path / "out2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_json(tmp_path / "out2")
    assert res["n-samples"]["mmau_pro_other_closed"]["effective"] == 1
    assert sum(res["n-samples"][f"mmau_pro_{c}"]["effective"] for c in mmau_pro.CLOSED_CATEGORIES) == 10
    assert res["results"]["mmau_pro_closed"]["pattern_acc,none"] == pytest.approx(1.0)  # 11 of 11 read "dog"
