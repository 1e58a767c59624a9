"""AIR-Bench's aggregates through lm-eval's own group machinery: the tasks and groups are
built from our YAML by TaskManager, and lm-eval's ``_process_results`` aggregates them."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from conftest import foundation_item, judge_of, write_snapshot
from scripted_judge import ScriptedJudge

from lm_eval_audio.tasks.airbench import data as airbench

# Paper Table 5 (per-task foundation accuracy, %), as in OFA-Sys/AIR-Bench README.md.
TABLE5 = {
    "Qwen-Audio": {
        "Speech_Grounding": 56.1, "Spoken_Language_Identification": 92.8, "Speaker_Gender_Recognition": 67.2,
        "Speaker_Emotion_Recontion": 43.2, "Speaker_Age_Prediction": 36.0, "Speech_Entity_Reconition": 71.2,
        "Speaker_Intent_Classification": 77.8, "Speaker_Number_Verification": 35.3, "Synthesized_Voice_Detection": 48.3,
        "Audio_Grounding": 23.9, "vocal_sound_classification": 84.9, "Acoustic_Scene_Classification": 67.5,
        "Sound_AQA": 64.6, "Music_Instruments_Classfication": 59.1, "Music_Genre_Recognition": 71.2,
        "Music_Midi_Pitch_Analysis": 28.6, "Music_Midi_Velocity_Analysis": 25.4, "Music_AQA": 48.2,
        "Music_Mood_Recognition": 36.1,
    },
    "Qwen-Audio-Turbo": {
        "Speech_Grounding": 45.4, "Spoken_Language_Identification": 95.9, "Speaker_Gender_Recognition": 82.5,
        "Speaker_Emotion_Recontion": 60.0, "Speaker_Age_Prediction": 58.8, "Speech_Entity_Reconition": 48.1,
        "Speaker_Intent_Classification": 56.4, "Speaker_Number_Verification": 54.3, "Synthesized_Voice_Detection": 69.3,
        "Audio_Grounding": 41.6, "vocal_sound_classification": 78.1, "Acoustic_Scene_Classification": 61.3,
        "Sound_AQA": 62.8, "Music_Instruments_Classfication": 59.6, "Music_Genre_Recognition": 77.1,
        "Music_Midi_Pitch_Analysis": 30.1, "Music_Midi_Velocity_Analysis": 25.1, "Music_AQA": 62.5,
        "Music_Mood_Recognition": 39.0,
    },
}
# Paper Table 3, foundation: speech, sound, music, average.
TABLE3 = {"Qwen-Audio": (58.7, 60.2, 44.8, 54.5), "Qwen-Audio-Turbo": (63.4, 61.0, 48.9, 57.8)}


def _load(names, root):
    from lm_eval.tasks import TaskManager

    loaded = TaskManager(metadata={"airbench_data_dir": str(root)}).load(names)
    return loaded["tasks"], loaded["groups"]


def _aggregate(tasks, groups, raw):
    from lm_eval.evaluator_utils import _process_results

    acc = {name: {"task": task, "raw_metrics": raw[name], "logged_samples": []} for name, task in tasks.items()}
    return _process_results(acc, groups, bootstrap_iters=0).metrics


@pytest.fixture(scope="module")
def foundation(tmp_path_factory):
    names = [n for names in airbench.FOUNDATION_CATEGORIES.values() for n in names]
    root = write_snapshot(tmp_path_factory.mktemp("airbench"), [foundation_item(i, n) for i, n in enumerate(names)])
    return _load(["airbench_foundation"], root)


@pytest.mark.parametrize("model", sorted(TABLE5))
def test_table3_categories_from_table5_tasks(foundation, model):
    tasks, groups = foundation
    assert len(tasks) == 19
    raw = {}
    for name, task in tasks.items():
        (task_name,) = task.config.dataset_kwargs["task_names"]
        correct = round(TABLE5[model][task_name] * 10)  # 1000 items: the accuracy to 0.1 %
        raw[name] = defaultdict(list, {("exact_match", "none"): [1.0] * correct + [0.0] * (1000 - correct)})
    metrics = _aggregate(tasks, groups, raw)
    got = tuple(
        round(100 * metrics[g]["exact_match,none"], 1)
        for g in ("airbench_foundation_speech", "airbench_foundation_sound", "airbench_foundation_music",
                  "airbench_foundation")
    )
    assert got == TABLE3[model]
    # The average is of the three categories; the 19 tasks' plain mean would not match the paper.
    plain = sum(TABLE5[model].values()) / 19
    assert round(plain, 1) != TABLE3[model][3]


def _chat_scores(tmp_path, monkeypatch, faults=None):
    """The chat group's metrics over a snapshot whose scripted judge gives both assistants the score written
    in the question, so every number is known; ``faults`` go to the judge endpoint."""
    # Per chat task: (items, score).
    plan = {
        "speech_QA": (3, 2), "speech_dialogue_QA": (1, 6), "sound_QA": (1, 4), "sound_generation_QA": (1, 4),
        "music_QA": (2, 5), "music_generation_analysis_QA": (1, 5), "speech_and_sound_QA": (3, 1),
        "speech_and_music_QA": (1, 9),
    }
    items, uid = [], 0
    for task_name, (n, score) in plan.items():
        for _ in range(n):
            uid += 1
            items.append({"path": f"c{uid}.wav", "question": f"score={score} (item {uid})", "answer_gt": "ref",
                          "task_name": task_name, "dataset_name": "ds", "meta_info": "a sound", "uniq_id": uid})
    root = write_snapshot(tmp_path, chat=items)
    monkeypatch.setenv("LM_EVAL_AUDIO_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("LM_EVAL_AUDIO_JUDGE_RETRY_BASE_SECONDS", "0.01")
    tasks, groups = _load(["airbench_chat"], root)
    reply = lambda p: "{0} {0}".format(re.search(r"score=(\d)", p).group(1))  # noqa: E731
    with ScriptedJudge(reply=reply, faults=faults) as judge:
        monkeypatch.setenv("OPENAI_BASE_URL", judge.base_url)
        raw = {}
        for name, task in tasks.items():
            task.start_scoring(judge_of(name, task.config.metadata), set())  # as the run's evaluate does
            raw[name] = defaultdict(list)
            for doc in task.test_docs():
                for metric, value in task.process_results(doc, ["an answer"]).items():
                    raw[name][(metric, "none")].append(value)
        metrics = _aggregate(tasks, groups, raw)
    return metrics, judge, items


def test_chat_categories_and_average_follow_cal_score(tmp_path, monkeypatch):
    metrics, judge, items = _chat_scores(tmp_path, monkeypatch)
    score = {g: metrics[g]["score,none"] for g in metrics if g.startswith("airbench_chat")}
    assert score["airbench_chat_speech"] == pytest.approx((3 * 2 + 6) / 4)  # item mean over both task names
    assert score["airbench_chat_sound"] == pytest.approx(4)
    assert score["airbench_chat_music"] == pytest.approx(5)
    assert score["airbench_chat_mixed"] == pytest.approx((1 + 9) / 2)  # mean of the two task names
    assert score["airbench_chat"] == pytest.approx((3 + 4 + 5 + 5) / 4)
    assert metrics["airbench_chat"]["win_rate,none"] == 0  # ties are not wins (cal_score.py: strict >)
    assert len(judge.requests) == 2 * len(items)  # both positions for every item


def test_a_judge_endpoint_that_fails_every_seventh_call_changes_no_number(tmp_path, monkeypatch):
    """429, 500, a proxy's HTML page with status 200 and a 200 without ``choices``, in turn on every 7th call:
    each is retried, every item is judged, and the scores are the fault-free run's."""
    kinds = [(429, {"Retry-After": "0"}), (500, {}), ("html",), ("no_choices",)]
    faults = [kinds[(n // 7) % len(kinds)] if n % 7 == 6 else None for n in range(200)]
    clean, _, items = _chat_scores(tmp_path / "clean", monkeypatch)
    faulty, judge, _ = _chat_scores(tmp_path / "faulty", monkeypatch, faults)
    injected = sum(f is not None for f in faults[: len(judge.requests)])
    assert injected >= 4 and len(judge.requests) == 2 * len(items) + injected  # each fault cost one retry
    assert judge.completed == 2 * len(items)
    chat = {g: m for g, m in faulty.items() if g.startswith("airbench_chat")}
    assert chat == {g: m for g, m in clean.items() if g.startswith("airbench_chat")}
    assert all(not m.get("judge_failures,none") for m in chat.values())


def test_gpt_align_official_leaves_out_what_the_judge_could_not_map(tmp_path, monkeypatch):
    """Six items whose right option is A, in two folders: the judge maps three answers to A, one to B, and two
    to no letter (after its re-asks). gpt_align counts those two wrong; the official scripts leave them out, and
    score_foundation.py prints each folder's accuracy."""
    from lm_eval_audio.storage import run_state

    run_state.fresh()
    answers = {0: "A.", 1: "A.", 2: "B.", 3: "unsure", 4: "unsure", 5: "A."}
    items = [foundation_item(i, "Music_AQA", dataset_name="ds1" if i < 3 else "ds2") for i in answers]
    root = write_snapshot(tmp_path, items)
    monkeypatch.setenv("LM_EVAL_AUDIO_JUDGE_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("LM_EVAL_AUDIO_JUDGE_RETRY_BASE_SECONDS", "0.01")
    reply = lambda p: "A" if '"A."' in p else "B" if '"B."' in p else "no idea"  # noqa: E731
    with ScriptedJudge(reply=reply) as judge:
        monkeypatch.setenv("OPENAI_BASE_URL", judge.base_url)
        tasks, groups = _load(["airbench_foundation_music_aqa"], root)
        (name, task), = tasks.items()
        task.start_scoring(judge_of(name, task.config.metadata), set())  # as the run's evaluate does
        raw = {name: defaultdict(list)}
        for doc in task.test_docs():
            for metric, value in task.process_results(doc, [answers[int(doc["uniq_id"])]]).items():
                raw[name][(metric, "none")].append(value)
        metrics = _aggregate(tasks, groups, raw)[name]
    assert metrics["gpt_align,none"] == pytest.approx(3 / 6)
    assert metrics["gpt_align_official,none"] == pytest.approx(3 / 4)
    assert metrics["exact_match_official,none"] == pytest.approx(3 / 4)  # "unsure" has no letter for the rule either
    assert metrics["gpt_align_judge_failures,none"] == 2
    folders = task.scoring().data_notes["airbench_folder_accuracy"][name]
    assert folders["gpt_align"] == {"Music_AQA_ds1": {"items": 3, "scored": 3, "accuracy": pytest.approx(2 / 3)},
                                    "Music_AQA_ds2": {"items": 3, "scored": 3, "accuracy": pytest.approx(1 / 3)}}
    for official in ("gpt_align_official", "exact_match_official"):
        assert folders[official] == {"Music_AQA_ds1": {"items": 3, "scored": 3, "accuracy": pytest.approx(2 / 3)},
                                     "Music_AQA_ds2": {"items": 3, "scored": 1, "accuracy": 1.0}}
    run_state.fresh()


def test_a_partial_snapshot_marks_its_groups_where_the_number_is(tmp_path):
    """4 of the 19 foundation tasks in the snapshot: the groups' rows say how many tasks they average."""
    from lm_eval_audio.storage import run_state

    run_state.fresh()
    present = ["Speech_Grounding", "Speaker_Gender_Recognition", "Sound_AQA", "Music_AQA"]
    root = write_snapshot(tmp_path, [foundation_item(i, n) for i, n in enumerate(present)])
    tasks, groups = _load(["airbench_foundation"], root)
    assert len(tasks) == 4
    raw = {name: defaultdict(list, {("exact_match", "none"): [1.0]}) for name in tasks}
    metrics = _aggregate(tasks, groups, raw)
    top = metrics["airbench_foundation"]
    assert top["alias"] == "airbench_foundation (PARTIAL: 4 of 19 tasks)"
    assert (top["tasks_present,none"], top["tasks_listed,none"]) == (4, 19)
    speech = metrics["airbench_foundation_speech"]
    assert "(PARTIAL: 2 of 9 tasks)" in speech["alias"] and speech["tasks_present,none"] == 2
    assert metrics["airbench_foundation_sound"]["tasks_listed,none"] == 4
    run_state.fresh()


def test_a_complete_snapshot_marks_nothing(foundation):
    from lm_eval_audio.storage import run_state

    tasks, groups = foundation
    raw = {name: defaultdict(list, {("exact_match", "none"): [1.0]}) for name in tasks}
    metrics = _aggregate(tasks, groups, raw)
    assert metrics["airbench_foundation"]["alias"] == "airbench_foundation"
    assert "tasks_present,none" not in metrics["airbench_foundation"]
    assert not run_state.current().data_notes.get("group_absent_tasks")
