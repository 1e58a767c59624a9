"""AIR-Bench loading, prompts and the official exact-match rule, on quirky snapshots."""

from __future__ import annotations

import logging

import pytest
from conftest import foundation_item, task_scoring, write_snapshot

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.airbench import data as airbench


def _load(root, task_names, track="Foundation", notes=None):
    return airbench.load_items(root, track, task_names, "test_task", notes=DataNotes() if notes is None else notes)


def test_official_layout_and_its_quirks(tmp_path):
    items = [
        foundation_item(1, "Audio_Grounding", "AudioGrounding"),
        foundation_item(2, "Speaker_Emotion_Recontion", "iemocap", answer="no"),
        foundation_item(3, "Speaker_Emotion_Recontion", "meld", answer="maybe"),
        foundation_item(4, "Speaker_Gender_Recognition", "meld", two_choice=True, answer="no"),
    ]
    root = write_snapshot(tmp_path, items)

    grounding = _load(root, ["Audio_Grounding"])
    assert grounding[0]["audio"].endswith("Foundation/Audio_Grounding_AudioGrounding/clip_1.flac")

    emotion = _load(root, ["Speaker_Emotion_Recontion"])  # one task, two source folders
    assert [d["dataset_name"] for d in emotion] == ["iemocap", "meld"]
    assert [airbench.answer_letter(d) for d in emotion] == ["B", "C"]

    (gender,) = _load(root, ["Speaker_Gender_Recognition"])
    assert gender["choice_c"] is None and gender["choice_d"] is None
    # Inference_Foundation.py's prompt, byte for byte, `None` for the missing options.
    assert airbench.foundation_prompt(gender) == (
        "Choose the most suitable answer from options A, B, C, and D to respond the question in next line, "
        "you may only choose A or B or C or D.\nQuestion 4?\nA. yes\nB. no\nC. None\nD. None"
    )
    assert airbench.answer_letter(gender) == "B"


def test_data_dir_from_metadata_wins_over_environment(tmp_path, monkeypatch):
    (tmp_path / "Foundation").mkdir()
    (tmp_path / "Foundation" / "Foundation_meta.json").write_text("[]")
    monkeypatch.setenv("AIRBENCH_DATA_DIR", str(tmp_path / "nowhere"))
    source = airbench.data_source({"airbench_data_dir": str(tmp_path)})
    assert source.root == tmp_path and source.snapshot is None
    assert source.record()["local_folder"] == str(tmp_path) and len(source.record()["metadata_sha256"]) == 64
    with pytest.raises(airbench.AirBenchDataError, match="does not exist"):
        airbench.data_source({})
    monkeypatch.setenv("AIRBENCH_DATA_DIR", str(tmp_path / "Foundation"))
    with pytest.raises(airbench.AirBenchDataError, match="not an AIR-Bench snapshot.*hf download"):
        airbench.data_source({})


def test_partial_snapshot_reports_missing_folders_with_counts(tmp_path, caplog):
    items = [foundation_item(i, "Sound_AQA", "avqa") for i in range(1, 4)]
    items += [foundation_item(i, "Sound_AQA", "clothoaqa") for i in range(4, 6)]
    root = write_snapshot(tmp_path, items, skip_files={4, 5})  # the clothoaqa folder never made
    with caplog.at_level(logging.WARNING, logger="lm_eval.audio.airbench"):
        docs = _load(root, ["Sound_AQA"])
    assert [d["uniq_id"] for d in docs] == ["1", "2", "3"]
    assert "Foundation/Sound_AQA_clothoaqa is missing" in caplog.text and "its 2 item(s)" in caplog.text

    # A task with nothing to evaluate: inside a group the startup hook leaves it out.
    with pytest.raises(airbench.TaskDataAbsent, match="lists no items of this task"):
        _load(root, ["Music_AQA"])
    root = write_snapshot(tmp_path / "b", [foundation_item(1, "Music_AQA")], skip_files={1})
    with pytest.raises(airbench.TaskDataAbsent, match="none of its audio folders"):
        _load(root, ["Music_AQA"])


def test_missing_or_empty_audio_is_flagged_by_uniq_id_and_kept(tmp_path, caplog):
    items = [foundation_item(i, "Music_AQA", "ds") for i in (7, 8, 9)]
    root = write_snapshot(tmp_path, items)
    folder = root / "Foundation" / "Music_AQA_ds"
    (folder / "clip_8.wav").unlink()
    (folder / "clip_9.wav").write_bytes(b"")  # SpokenWOZ ships empty wav files
    with caplog.at_level(logging.WARNING, logger="lm_eval.audio.airbench"):
        docs = _load(root, ["Music_AQA"])
    assert len(docs) == 3  # the denominator keeps them
    assert [bool(d["audio_problem"]) for d in docs] == [False, True, True]
    assert "uniq_id 8: missing audio file" in caplog.text and "uniq_id 9: empty audio file" in caplog.text


