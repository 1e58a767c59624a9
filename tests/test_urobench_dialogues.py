"""URO-Bench's dialogue subsets (MtBenchEval-en: mode multi; SpeakerAware-en, -zh: mode sa): their prompts as the
official file holds them, each dialogue judged as metrics/mark_gpt.py judges it (restated here: get_prompt and the
eval loop, Ruiqi-Yan/URO-Bench@9e74bc04), and their lines read in the official layout."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import judge_of, yaml_metadata

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.spoken_answer import SpokenAnswer
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.tasks.urobench import data, judges, prompts, scoring

# sha256 of each prompt as mark_gpt.py builds it (the literal, .strip()-ed), computed from that file
OFFICIAL_PROMPT_SHA256 = {
    "MULTI2": "6a4af6ae602d6b685d608e2d60d94a9870ef2b86f856ec127ee56bfbac903e29",
    "MULTI3": "01bb5fae606f33db86460498c46108b0c6184738da768a7436ce92b4b8486ab4",
    "MULTI4": "8ee376ede6c120b93afe7fbe7f6de7de38c659da2a53ee1b46ea001cd3a5a015",
    "MULTI5": "5207141550cd2325ca3edb2c5401635700c016827f6ddc138cb2aa6a046d1e91",
    "SA": "765704e9e5b2e767284fcc1b3d3fb259a5259fac4c7236581df485b7ec4327ca",
}


def _official_prompt(mode: str, item: dict) -> str:
    """mark_gpt.py:461-554 ``get_prompt`` for multi and sa: the prompt of the item's number of rounds, each
    ``{questionK}``, then ``{answerK}``, then ``{referenceK}`` replaced by ``item["question<K-1>"]`` and so on."""
    if mode == "sa":
        prompt, rounds = prompts.SA, 3
    else:
        prompt, rounds = {2: prompts.MULTI2, 3: prompts.MULTI3, 4: prompts.MULTI4, 5: prompts.MULTI5}[item["round"]], \
            item["round"]
    for name in ("question", "answer", "reference"):
        for k in range(1, rounds + 1):
            prompt = prompt.replace("{%s%d}" % (name, k), item["%s%d" % (name, k - 1)])
    return prompt


def _official_item(line: dict) -> dict:
    """mark_gpt.py:691-702: five slots of every field, "" past the dialogue's rounds; ``round`` is num_round."""
    question, answer, reference = [""] * 5, [""] * 5, [""] * 5
    for j in range(line["num_round"]):
        question[j] = line["dialogue"][j]["source_text"]
        answer[j] = line["dialogue"][j]["output_text"]
        reference[j] = line["dialogue"][j]["target_text"]
    tmp = {"round": line["num_round"]}
    for j in range(5):
        tmp["question" + str(j)], tmp["answer" + str(j)], tmp["reference" + str(j)] = question[j], answer[j], reference[j]
    return tmp


def test_the_dialogue_prompts_are_the_official_strings():
    for name, digest in OFFICIAL_PROMPT_SHA256.items():
        assert hashlib.sha256(getattr(prompts, name).encode()).hexdigest() == digest, name


def _spoken(transcript: str) -> SpokenAnswer:
    return SpokenAnswer(transcript, transcript.upper(), {"path": "a.wav", "sample_rate": 16000, "seconds": 1.0,
                                                         "sha256": "0"}, "asr")


def test_each_dialogue_is_judged_once_with_every_rounds_transcript_as_mark_gpt_judges_it(tmp_path):
    from scripted_judge import ScriptedJudge

    docs = data.load_docs(data.SUBSETS["MtBenchEval-en"], {}, True, notes=DataNotes())
    assert [len(d["turns"]) for d in docs] == [2, 3]
    answers = [[_spoken("a banana"), _spoken("peel it first")],
               [_spoken("how nice"), failed_requests.FailedResponse("the server broke"),
                failed_requests.FailedResponse("round 3 was not asked")]]
    # what asr_for_eval.py writes for the same answers: the transcripts, " " where a round's wav is missing
    heard = [["a banana", "peel it first"], ["how nice", " ", " "]]
    sample_file = data.DATA.sample / "pro" / "MtBenchEval-en" / "test.jsonl"
    lines = [json.loads(x) for x in sample_file.read_text().splitlines()]
    for line, transcripts in zip(lines, heard):
        for turn, transcript in zip(line["dialogue"], transcripts):
            turn["output_text"] = transcript
    expected = [_official_prompt("multi", _official_item(line)) for line in lines]
    ratings = {0: ["4", "5", "4"], 1: ["2", "3", "1"]}
    replies = {expected[k]: iter(v) for k, v in ratings.items()}

    with ScriptedJudge(reply=lambda prompt: next(replies[prompt])) as judge:
        task_name = "urobench_pro_mtbencheval_en"
        metadata = {**yaml_metadata(data.DATA.folder / f"{task_name}.yaml"), "judge_base_url": judge.base_url,
                    "judge_cache": str(tmp_path / "j.sqlite"), "judge_concurrency": 1}
        task = TaskScoring(task_name, metadata, judge=judge_of(task_name, metadata))
        items = [scoring.process_results(doc, [rounds], task)[scoring.SCORE] for doc, rounds in zip(docs, answers)]
        score = scoring.urobench_score(items, task)
        assert scoring.judge_failures(items, task) == 0
        asked = list(judge.requests)
    # sum(mean of the three ints) * 20 / N (mark_gpt.py:703-705)
    assert score == pytest.approx((13 / 3 + 6 / 3) * 20 / 2)
    assert len(asked) == 6 and {r["messages"][-1]["content"] for r in asked} == set(expected)
    assert all(r["messages"][0] == {"role": "system", "content": "You are a helpful assistant."} for r in asked)


