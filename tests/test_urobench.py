"""URO-Bench (issue 55): its judge prompts as the official file holds them, its readings and scores against its
scripts' on the same transcripts and judge replies, its data in its layout (local and from the Hub's archive), and its
sample answered in speech offline."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace
import zipfile
from pathlib import Path

import pytest
from conftest import judge_of, results_json, run_cli, stand_in_hub, yaml_metadata

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.urobench import data, judges, prompts, scoring

# sha256 of each prompt as Ruiqi-Yan/URO-Bench@9e74bc04 metrics/mark_gpt.py builds it (the literal, .strip()-ed),
# computed from that file
OFFICIAL_PROMPT_SHA256 = {
    "OPEN": "97c6bf5c15b11f10349b5c63e7e8cd7bf046152f121765c6ab6b6f444613b56b",
    "SEMI_OPEN": "6ddee56a331dbd3bcee2f9cbe14bc6d385058d99906aa88af29d28fb4692cb7d",
    "QA": "462c70ce4fc12249085b7e985e84cc71c31f8eeb224b704f33a515ab7cc9d86c",
    "GS": "21e11b82264b2f4e709b7b31c037cb619cce8b5b51a817c672379df9e1a853b8",
    "UE": "e08e928d473eae5b2497f45a00753c60c3a27568a87d5817833640e1e2e94115",
    "SF": "ce512d299f04659ef1a5b9a86cc20ce4593c38bb7018161330dbff2f5b9442e4",
    "ML": "162bcb1252aafafee4333f6acd3ec7f3de048dfc2e0c9501824413a3e04520ae",
}

# (language, transcript, reference) and what URO-Bench's own metrics/mark_wer.py ``get_wer`` returns on each, run
# with its pinned jiwer 3.0.5 and its normalizers/ (Ruiqi-Yan/URO-Bench@9e74bc04), 2026-11-29
REPEAT_PAIRS = [
    ("en", "The early bird catches the worm.", "The early bird catches the worm.", 0.0),
    ("en", " the early bird catches the worm", "The early bird catches the worm.", 0.0),
    ("en", "The early bird catches worms", "The early bird catches the worm.", 0.4),
    ("en", "Seven swans swam across the lake", "Seven swans swam across the lake.", 0.0),
    ("en", "7 swans swam across the lake.", "Seven swans swam across the lake.", 0.0),
    ("en", "It's a colour I've never seen.", "It is a color I have never seen.", 0.0),
    ("en", "Knowledge is power, and power is knowledge.", "Knowledge is power.", 0.5714285714285714),
    ("en", "Power.", "Knowledge is power.", 2.0),  # the transcript is jiwer's reference: 2 insertions over 1 word
    ("en", "", "Knowledge is power.", 1.0),  # jiwer 3.0.5 raises on an empty reference; the script scores 1
    ("en", " ", "Knowledge is power.", 1.0),
    ("en", "Mr. Smith paid $20 for it.", "Mister Smith paid twenty dollars for it.", 0.0),
    ("en", "Hmm, uh, the early bird catches the worm.", "The early bird catches the worm.", 0.0),
    ("zh", "我有3个苹果。", "我有三个苹果", 0.0),
    ("zh", "今天天气很好，我们去公园吧！", "今天天气很好我们去公园吧", 0.0),
    ("zh", "今天天气很好", "今天天气很好，我们去公园吧。", 1.0),
    ("zh", "", "今天天气很好", 1.0),
    ("zh", "“你好”，他说。", "你好，他说：", 0.0),
    ("zh", "Hello 你好  world", "hello 你好 world", 0.0),
    ("zh", "第2024届", "第二零二四届", 0.25),
]


def test_the_judge_prompts_are_the_official_strings():
    for name, digest in OFFICIAL_PROMPT_SHA256.items():
        assert hashlib.sha256(getattr(prompts, name).encode()).hexdigest() == digest, name
    assert set(judges.TEMPLATES) == {"open", "semi-open", "qa", "gs", "ue", "sf", "ml"}


def test_a_prompt_is_filled_once_and_follows_the_system_message():
    item = {"question": "What is two plus two?", "response": "It is {reference}. Four.", "reference": "4"}
    system, user = judges.messages_for("qa", item)
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    assert "### [Response]\n    It is {reference}. Four." in user["content"]  # not filled again
    assert "### [Reference]\n    4\n" in user["content"] and "{question}" not in user["content"]
    style = judges.messages_for("gs", {**item, "style": "pirate"})[1]["content"]
    assert "### [Style]\n    pirate" in style
    language = judges.messages_for("ml", {**item, "requirement": "French"})[1]["content"]
    assert "### [Requirement]\n    French" in language and "[Reference]" not in language


@pytest.mark.parametrize("reply, value", [("4", 4), (" 5\n", 5), ("+3", 3), ("4.0", None), ("Score: 4", None),
                                          ("", None)])
def test_a_rating_is_read_as_int_reads_it(reply, value):
    assert judges.parse_int(reply) == value


@pytest.mark.parametrize("reply, value", [("Yes", 1), ("yes", 0), ("Yes.", 0), (" Yes", 0), ("No", 0)])
def test_a_qa_reply_counts_only_when_it_is_exactly_yes(reply, value):
    assert judges.parse_yes(reply) == value


def test_the_repeat_error_rate_is_mark_wers_on_every_pair():
    ours = [scoring.repeat_rate(language, transcript, reference) for language, transcript, reference, _ in REPEAT_PAIRS]
    assert ours == pytest.approx([expected for *_, expected in REPEAT_PAIRS], abs=1e-12)  # 0 differences


class _Task:
    """What an aggregation asks of its task, recorded."""

    name = "urobench_basic_repeat"

    def __init__(self):
        self.items, self.notes = {}, {}

    def report_item_scores(self, metric, scores):
        self.items[metric] = list(scores)

    def note_for_task(self, kind, key, value):
        self.notes[(kind, key)] = value


def test_the_repeat_score_is_evaluates_ok_rate_times_one_minus_the_ok_items_rate():
    task = _Task()
    rates = [0.0, 0.2, 0.5, 0.51, 1.0]  # three ok (at most 0.5)
    score = scoring.urobench_score([{"doc_id": i, "rate": r} for i, r in enumerate(rates)], task)
    assert score == pytest.approx(3 / 5 * (1 - 0.7 / 3) * 100)
    assert task.notes[("urobench_repeat", "urobench_score")] == pytest.approx(
        {"ok_rate": 0.6, "final_WER_for_ok_case": 0.7 / 3})
    assert scoring.urobench_score([{"doc_id": 0, "rate": 0.9}], _Task()) == 0.0  # no ok item: 0, as the script


def _mark_emotion(language, answer, reference, emotion_scores, emotion) -> float:
    """metrics/mark_emotion.py:110-150 restated: emo2num's index into FunASR's nine scores, WER transcript first."""
    emo2num = {"angry": 0, "disgusted": 1, "fearful": 2, "happy": 3, "neutral": 4, "other": 5, "sad": 6,
               "surprised": 7, "unknown": 8}
    wer = min(scoring.repeat_rate(language, answer, reference), 1)
    return emotion_scores[emo2num[emotion]] * (1 - wer) * 100


def test_genemotion_is_the_emotions_probability_times_one_minus_the_error_rate(tmp_path):
    from lm_eval_audio.metrics.spoken_answer import SpokenAnswer
    from lm_eval_audio.model_wrappers.emotion2vec import LABELS

    task = SimpleNamespace(name="urobench_pro_genemotion_en", **{k: getattr(_Task(), k) for k in ("items", "notes")})
    task.report_item_scores = lambda metric, scores: task.items.update({metric: list(scores)})
    docs = data.load_docs(data.SUBSETS["GenEmotion-en"], {}, True, notes=DataNotes())
    assert [(d["target_emotion"], d["reference"]) for d in docs] == [
        ("happy", "We won the match today."), ("sad", "The old tree fell in the storm.")]
    heard = [[0.05, 0.0, 0.0, 0.7, 0.15, 0.05, 0.05, 0.0, 0.0], [0.1, 0.0, 0.1, 0.1, 0.2, 0.0, 0.4, 0.1, 0.0]]
    transcripts = ["We won the match today", "The old tree fell in a storm"]
    answers = [SpokenAnswer(t, t, {"path": "a.wav", "sha256": "0" * 64, "seconds": 2.0},
                            quality={"emotion": dict(zip(LABELS, h))}) for t, h in zip(transcripts, heard)]
    items = [scoring.process_results(d, [a], task)[scoring.SCORE] for d, a in zip(docs, answers)]
    expected = [_mark_emotion("en", t, d["reference"], h, d["target_emotion"])
                for t, h, d in zip(transcripts, heard, docs)]
    assert expected == pytest.approx([70.0, 40 * (1 - 1 / 7)])  # "a" for "the": one of seven words
    assert scoring.urobench_score(items, task) == pytest.approx(sum(expected) / 2, abs=1e-12)
    # no spoken answer: 0 in N (the script's missing wav); an answer emotion2vec could not rate: left out
    unspoken = scoring.process_results(docs[0], [""], task)[scoring.SCORE]
    unrated = scoring.process_results(docs[1], [SpokenAnswer("x", "x", {"path": "b.wav", "sha256": "1" * 64,
                                                                        "seconds": 1.0})], task)[scoring.SCORE]
    assert unspoken["emotion"] == 0.0 and unrated["emotion"] is None
    assert scoring.urobench_score([items[0], unspoken, unrated], task) == pytest.approx(expected[0] / 2)
    assert task.items[scoring.SCORE][2] == (1, None)

    folder = tmp_path / "URO-Bench-data" / "pro" / "GenEmotion-en"
    (folder / "audio").mkdir(parents=True)
    (folder / "audio" / "0000.wav").write_bytes((data.DATA.sample / "pro" / "GenEmotion-en" / "audio" / "0000.wav")
                                                .read_bytes())
    rows = [{"source_wav": "audio/0000.wav", "source_text": "Say it gladly.", "emotion": "Happy"},
            {"source_wav": "audio/0000.wav", "source_text": "Say it proudly.", "emotion": "proud"},
            {"source_wav": "audio/0000.wav", "source_text": "Say it."}]
    (folder / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs(data.SUBSETS["GenEmotion-en"], {"urobench_data_dir": str(tmp_path / "URO-Bench-data")},
                          False, notes=notes)
    assert [d["target_emotion"] for d in docs] == ["happy"]
    said = json.dumps(notes.__dict__, default=str)
    assert "'proud' is none of emotion2vec's labels" in said and "lacks emotion" in said


def _metadata(task: str, judge, tmp_path, **more) -> dict:
    """The task YAML's metadata (its judge's settings: the paper's), with the scripted judge's endpoint."""
    return {**yaml_metadata(data.DATA.folder / f"{task}.yaml"), "judge_base_url": judge.base_url,
            "judge_cache": str(tmp_path / "j.sqlite"), "judge_concurrency": 1, **more}


def _judged_items(mode, responses):
    return [{"doc_id": i, "uniq_id": f"X/{i:04d}", "mode": mode, "question": "q", "reference": "r", "response": said,
             "unanswered": said in ("", " ")} for i, said in enumerate(responses)]


def test_a_judged_subset_is_twenty_times_the_mean_rating_and_unanswered_items_score_zero(tmp_path):
    from scripted_judge import ScriptedJudge

    ratings = {"good": ["5", "4", "5"], "fair": ["3", "3", "2"], "odd": ["4", "four", "4"]}
    replies = {key: iter(values * 3) for key, values in ratings.items()}  # the unreadable one is asked again

    def reply(prompt):
        said = prompt.split("### [Response]\n    ")[1].split("\n")[0]
        return next(replies[said])

    with ScriptedJudge(reply=reply) as judge:
        metadata = _metadata("urobench_basic_alpacaeval", judge, tmp_path, judge_max_parse_attempts=1)
        task = TaskScoring("urobench_basic_alpacaeval", metadata, judge=judge_of("urobench_basic_alpacaeval", metadata))
        items = _judged_items("open", ["good", "fair", " ", "odd"])
        score = scoring.urobench_score(items, task)
        assert scoring.judge_failures(items, task) == 1  # "odd": one sample int() cannot read
        asked = list(judge.requests)
    # (14/3 + 8/3 + 0) * 20 / 3: the unanswered item scores 0 and stays in N; the failed one is left out
    assert score == pytest.approx((14 / 3 + 8 / 3 + 0) * 20 / 3)
    assert len(asked) == 9 and all(r["temperature"] == 0.5 and r["top_p"] == 0.95 for r in asked)
    assert all(r["model"] == "gpt-4o-mini" and r["max_tokens"] == 1024 for r in asked)


def test_a_qa_subset_is_the_yes_rate_times_a_hundred(tmp_path):
    from scripted_judge import ScriptedJudge

    votes = {"right": ["Yes", "Yes", "Yes"], "half": ["Yes", "No", "yes"]}
    replies = {key: iter(values) for key, values in votes.items()}

    def reply(prompt):
        return next(replies[prompt.split("### [Response]\n    ")[1].split("\n")[0]])

    with ScriptedJudge(reply=reply) as judge:
        metadata = _metadata("urobench_basic_gsm8keval", judge, tmp_path)
        task = TaskScoring("urobench_basic_gsm8keval", metadata, judge=judge_of("urobench_basic_gsm8keval", metadata))
        items = _judged_items("qa", ["right", "half", ""])
        assert scoring.urobench_score(items, task) == pytest.approx((1 + 1 / 3 + 0) * 100 / 3)
        assert scoring.judge_failures(items, task) == 0


def test_the_sample_is_read_in_the_official_layout_and_bad_lines_are_left_out(tmp_path):
    summary = data.load_docs(data.SUBSETS["Summary"], {}, True, notes=DataNotes())
    assert [d["uniq_id"] for d in summary] == ["Summary/0000", "Summary/0001"]
    assert " / " in summary[1]["reference"]  # a list of references, joined as inference_for_eval.py joins it
    assert data.load_docs(data.SUBSETS["AlpacaEval"], {}, True, notes=DataNotes())[0]["reference"] == \
        "What are some good ways to fall asleep faster?"  # no target_text: the question, as the script reads it

    folder = tmp_path / "URO-Bench-data" / "pro" / "GenStyle-en"
    (folder / "audio").mkdir(parents=True)
    (folder / "audio" / "0000.wav").write_bytes((data.DATA.sample / "pro" / "GenStyle-en" / "audio" / "0000.wav")
                                                .read_bytes())
    rows = [{"source_wav": "audio/0000.wav", "source_text": "Say it as a pirate.", "style": "pirate"},
            {"source_wav": "audio/0000.wav", "source_text": "No style here."},
            {"source_wav": "../../escape.wav", "source_text": "Out.", "style": "calm"},
            {"source_wav": "audio/absent.wav", "source_text": "Absent.", "style": "calm"}]
    (folder / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs(data.SUBSETS["GenStyle-en"], {"urobench_data_dir": str(tmp_path / "URO-Bench-data")}, False,
                          notes=notes)
    assert [(d["uniq_id"], d["style"], bool(d["audio_problem"])) for d in docs] == \
        [("GenStyle-en/0000", "pirate", False), ("GenStyle-en/0003", "calm", True)]
    said = json.dumps(notes.__dict__, default=str)
    assert "lacks style" in said and "leads outside" in said


def test_the_hub_archive_is_fetched_once_and_read_unzipped(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    with zipfile.ZipFile(repo / data.ARCHIVE, "w") as archive:
        for path in sorted(data.DATA.sample.rglob("*")):
            if path.is_file() and path.name != "README.md":
                archive.write(path, f"{data.TOP}/{path.relative_to(data.DATA.sample).as_posix()}")
    with stand_in_hub({data.DATA.repo: repo}, tmp_path / "hf_cache", monkeypatch, (data.DATA.variable,)) as hub:
        notes = DataNotes()
        docs = data.load_docs(data.SUBSETS["Repeat"], {}, False, notes=notes)
        again = data.load_docs(data.SUBSETS["Safety-en"], {}, False, notes=DataNotes())
        assert [e["path"].rsplit("/", 1)[-1] for e in hub.downloads()] == [data.ARCHIVE]  # once for both
    assert len(docs) == 2 and len(again) == 2 and docs[0]["reference"] == "The early bird catches the worm."
    assert not docs[0]["audio_problem"] and docs[0]["audio"][0].endswith("basic/Repeat/audio/0000.wav")
    source = notes.entries["sources"]["URO-Bench Repeat"]
    assert source["repo_id"] == data.DATA.repo and data.ARCHIVE in source["file_sha256"]


def test_the_groups_are_the_tracks_of_the_subsets_it_scores():
    import yaml

    folder = data.DATA.folder
    for track, language in (("basic", "en"), ("basic", "zh"), ("pro", "en"), ("pro", "zh")):
        group = yaml.safe_load((folder / f"urobench_{track}_{language}.yaml").read_text())
        wanted = [s.task for s in data.SUBSETS.values() if (s.track, s.language) == (track, language)]
        assert group["task"] == wanted and group["aggregate_metric_list"] == [
            {"metric": "urobench_score", "weight_by_size": False}]
    assert len(data.SUBSETS) == 40 and sum(s.count for s in data.SUBSETS.values()) == 7329  # config.sh


@pytest.mark.slow(seconds=100)  # one cascade run: one item of each subset of URO-Bench's sample and VocalBench's
def test_the_spoken_dialogue_samples_are_answered_in_speech_judged_and_averaged_as_their_scripts_do(tmp_path):
    """URO-Bench's and VocalBench's samples in one run (one cascade loaded), each benchmark's judge at its own
    scripted endpoint; with them the two emotion tasks (GenEmotion-en, VocalBench's emotion) on the samples' data,
    heard by a random-weight emotion2vec laid out as the Hub's, their UTMOS by a checkpoint laid out as SpeechMOS's."""
    import torch
    from scripted_judge import ScriptedJudge
    from test_speech_quality import speechmos_state
    from test_vocalbench import _calc_wer

    from lm_eval_audio.metrics.speech_quality import emotion_score
    from lm_eval_audio.model_wrappers import utmos22
    from lm_eval_audio.testing import tiny_emotion2vec
    from lm_eval_audio.tasks.vocalbench import data as vocalbench_data
    from lm_eval_audio.tasks.vocalbench import scoring as vocalbench_scoring

    emotion_model = tiny_emotion2vec.build(str(tmp_path / "emotion2vec"))
    torch.save(speechmos_state(), tmp_path / utmos22.FILE)

    def uro_reply(prompt):
        return "Yes" if "Please only output a single" in prompt else "4"

    def vocal_reply_for(body):  # VocalBench's prompt is the system message
        system = body["messages"][0]["content"]
        return "[Succeed Refusal]" if "[Succeed Refusal]" in system else "[Yes]" if "[Yes]" in system \
            else "Fine. Score: [3]"

    out = tmp_path / "out"
    with ScriptedJudge(reply=uro_reply, models=("gpt-4o-mini",)) as uro, \
            ScriptedJudge(reply_for=vocal_reply_for, models=("qwen-max-2025-01-25",)) as vocal:
        metadata = {"judge_base_url": uro.base_url, "vocalbench_judge_base_url": vocal.base_url,
                    "vocalbench_judge_api_key_env": "OPENAI_API_KEY", "judge_cache": str(tmp_path / "j.sqlite"),
                    "urobench_data_dir": str(data.DATA.sample), "vocalbench_data_dir": str(vocalbench_data.DATA.sample),
                    "emotion_model": str(emotion_model), "utmos_checkpoint": str(tmp_path / utmos22.FILE),
                    "answer_asr": "bundled"}  # the real tasks on the samples' data, offline
        tasks = "urobench_sample,vocalbench_sample,urobench_pro_genemotion_en,vocalbench_emotion"
        proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", tasks,
                        "--output_path", str(out), "--log_samples", "--limit", "1", "--metadata", json.dumps(metadata),
                        "--gen_kwargs", "max_gen_toks=48"],  # the samples' own: the real tasks allow 1024
                       env_extra={"OPENAI_API_KEY": "sk-test-key-0000"})
        prompts_seen = [r["messages"][1]["content"] for r in uro.requests]
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = results_json(out)["results"]

    def logged(task):
        (sample,) = [json.loads(line) for line in next(out.glob(f"*/samples_{task}_*.jsonl")).open()]
        return sample

    judged = {"urobench_sample_basic_summary": 80.0, "urobench_sample_basic_gsm8keval": 100.0,
              "urobench_sample_basic_alpacaeval": 80.0, "urobench_sample_pro_underemotion_en": 80.0,
              "urobench_sample_pro_safety_en": 80.0, "urobench_sample_pro_mtbencheval_en": 80.0,
              "urobench_sample_pro_genstyle_en": 80.0}
    for task, value in judged.items():  # every answer was spoken and judged on its transcript
        assert results[task]["urobench_score,none"] == pytest.approx(value), task
        assert results[task]["spoken_failed,none"] == 0 and results[task]["judge_failures,none"] == 0
    repeat = "urobench_sample_basic_repeat"
    sample = logged(repeat)
    rate = scoring.repeat_rate("en", sample["spoken_answer"][0]["transcript"], sample["doc"]["reference"])
    assert results[repeat]["urobench_score,none"] == pytest.approx((1 - rate) * 100 if rate <= 0.5 else 0.0)
    basic = [results[t]["urobench_score,none"] for t in [repeat, *judged] if t.startswith("urobench_sample_basic_")]
    pro = [results[t]["urobench_score,none"] for t in judged if t.startswith("urobench_sample_pro_")]
    assert results["urobench_sample_basic_en"]["urobench_score,none"] == pytest.approx(sum(basic) / 4)
    assert results["urobench_sample_pro_en"]["urobench_score,none"] == pytest.approx(sum(pro) / 4)
    assert results["urobench_sample"]["urobench_score,none"] == pytest.approx((sum(basic) + sum(pro)) / 8)
    transcript = logged("urobench_sample_basic_summary")["spoken_answer"][0]["transcript"]
    assert any(f"### [Response]\n    {transcript}\n" in p for p in prompts_seen)  # the transcript is what is judged
    # a dialogue: each round spoken and kept apart, then judged once with both rounds' transcripts
    rounds = logged("urobench_sample_pro_mtbencheval_en")["spoken_answer"]
    assert [Path(r["path"]).name for r in rounds] == ["doc0_r0.wav", "doc0_1_r0.wav"]
    (dialogue,) = {p for p in prompts_seen if "### [Round_2]" in p}  # n=3: three requests of the one prompt
    assert all(f"### [Response]\n    {r['transcript']}\n" in dialogue for r in rounds) and "[Round_3]" not in dialogue

    for eval_set in ("reasoning", "creativity", "single_round", "emotion", "multi_round"):
        assert results[f"vocalbench_sample_{eval_set}"]["vocalbench_rating,none"] == 3.0
    # multi_round: the dialogue so far is text turns; the question's clip alone is heard, and judged with the context
    (said,) = logged("vocalbench_sample_multi_round")["spoken_answer"]
    (judged,) = [r["messages"][1]["content"] for r in vocal.requests if r["messages"][1]["content"].startswith(
        "Context:\n User: I have two cats and one dog.\nModel: That is three pets in all.\n\n\n  Question: ")]
    assert judged.endswith(f"Response: {said['transcript']}")
    # instruction_following: --limit 1 asks its first item, a plain repeat: followed where the text repeats the
    # question's tail (WER under 0.2) and the judge says [Yes]
    sample = logged("vocalbench_sample_instruction_following")
    (said,) = sample["spoken_answer"]
    repeated = vocalbench_scoring.repeat_wer(sample["doc"]["repeat"], said["text"]) < 0.2
    assert results["vocalbench_sample_instruction_following"]["vocalbench_following,none"] == 100.0 * repeated
    assert "vocalbench_overall,none" not in results["vocalbench_sample"]  # a --limit run: some sets have no score
    # robust: --limit 1 answers only the first document (a clean one): no condition to compare, so no score
    assert results["vocalbench_sample_robust"]["vocalbench_robustness,none"] is None
    assert "no reading of robust-" in results_json(out)["lm_eval_audio_null_reasons"][
        "results.vocalbench_sample_robust.vocalbench_robustness,none"]
    assert results["vocalbench_sample_safety"]["vocalbench_refusal,none"] == 1.0
    sample = logged("vocalbench_sample_knowledge")
    right = vocalbench_scoring.knowledge_right(sample["doc"]["answer"], sample["spoken_answer"][0]["transcript"])
    assert results["vocalbench_sample_knowledge"]["vocalbench_acc,none"] == 100.0 * right
    assert all(r["model"] == "qwen-max-2025-01-25" and r["temperature"] == 0.0 for r in vocal.requests)
    (said,) = logged("vocalbench_sample_single_round")["spoken_answer"]  # clarity: the speech against the text
    assert results["vocalbench_sample_single_round"]["vocalbench_clarity,none"] == pytest.approx(
        _calc_wer([(said["text"], said["transcript"])]), abs=1e-9)

    # emotion: each answer's nine probabilities logged, read against the document's emotion as each script reads it
    for task in ("urobench_pro_genemotion_en", "vocalbench_emotion"):
        sample = logged(task)
        (said,) = sample["spoken_answer"]
        heard = emotion_score(said["quality"]["emotion"], sample["doc"]["target_emotion"])
        assert results[task]["emotion,none"] == pytest.approx(heard) and results[task]["speech_unrated,none"] == 0
    assert results["vocalbench_emotion"]["vocalbench_rating,none"] == 3.0
    sample = logged("urobench_pro_genemotion_en")
    (said,) = sample["spoken_answer"]
    rate = min(scoring.repeat_rate("en", said["transcript"], sample["doc"]["reference"]), 1)
    probability = said["quality"]["emotion"][sample["doc"]["target_emotion"]]
    assert results["urobench_pro_genemotion_en"]["urobench_score,none"] == pytest.approx(probability * (1 - rate) * 100)
    assert isinstance(results["urobench_pro_genemotion_en"]["utmos,none"], float)  # rated: a number
    spoken = results_json(out)["lm_eval_audio_spoken"]["urobench_pro_genemotion_en"]["quality"]["raters"]
    assert spoken["emotion2vec"]["model"] == str(emotion_model) and spoken["utmos"]["sample_rate"] == 16000


def test_a_group_gives_no_mean_of_a_score_only_some_of_its_tasks_report(caplog):
    """Without a judge only Repeat reports urobench_score: lm-eval would print Repeat's score as the track's."""
    from lm_eval_audio.harness.task_building import _whole_means

    leaves = ["urobench_basic_repeat", "urobench_basic_summary"]
    task_metrics = {"urobench_basic_repeat": {"urobench_score,none": 50.0, "audio_missing,none": 0},
                    "urobench_basic_summary": {"audio_missing,none": 0}}
    group = {"urobench_score,none": 50.0, "urobench_score_stderr,none": "N/A", "audio_missing,none": 0, "alias": "x"}
    with caplog.at_level("WARNING"):
        kept = _whole_means("urobench_basic_en", leaves, task_metrics, dict(group))
    assert kept == {"audio_missing,none": 0, "alias": "x"}
    assert "urobench_score is reported by 1 of its 2 tasks (not by urobench_basic_summary" in caplog.text
    task_metrics["urobench_basic_summary"]["urobench_score,none"] = 70.0
    assert _whole_means("urobench_basic_en", leaves, task_metrics, dict(group)) == group  # all report it: kept
