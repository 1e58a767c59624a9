"""Clotho-AQA (tasks/clotho_aqa): the loader on the bundled sample and on broken copies, lmms-eval's and Qwen-Audio's
readings restated on edge cases, the Hub fetch against the stand-in Hub, and the sample's numbers recomputed from a
CLI run (tests/test_model_card_samples.py)."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import stand_in_hub, task_scoring

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.model_wrappers.family_adapters.not_run import QWEN_AUDIO
from lm_eval_audio.tasks.clotho_aqa import data, scoring

SAMPLE_GROUPS = ["clotho_aqa_sample"]
SHARD = "clotho_aqa/clotho_aqa_test_filtered-00000-of-00001.parquet"


def _copy(tmp_path, edit=None):
    root = tmp_path / "clotho"
    shutil.copytree(data.SPEC.sample, root)
    if edit is not None:
        path = root / SHARD
        pq.write_table(edit(pq.read_table(path)), path)
    return root


def test_sample_loads_with_lmms_eval_prompt_and_the_yes_no_subset():
    notes = DataNotes()
    docs = data.load_docs({}, True, notes=notes)
    assert [d["reference"] for d in docs] == ["yes", "rain", "no"]
    assert [d["yes_no"] for d in docs] == [True, False, True]
    assert docs[0]["prompt"] == "Is a dog barking?\nAnswer the question using a single word only. "
    assert notes.entries["prompts"]["Clotho-AQA test sample"] == data.PROMPT


def test_prompt_override_is_a_template_and_qwen_audio_asks_the_question_alone():
    docs = data.load_docs({"prompt": "Q: {question} A:"}, True, notes=DataNotes())
    assert docs[1]["prompt"] == "Q: What is falling on the roof? A:"
    with pytest.raises(SpeechDataError, match=r"has no \{question\}"):
        data.load_docs({"prompt": "Answer in one word."}, True, notes=DataNotes())
    assert data.AUTHORS_PROMPTS[QWEN_AUDIO].text == "{question}"


def test_a_copy_without_the_answer_column_names_the_file(tmp_path):
    root = _copy(tmp_path, lambda t: t.drop(["answer"]))
    with pytest.raises(SpeechDataError, match=r"clotho_aqa_test_filtered-00000-of-00001\.parquet lacks the column"):
        data.load_docs({"clotho_aqa_data_dir": str(root)}, False, notes=DataNotes())


def test_a_row_without_an_answer_is_left_out_and_named(tmp_path):
    def blank(table):
        answers = table.column("answer").to_pylist()
        answers[1] = " "
        return table.set_column(table.schema.get_field_index("answer"), "answer", pa.array(answers))

    notes = DataNotes()
    docs = data.load_docs({"clotho_aqa_data_dir": str(_copy(tmp_path, blank))}, False, notes=notes)
    assert [d["reference"] for d in docs] == ["yes", "no"]
    assert list(notes.entries["invalid_items"].values()) == ["no answer text"]


def test_a_folder_without_the_shards_says_what_it_must_hold(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SpeechDataError, match=r"holds no clotho_aqa/clotho_aqa_test_filtered-\*\.parquet"):
        data.load_docs({"clotho_aqa_data_dir": str(tmp_path / "empty")}, False, notes=DataNotes())


# (response, reference, lmms-eval's exact_match, Qwen-Audio's accuracy), each reading worked out from its code:
# lmms-eval@75571cf api/task.py:1588-1590,1675 (the response stripped) then api/metrics.py:188-220 (lower-case,
# string.punctuation removed; the reference not stripped) and
# Qwen-Audio@b50fb95 evaluate_aqa.py:162,217 (the answer stripped, then equal, case counting)
READINGS = [
    ("yes", "yes", True, True),
    ("Yes.", "yes", True, False),
    ("YES", "yes", True, False),
    (" yes", "yes", True, True),
    ("yes\n", "yes", True, True),
    ("\tYes. ", "yes", True, False),
    ("yes sir", "yes", False, False),
    ("yes", " yes", False, False),
    ("Yes, it is.", "yes", False, False),
    ("y", "yes", False, False),
    ("rain", "Rain", True, False),
    ("\"rain\"", "rain", True, False),
    ("it's", "its", True, False),
    ("two", "2", False, False),
    ("", "no", False, False),
    # trailing NULs: numpy's <U arrays (accuracy_score's, lmms-eval's) drop them; leading and inner ones stay
    ("yes\x00", "yes", True, True),
    ("yes\x00\x00 ", "yes", True, True),  # stripped first, then the NULs go
    ("yes \x00", "yes", False, False),
    ("yes\x00.", "yes", True, False),  # lmms-eval's: the punctuation goes, then the NUL it leaves at the end
    ("\x00yes", "yes", False, False),
    ("ye\x00s", "yes", False, False),
]


@pytest.mark.parametrize("response,reference,lmms_eval,qwen_audio", READINGS)
def test_readings_restate_the_references(response, reference, lmms_eval, qwen_audio):
    assert scoring.lmms_eval_match(response, reference) is lmms_eval
    assert scoring.qwen_audio_match(response, reference) is qwen_audio


def test_yes_no_accuracy_is_over_the_yes_no_references_only():
    docs = data.load_docs({}, True, notes=DataNotes())
    results = [scoring.process_results(d, [r]) for d, r in zip(docs, ["yes", "rain", "Yes"])]
    assert [r["acc"] for r in results] == [1.0, 1.0, 0.0]
    assert [r["exact_match"] for r in results] == [1.0, 1.0, 0.0]
    assert scoring.acc_yes_no([r["acc_yes_no"] for r in results], task_scoring("clotho_aqa_sample_test")) == 0.5


def test_a_missing_clip_is_counted_and_wrong():
    doc = {**data.load_docs({}, True, notes=DataNotes())[0], "audio_problem": "no audio"}
    result = scoring.process_results(doc, ["yes"])
    assert (result["acc"], result["exact_match"], result["audio_missing"]) == (0.0, 0.0, 1.0)


def test_the_hub_copy_is_fetched_shard_by_shard_and_its_commit_recorded(tmp_path, monkeypatch):
    with stand_in_hub({data.SPEC.repo: data.SPEC.sample}, tmp_path / "hub_cache", monkeypatch,
                      (data.SPEC.variable,)) as hub:
        notes = DataNotes()
        docs = data.load_docs({}, False, notes=notes)
        assert len(docs) == 3
        served = [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()]
        assert served == [SHARD]
        record = notes.entries["sources"]["Clotho-AQA test"]
        assert record["repo_id"] == "lmms-lab-audio/ClothoAQA" and len(record["commit"]) == 40


def check_sample_run(results: dict, logged) -> None:
    task = "clotho_aqa_sample_test"
    samples = logged(task)
    assert len(samples) == 2
    em, acc, yes_no = [], [], []
    for s in samples:
        response, reference = s["filtered_resps"][0], s["doc"]["reference"]
        em.append(float(scoring.lmms_eval_match(response, reference)))
        acc.append(float(scoring.qwen_audio_match(response, reference)))
        if s["doc"]["yes_no"]:
            yes_no.append(acc[-1])
    got = results["results"][task]
    assert got["exact_match,none"] == pytest.approx(sum(em) / len(em))
    assert got["acc,none"] == pytest.approx(sum(acc) / len(acc))
    assert got["acc_yes_no,none"] == pytest.approx(sum(yes_no) / len(yes_no))
    assert got["audio_missing,none"] == 0
