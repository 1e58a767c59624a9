"""MMSU: mmsu_evaluation.py's reading restated on responses written to hit its edge cases (each expectation is what
the official script, dingdongwang/MMSU@217d1d3, does with it), its prompt, the sample in ddwang2000/MMSU's layout,
and the sample through the real CLI with the bundled cascade."""

from __future__ import annotations

import json

import pytest
from conftest import results_json, run_cli

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.mmsu import data, scoring

LEFT_OUT = scoring.LEFT_OUT


@pytest.mark.parametrize("response, read", [
    ("B", "B"), ("b", LEFT_OUT), ("Answer: B", "A"),  # the first character, case-sensitive
    ("The answer is B.", "B"), ("(B)", "B"), ("B)", "B"), ("BA", "B"), ("**B**", LEFT_OUT), ("I think B", LEFT_OUT),
    ("None", None), ("", None), (" \n B \n", "B"), ("X", LEFT_OUT), (None, LEFT_OUT), ("A. x", "A"),
])
def test_reading_is_mmsu_evaluation_py(response, read):
    assert scoring.official_letter(response) == read


def _docs(where, metadata=None):
    return data.load_docs(where, dict(metadata or {}), True, notes=DataNotes())


def test_prompt_is_mmsu_inference_py_with_a_null_choice_written_none():
    gender = next(d for d in _docs({"category": "Perception"}) if d["task_name"] == "gender_prediction")
    assert data.prompt(gender) == (
        "Choose the most suitable answer from options A, B, C, and D. You must respond with only A, B, C, or D.\n\n"
        "Question: What is the gender of the speaker?\n\nA. None\nB. male\nC. None\nD. female")
    paper = next(d for d in _docs({"category": "Perception"}, {"mmsu_prompt": "paper"}))
    assert data.prompt(paper).startswith("Choose the most suitable answer from options A, B, C, and D to respond the "
                                         "question in next line, **you should only choose A or B or C or D.**")
    with pytest.raises(data.MMSUDataError, match="mmsu_prompt 'new'"):
        data.prompt_kind({"mmsu_prompt": "new"})


def test_right_is_the_chosen_choices_text_equal_to_answer_gt():
    docs = {d["task_name"]: d for d in _docs({"category": "Reasoning"})}
    homophone = docs["homophone_based_reasoning"]  # choices ... "None", answer "Eight."
    assert scoring.process_results(homophone, ["A"])["acc_all_items"] == 1.0
    assert scoring.process_results(homophone, ["D"])["acc_all_items"] == 0.0  # the choice whose text is "None"
    sarcasm = docs["sarcasm_detection"]  # C and D are null
    assert scoring.process_results(sarcasm, ["C"])["acc_all_items"] == 0.0
    assert scoring.process_results({**sarcasm, "audio_problem": "no file"}, ["B"])["audio_missing"] == 1.0


def test_official_acc_leaves_out_what_the_script_cannot_read_and_acc_all_items_does_not():
    docs = _docs({"category": "Reasoning"})
    answers = {"intent_detection": "B", "homophone_based_reasoning": "I think A", "sarcasm_detection": "A"}
    outs = [scoring.process_results(d, [answers[d["task_name"]]]) for d in docs]
    task = TaskScoring("mmsu_sample_reasoning", {})
    assert scoring.official_acc([o["official_acc"] for o in outs], task) == 0.5  # 1 of the 2 counted
    assert sum(o["acc_all_items"] for o in outs) / len(outs) == pytest.approx(1 / 3)
    assert [o["left_out_rate"] for o in outs] == [0.0, 1.0, 0.0]
    breakdown = task.data_notes["official_breakdown"]["mmsu_sample_reasoning"]["official_acc"]
    assert breakdown["category_sub_category"]["Reasoning / Linguistics"] == {"items": 1, "accuracy": 1.0}
    assert breakdown["leaderboard_column"]["Paralinguistics (Rea.)"] == {"items": 1, "accuracy": 0.0}
    assert set(breakdown["task_name"]) == {"intent_detection", "sarcasm_detection"}


@pytest.mark.slow  # two samples through lm_eval: about 20 s
def test_mmsu_and_big_bench_audio_samples_through_the_cli_offline(tmp_path):
    """The bundled cascade answers both samples in one run; without a judge Big Bench Audio's answers are logged
    and its score is absent, MMSU's are scored, its group's Overall pooled from the tasks' counted items."""
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "mmsu_sample,bigbench_audio_sample", "--limit", "2",
                    "--batch_size", "8", "--gen_kwargs", "max_gen_toks=8", "--output_path", str(tmp_path),
                    "--log_samples"],
                   env_extra={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "",
                              "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = results_json(tmp_path)
    assert res["n-samples"]["mmsu_sample_perception"]["effective"] == 2
    assert 0.0 <= res["results"]["mmsu_sample"]["acc_all_items,none"] <= 1.0
    pooled = res["lm_eval_audio_data"]["official_breakdown"]["mmsu_sample"]["official_acc"]["overall"]["all"]
    # the script's Overall: right over the counted items of both tasks, recomputed from the sample logs
    logged = [json.loads(line) for task in ("perception", "reasoning")
              for line in next(tmp_path.rglob(f"samples_mmsu_sample_{task}_*.jsonl")).read_text().splitlines()]
    scores = [s["item_scores"]["official_acc"] for s in logged]  # None: an item the script leaves out
    assert [v is None for v in scores] == [s["left_out_rate"] == 1.0 for s in logged]
    counted = [v for v in scores if v is not None]
    assert pooled["items"] == len(counted)
    if counted:
        assert pooled["accuracy"] == pytest.approx(sum(counted) / len(counted))
    assert "judge_acc,none" not in res["results"]["bigbench_audio_sample_navigate"]
    (samples,) = tmp_path.rglob("samples_bigbench_audio_sample_navigate_*.jsonl")
    answered = [json.loads(line) for line in samples.read_text().splitlines()]
    assert len(answered) == 2 and all(s["transcripts"] for s in answered)


def test_rows_of_a_category_no_task_reads_are_counted_and_said(tmp_path, caplog):
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = data.sample_root() / "data" / "train-00000-of-00001.parquet"
    rows = pq.read_table(source).to_pylist()
    rows[0]["category"] = "Perceptoin"
    (tmp_path / "data").mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(source)), tmp_path / "data" / source.name)
    notes = DataNotes()
    docs = data.load_docs({"category": "Perception"}, {"mmsu_data_dir": str(tmp_path)}, False, notes=notes)
    assert len(docs) == 3
    assert list(notes.entries["unknown_group_values"].values()) == [{"Perceptoin": 1}]
    assert any("not evaluated" in w[2] for w in notes.warnings)