def test_invalid_items_are_left_out_by_uniq_id_and_recorded(tmp_path, caplog):

    bad = foundation_item(6, "Music_AQA")
    del bad["question"]
    items = [foundation_item(4, "Music_AQA"), foundation_item(5, "Music_AQA", answer="not an option"), bad]
    root = write_snapshot(tmp_path, items)
    notes = DataNotes()
    with caplog.at_level(logging.WARNING, logger="lm_eval.audio.airbench"):
        docs = _load(root, ["Music_AQA"], notes=notes)
    assert [d["uniq_id"] for d in docs] == ["4"]
    assert "2 item(s)" in caplog.text and "uniq_id 5 (item 1): answer_gt 'not an option' is none of its choices" in caplog.text
    assert "uniq_id 6 (item 2): lacks question" in caplog.text
    assert set(notes.entries["airbench_invalid_items"]) == {"Foundation/5", "Foundation/6"}
    (root / "Foundation" / "Foundation_meta.json").write_text('{"not": "a list"}')
    with pytest.raises(airbench.AirBenchDataError, match="must hold a JSON list"):
        _load(root, ["Music_AQA"])


@pytest.mark.parametrize(
    "response, letter",
    [
        ("A", "A"),
        ("B. a dog barking", "B"),
        ("The answer is C.", "C"),  # the second-to-last character
        ("  \nD\n", "D"),
        ("Because it rains", "B"),  # the official rule's quirk, kept for fidelity
        ("the answer is c.", None),  # case-sensitive, as score_foundation.py
        ("It is a cat", None),
        ("", None),
        ("None", None),
    ],
)
def test_official_exact_match_rule(response, letter):
    assert airbench.official_choice(response) == letter


@pytest.mark.parametrize(
    "response, followed, rule",
    [
        ("B", True, "B"), ("B.", True, "B"), ("B)", True, "B"), ("(B)", True, "B"), (" C: a dog barking\n", True, "C"),
        ("D. the answer", True, "D"),
        ("Definitely C.", False, "D"),  # the official rule reads a letter, the wrong one
        ("Anger", False, "A"),
        ("A dog barking", False, "A"),
        ("The answer is B.", False, "B"),
        ("b", False, None), ("E", False, None), ("", False, None), ("B.C", False, "B"),
    ],
)
def test_table4_answer_format_is_an_option_letter_not_whatever_the_rule_reads(response, followed, rule):
    assert airbench.follows_answer_format(response) is followed
    assert airbench.official_choice(response) == rule


def test_format_followed_and_the_rules_parse_rate_differ_per_item(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    from lm_eval_audio.tasks.airbench import utils

    (doc,) = _load(write_snapshot(tmp_path, [foundation_item(1, "Music_AQA", answer="no")]), ["Music_AQA"])
    scores = utils.process_foundation(doc, ["Definitely B."], task_scoring())
    assert (scores["format_followed"], scores["exact_match_rule_parsed"], scores["exact_match"]) == (0.0, 1.0, 0.0)


def test_per_item_scores_of_both_routes(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    from lm_eval_audio.tasks.airbench import utils

    items = [foundation_item(i, "Music_AQA", answer="no") for i in (1, 2)]
    root = write_snapshot(tmp_path, items)
    (root / "Foundation" / "Music_AQA_ds" / "clip_2.wav").unlink()
    ok, missing = _load(root, ["Music_AQA"])
    folder = "Music_AQA_ds"  # score_foundation.py's task_id: <task_name>_<dataset_name>
    assert utils.process_foundation(ok, ["B. no"], task_scoring()) == {
        "exact_match": 1.0, "format_followed": 1.0, "exact_match_rule_parsed": 1.0,
        "exact_match_official": {"doc_id": ok["doc_id"], "folder": folder, "score": 1.0}, "audio_missing": 0.0,
    }
    assert utils.process_foundation(ok, ["I think so"], task_scoring())["exact_match_official"]["score"] is None  # left out
    assert utils.process_foundation(missing, [""], task_scoring()) == {
        "exact_match": 0.0, "format_followed": 0.0, "exact_match_rule_parsed": 0.0,
        "exact_match_official": {"doc_id": missing["doc_id"], "folder": folder, "score": None}, "audio_missing": 1.0,
    }
    assert "gpt_align" in utils.process_foundation(ok, ["B"], task_scoring(judged=True))  # with a judge, the item goes to it
