"""VocalBench's multi_round and robust sets and its Overall (issue 55): the dialogue so far reaching the model as text
turns before the question's clip, the judge's messages as utils/qwenmax_eval.py builds them, robust's documents as
its lists pair them, and its score against utils/read_score_robust.py and read_score_robust_clean.py restated, on the
same judge readings; the Overall against utils/gen_score.sh's own awk and bc."""

from __future__ import annotations

import json

import pytest
from conftest import judge_of
from test_vocalbench import _metadata

from lm_eval_audio.audio.markers import decode_conversation
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.vocalbench import data, judges, scoring, utils

CONTEXT = [{"from": "user", "value": "I have two cats."}, {"from": "assistant", "value": "That is two pets."},
           {"from": "user", "value": "And a dog."}, {"from": "assistant", "value": "Three pets, then."}]


def _qwenmax_multi_round(question, pred, reference, category) -> str:
    """qwenmax_eval.py ``qwenmax_infer_instance``'s multi_round user message, restated."""
    context = ""
    for turn in category:
        if turn["from"] == "user":
            context = context + f"User: {turn['value']}\n"
        elif turn["from"] == "assistant":
            context = context + f"Model: {turn['value']}\n"
    return f"Context:\n {context}\n\n  Question: {question}\n\n  Standard Answer: {reference}\n\n  Response: {pred}"


def test_multi_rounds_context_reaches_the_model_as_text_turns_before_the_questions_clip():
    docs = data.load_docs("multi_round", {}, True, notes=DataNotes())
    assert [len(d["context"]) for d in docs] == [2, 4]
    before, turns = decode_conversation(utils.doc_to_text(docs[1]))
    assert turns == ["<audio>"] and len(docs[1]["audio"]) == 1
    assert before == [{"role": t["from"], "content": t["value"]} for t in docs[1]["context"]]


def test_multi_rounds_judge_message_is_the_scripts():
    item = {"question": "How many pets?", "answer": "Three.", "context": CONTEXT}
    system, user = judges.messages_for("multi_round", item, "You have three.")
    assert system["content"] == (judges.PROMPTS / "multi_round.txt").read_text()
    assert user["content"] == _qwenmax_multi_round("How many pets?", "You have three.", "Three.", CONTEXT)