def test_speakeraware_fills_prompt_sa_and_a_text_run_is_judged_on_the_text(tmp_path):
    docs = data.load_docs(data.SUBSETS["SpeakerAware-en"], {}, True, notes=DataNotes())
    (doc,) = docs
    line = json.loads((data.DATA.sample / "pro" / "SpeakerAware-en" / "test.jsonl").read_text())
    texts = ["Hello Tom.", "Hello Anna.", "You like tea."]
    for turn, text in zip(line["dialogue"], texts):
        turn["output_text"] = text
    task = type("Task", (), {"name": "urobench_pro_speakeraware_en", "judged": True})()
    item = scoring.process_results(doc, [list(texts)], task)[scoring.SCORE]  # a run answered in text: --non_asr
    assert judges.messages_for("sa", item)[1]["content"] == _official_prompt("sa", _official_item(line))
    assert [t["question"] for t in doc["turns"]] == [t["source_text"] for t in line["dialogue"]]


@pytest.mark.parametrize("rounds", [2, 3, 4, 5])
def test_every_multi_prompt_is_filled_as_get_prompt_fills_it(rounds):
    line = {"num_round": rounds, "dialogue": [{"source_text": f"q{k}", "output_text": f"a{k}", "target_text": f"r{k}"}
                                              for k in range(rounds)]}
    official = _official_item(line)
    ours = {"rounds": rounds, **{k: v for k, v in official.items() if k != "round"}}
    filled = judges.messages_for("multi", ours)[1]["content"]
    assert filled == _official_prompt("multi", official) and "{" not in filled.split("### [Round_1]")[1]


def test_dialogue_lines_are_read_in_the_official_layout_and_bad_ones_are_left_out(tmp_path):
    folder = tmp_path / "URO-Bench-data" / "pro" / "SpeakerAware-zh"
    (folder / "audio").mkdir(parents=True)
    clip = (data.DATA.sample / "pro" / "SpeakerAware-en" / "audio" / "0000_0.wav").read_bytes()
    for k in range(3):
        (folder / "audio" / f"{k}.wav").write_bytes(clip)

    def line(n_rounds=3, num_round=None, **changed):
        turns = [{"round": k, "source_wav": f"audio/{k}.wav", "source_text": f"问题{k}", "target_text": f"回答{k}"}
                 for k in range(n_rounds)]
        turns[-1].update(changed)
        return {"id": 0, "num_round": n_rounds if num_round is None else num_round, "dialogue": turns}

    rows = [line(), line(num_round=2), line(n_rounds=2), line(target_text=["a", "b"]),
            line(source_wav="../../x.wav"), line(source_wav="audio/absent.wav"), {"dialogue": []}]
    (folder / "test.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                                       encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs(data.SUBSETS["SpeakerAware-zh"], {"urobench_data_dir": str(tmp_path / "URO-Bench-data")},
                          False, notes=notes)
    assert [(d["uniq_id"], len(d["audio"]), bool(d["audio_problem"])) for d in docs] == \
        [("SpeakerAware-zh/0000", 3, False), ("SpeakerAware-zh/0005", 3, True)]
    assert docs[0]["turns"][2] == {"question": "问题2", "reference": "回答2"} and docs[1]["audio_problem"].startswith(
        "round 3:")
    said = json.dumps(notes.__dict__, default=str, ensure_ascii=False)
    for reason in ("num_round 2 is not the 3 round(s)", "has 2 round(s), and mark_gpt.py's sa prompts take 3",
                   "round 3's target_text is not a string", "leads outside", "lacks dialogue"):
        assert reason in said, reason