def test_a_dialogue_context_out_of_turn_is_refused_before_the_run(tmp_path):
    items = [{"Qid": f"multi_round-00{i}", "Audio": "multi_round/000.wav", "Question": "q", "Answer": "a",
              "Context": context} for i, context in enumerate((CONTEXT, CONTEXT[1:], "User: hi", []))]
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "multi_round.json").write_text(json.dumps(items), encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("multi_round", {"vocalbench_data_dir": str(tmp_path)}, False, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["multi_round-000"]
    assert json.dumps(notes.__dict__, default=str).count("Context is not a list of turns") == 3


def test_robusts_documents_are_the_six_conditions_and_the_clean_single_round_answers(tmp_path):
    docs = data.load_docs("robust", {}, True, notes=DataNotes())
    assert [(d["uniq_id"], d["condition"], d["judged_as"]) for d in docs] == [
        ("single_round-000", "clean", "single_round"),
        *[(f"{c}-000", c, "robust") for c in data.ROBUST_CONDITIONS]]  # robust.json's snr_20 item: not scored
    assert docs[1]["audio"][0].endswith("audio/robust/background_noise/snr_-5/000.wav")
    # a robust item is asked its clean question, found by its number in robust_clean.json, as qwenmax_eval.py
    sample = data.DATA.sample / "json"
    robust = json.loads((sample / "robust.json").read_text())
    clean = json.loads((sample / "robust_clean.json").read_text())
    folder = tmp_path / "vb"
    (folder / "json").mkdir(parents=True)
    for name, rows in (("robust", [{**robust[0], "Question": "a noisy restatement"},
                                   {**robust[1], "Qid": "robust-white_noise-snr_-5-007"}]),
                       ("robust_clean", clean), ("single_round", json.loads((sample / "single_round.json").read_text()))):
        (folder / "json" / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("robust", {"vocalbench_data_dir": str(folder)}, False, notes=notes)
    assert [d["question"] for d in docs][1:] == [clean[0]["Question"]]
    assert "robust_clean.json has no item '007'" in json.dumps(notes.__dict__, default=str)


def _read_score_robust(result_robust: list[dict], clean_score: float) -> float:
    """utils/read_score_robust.py ``gen_score(..., only_score=True)`` restated."""
    from collections import defaultdict

    set_scores = defaultdict(lambda: {"s2t": [], "s2s": []})
    for item in result_robust:
        parts = item["Qid"].rsplit("-", 1)
        set_scores[parts[0]]["s2t"].append(item["s2t_score"])
        set_scores[parts[0]]["s2s"].append(item["s2s_score"])
    eval_sets = ["robust-background_noise-snr_-5", "robust-white_noise-snr_-5", "robust-reverberation-rt60_30",
                 "robust-packet_loss-dropping_70", "robust-farfield-filter_400hz", "robust-distortion-clipping_0.0001"]
    score = 0
    for set_name, scores in set_scores.items():
        if set_name in eval_sets:
            avg_s2s = sum(scores["s2s"]) / len(scores["s2s"]) if scores["s2s"] else 0
            score = score + min(1, avg_s2s / clean_score) * 2.5
    return score


def _read_score_robust_clean(robust_clean: list[dict], single_round: list[dict], result: list[dict]) -> float:
    """utils/read_score_robust_clean.py restated: single_round's items answering robust_clean's questions, their
    results' mean s2s_score."""
    answers = {item["Answer"] for item in robust_clean}
    qids = [item["Qid"] for item in single_round if item["Answer"] in answers]
    scores = [item["s2s_score"] for item in result if item["Qid"] in qids and "s2s_score" in item]
    return sum(scores) / len(scores) if scores else 0.0


def test_robustness_is_read_score_robusts_on_the_same_readings(tmp_path, monkeypatch):
    from scripted_judge import ScriptedJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    # per condition, the readings its answers get; a condition above the clean mean is capped at 1
    readings = {"clean": [4, 3, 4], "robust-background_noise-snr_-5": [2, 3],
                "robust-white_noise-snr_-5": [5, 5], "robust-reverberation-rt60_30": [1, 1],
                "robust-packet_loss-dropping_70": [3, 4], "robust-farfield-filter_400hz": [4, 2],
                "robust-distortion-clipping_0.0001": [3, 3]}
    items, rows = [], {"robust": [], "single_round": [], "robust_clean": []}
    for condition, values in readings.items():
        for n, value in enumerate(values):
            qid = f"single_round-{n:03d}" if condition == "clean" else f"{condition}-{n:03d}"
            items.append({"doc_id": len(items), "uniq_id": qid, "set": "robust", "question": f"q{n}", "answer": "",
                          "category": "", "question_emotion": "", "response": f"{condition} says {value}",
                          "text": "", "condition": condition,
                          "judged_as": "single_round" if condition == "clean" else "robust"})
            if condition == "clean":
                rows["single_round"].append({"Qid": qid, "s2t_score": 0, "s2s_score": value})
            else:
                rows["robust"].append({"Qid": qid, "s2t_score": 0, "s2s_score": value})
    with ScriptedJudge(reply=lambda prompt: f"Fine. Score: [{prompt.rsplit(' says ', 1)[1]}]",
                       models=("qwen-max-2025-01-25",)) as judge:
        metadata = _metadata("vocalbench_robust", judge, tmp_path)
        task = TaskScoring("vocalbench_robust", metadata, judge=judge_of("vocalbench_robust", metadata))
        ours = scoring.vocalbench_robustness(items, task)
        asked = list(judge.requests)
        missing = [i for i in items if i["condition"] != "robust-farfield-filter_400hz"]
        assert scoring.vocalbench_robustness(missing, task) != scoring.vocalbench_robustness(missing, task)  # NaN
    clean_meta = [{"Qid": "robust-000", "Answer": "A"}, {"Qid": "robust-001", "Answer": "B"},
                  {"Qid": "robust-002", "Answer": "C"}]
    single_meta = [{"Qid": f"single_round-{n:03d}", "Answer": a} for n, a in enumerate("ABC")] + \
        [{"Qid": "single_round-003", "Answer": "D"}]
    clean = _read_score_robust_clean(clean_meta, single_meta, rows["single_round"])
    assert clean == pytest.approx(11 / 3)
    assert ours == pytest.approx(_read_score_robust(rows["robust"], clean), abs=1e-12)
    assert ours == pytest.approx(2.5 * (2.5 / clean + 1 + 1 / clean + 3.5 / clean + 3 / clean + 3 / clean))
    assert task.item_scores["vocalbench_robustness"][0] == 4.0
    # the clean answers are judged with single_round's prompt, the others with robust's (the same text at 5e9cce06)
    assert len(asked) == len(items) and {m["messages"][0]["content"] for m in asked} == {
        (judges.PROMPTS / "single_round.txt").read_text()}
    assert scoring.judge_unread(items, task) == 0 and scoring.judge_failures(items, task) == 0
    monkeypatch.setattr(judges, "system_prompt", lambda eval_set, category="": eval_set)
    assert [judges.messages_for("robust", i, "")[0]["content"] for i in items[2:4]] == ["single_round", "robust"]
    assert "no reading of robust-farfield-filter_400hz" in task.null_reasons["vocalbench_robustness"]


def _gen_score_sh(printed: dict[str, str]) -> float:
    """utils/gen_score.sh's last lines, run as it runs them: knowledge through its awk (``printf "%.2f", $0 * 100``
    of the printed rate), the clarity WER through its awk bands, then its ``bc`` sum at ``scale=3``."""
    import subprocess

    awk = lambda program, value: subprocess.run(["awk", program], input=value + "\n", capture_output=True,  # noqa: E731
                                                 text=True, check=True).stdout.strip()
    knowledge = awk('{printf "%.2f", $0 * 100}', printed["knowledge"])
    wer_score = awk("""{ wer = $1; if (wer < 2) score = 10; else if (wer < 4) score = 9; else if (wer < 6) score = 8;
        else if (wer < 8) score = 7; else if (wer < 10) score = 6; else if (wer < 12) score = 5;
        else if (wer < 14) score = 4; else if (wer < 16) score = 3; else if (wer < 18) score = 2; else score = 1;
        print score; }""", printed["wer"])
    p = {**printed, "knowledge": knowledge, "wer_score": wer_score}
    sum_ = (f"scale=3; ({p['knowledge']}/10 + {p['reasoning']}*2 + {p['creativity']}*2 + {p['wer_score']} + "
            f"{p['utmos']} + {p['single_round']}*2 + {p['instruction']}/10 + {p['emotion_acoustic']} + "
            f"{p['emotion_semantic']} +{p['safety']}*10 + {p['robustness']})")
    return float(subprocess.run(["bc"], input=sum_ + "\n", capture_output=True, text=True, check=True).stdout)


@pytest.mark.parametrize("wer, instruction_rate", [(3.517241, 456 / 1000 * 100), (18.0, 7 / 13 * 100),
                                                    (1.999999, 100.0)])
def test_the_overall_is_gen_score_shs_sum_of_the_sets_scores(wer, instruction_rate):
    knowledge, reasoning, creativity = 749 / 2000, 3.4567891234, 2.9125
    utmos, single_round, emotion_acoustic, emotion_semantic = 3.98765432, 3.365, 3.0123456789, 3.2475
    safety, robustness, multi_round = 0.8525, 13.456789123, 2.5
    metrics = {"vocalbench_knowledge": {"vocalbench_acc,none": 100 * knowledge},
               "vocalbench_reasoning": {"vocalbench_rating,none": reasoning},
               "vocalbench_creativity": {"vocalbench_rating,none": creativity},
               "vocalbench_single_round": {"vocalbench_rating,none": single_round, "utmos,none": utmos,
                                           "vocalbench_clarity,none": wer},
               "vocalbench_multi_round": {"vocalbench_rating,none": multi_round},
               "vocalbench_instruction_following": {"vocalbench_following,none": instruction_rate},
               "vocalbench_emotion": {"vocalbench_rating,none": emotion_semantic, "emotion,none": emotion_acoustic},
               "vocalbench_safety": {"vocalbench_refusal,none": safety},
               "vocalbench_robust": {"vocalbench_robustness,none": robustness}}
    printed = {"knowledge": repr(knowledge), "reasoning": repr(reasoning), "creativity": repr(creativity),
               "wer": f"{wer:.6f}", "utmos": repr(utmos), "single_round": repr(single_round),
               "instruction": repr(instruction_rate), "emotion_acoustic": repr(emotion_acoustic),
               "emotion_semantic": repr(emotion_semantic), "safety": repr(safety), "robustness": repr(robustness)}
    (value,) = scoring.overall("vocalbench", metrics).values()
    assert value == _gen_score_sh(printed)  # to the digit: the same decimal sum
    # the vocalbench group's results entry gets it (lm-eval's own group mean has nothing to average here)
    from types import SimpleNamespace

    from lm_eval_audio.harness.task_building import _with_group_score

    members = [SimpleNamespace(task_name=name) for name in metrics]
    assert _with_group_score("vocalbench", members, metrics, {"alias": "vocalbench"}) == {
        "alias": "vocalbench", "vocalbench_overall,none": value}
    del metrics["vocalbench_robust"]
    assert scoring.overall("vocalbench", metrics) == {}  # a set's score missing: no Overall (and a warning)
    assert scoring.overall("urobench", {"urobench_basic_repeat": {}}) == {}
