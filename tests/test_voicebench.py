"""VoiceBench: the official evaluators' readings restated on responses written to hit their edge cases (each
expectation is what github.com/MatthewCYM/VoiceBench@5338154's own evaluator returns for it, but for the hyperbaton
"b" its maintainer fixed after that commit, issue 26), the GPT judge's
prompts and reading, the bundled sample in hlt-lab/voicebench's layout, and the sample through the real CLI in
both modalities, compared by ``report``."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from conftest import judge_of, results_json, run_cli, stand_in_hub

from lm_eval_audio.audio.refs import is_text_instead
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.voicebench import data, judges, rules, scoring

NO_JUDGE = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


@pytest.mark.parametrize("response, letter", [
    ("The answer is B.", "B"), ("<1>b. heart", "B"), ("Answer: B", None), ("B", "B"), ("b)", "B"),
    ("I think it's (c)", "C"), ("the correct answer is d because", "D"), ("答案是C", "C"),
    ("It would be a. liver", "A"), ("None of these.", None), ("", None), ("The answer is: **C**", "C"),
    ("Option D: east", "D"), ("A heart pumps", None), ("(b) heart", "B"),
])
def test_multiple_choice_reading_is_mcq_py(response, letter):
    assert rules.mcq_letter(response) == letter


@pytest.mark.parametrize("response, item_id, answer", [
    ("no", "sports_understanding_1", 0), ("Yes, it is plausible.", "sports_understanding_2", 1),
    # the evaluator's own rule: "the sentence ... is not plausible" reads as yes
    ("the sentence the goalie scored is not plausible", "sports_understanding_3", 1),
    ("a", "hyperbaton_1", 0),
    ("b", "hyperbaton_1", 1),  # 0 at the commit the rules come from; fixed upstream (issue 26), and here
    ("The answer is (B).", "hyperbaton_2", 1), ("**Answer: No**", "navigate_1", 0),
    ("So Ann must be lying", "web_of_lies_1", 1), ("<|turn_end|>Yes.<|user|>", "web_of_lies_2", 1),
    ("I don't know", "navigate_2", None),  # unread: the evaluator draws at random
])
def test_bbh_reading_is_bbh_py(response, item_id, answer):
    assert rules.bbh_answer(response, item_id) == answer


@pytest.mark.parametrize("response, refused", [
    ("", True), ("   ", True), ("I'm sorry, I can't", True), ("Sure, here is how", False), ("As an AI, no", True),
    ("抱歉", True), ("I' not comfortable", True),
    ("I will not do that", False),  # no string of harm.py's list is in it
])
def test_refusal_is_harm_py(response, refused):
    assert rules.refuses(response) is refused


def test_rules_file_records_its_source():
    source = rules.source()
    assert source["commit"] == "533815410e3f4d602bd15a1de7105aea4acd828c"
    assert set(source["files"]) == {"src/evaluator/mcq.py", "src/evaluator/bbh.py", "src/evaluator/harm.py"}
    assert len(rules.rules()["mcq"]["templates"]) == 163


def _task(name="voicebench_sample_openbookqa", metadata=None):
    return TaskScoring(name, dict(metadata or {}))


def test_unread_answer_falls_back_seeded_and_is_also_reported_wrong():
    doc = {"uniq_id": "openbookqa/test/0", "reference": "B", "audio_problem": ""}
    draws = {seed: rules.fallback(seed, doc["uniq_id"], "ABCD") for seed in range(20)}
    assert len(set(draws.values())) > 1  # the seed decides the draw ...
    for seed, letter in draws.items():  # ... and the same seed always draws the same letter
        out = scoring.process_mcq(doc, ["I would rather not say"], _task(metadata={"voicebench_fallback_seed": seed}))
        assert out["official_acc"] == float(letter == "B")
        assert out["acc_unread_wrong"] == 0.0 and out["unread_rate"] == 1.0
        assert out["leaderboard_score"] == 100.0 * out["official_acc"]
    read = scoring.process_mcq(doc, ["The answer is B."], _task())
    assert read == {"official_acc": 1.0, "acc_unread_wrong": 1.0, "unread_rate": 0.0, "leaderboard_score": 100.0,
                    "audio_missing": 0.0}
    missing = scoring.process_mcq({**doc, "audio_problem": "no file"}, ["B"], _task())
    assert missing["official_acc"] == 0.0 and missing["audio_missing"] == 1.0


def test_judge_prompts_are_api_judge_py_and_read_as_its_evaluators_read():
    import hashlib

    # the digests of api_judge.py@5338154's meta_prompt_open and meta_prompt_qa (.strip()ed), as Python reads them
    assert hashlib.sha256(judges.OPEN_PROMPT.encode()).hexdigest() == \
        "98f2e9919fbad61f1cab0c2492f53519412d97faeead126c756d73355552bd1e"
    assert hashlib.sha256(judges.QA_PROMPT.encode()).hexdigest() == \
        "b89c3ec54556c16e6a111586a215d8b9d2cbbbb2d334c2604d84f7102ec398b0"
    (system, user) = judges.messages_for("Capital of Japan?", "It is {reference}.", "Tokyo")
    assert system["content"] == "You are a helpful assistant who tries to help answer the user's question."
    assert user["content"].startswith("### Question\nCapital of Japan?\n\n### Reference answer\nTokyo\n")
    assert "### Candidate answer\nIt is {reference}.\n\n" in user["content"]  # filled once
    assert "reference answer? \nPlease only output" in user["content"]  # the official trailing space
    (_, open_user) = judges.messages_for("Say hi.", "Hi!", None)
    assert open_user["content"].startswith("\nI need your help") and open_user["content"].endswith("explanations.\n")
    assert "### [Instruction]: Say hi.\n### [Response]: Hi!\n" in open_user["content"] and "model’s" in open_user["content"]
    assert [judges.parse_rating(r) for r in ("4", " 5 ", "3.5", "Rating: [[2]]", "Score: 4", "", "nan", "inf")] == \
        [4.0, 5.0, 3.5, 2.0, None, None, None, None]
    assert judges.qa_verdict(["yes", "yes", "no"]) == (True, False)
    assert judges.qa_verdict([judges.parse_qa(r) for r in ("Yes.", "Yes.", "yes")]) == (False, False)
    assert judges.qa_verdict(["yes", "no", "maybe"]) == (False, True)


def _sample_docs(config, split="test", metadata=None):
    return data.load_docs(config, split, dict(metadata or {}), True, notes=DataNotes())


def test_sample_is_read_in_the_official_layout_in_both_modalities():
    docs = _sample_docs("bbh")
    assert [d["bbh_id"] for d in docs][:2] == ["sports_understanding_0", "hyperbaton_0"]
    assert data.doc_to_text(docs[0]) == "" and data.doc_to_audio(docs[0]) == [
        {"table": docs[0]["audio_table"], "row": 0, "column": "audio"}]
    text = _sample_docs("sd-qa", "usa", {"voicebench_modality": "text"})
    assert data.doc_to_text(text[0]) == "What is the capital of Japan?"
    assert [is_text_instead(r) for r in data.doc_to_audio(text[0])] == [True]
    assert text[0]["reference"] == "Tokyo"
    ifeval = json.loads(_sample_docs("ifeval")[1]["ifeval"])
    assert ifeval["instruction_id_list"] == ["length_constraints:number_words"]
    assert ifeval["kwargs"][0]["num_words"] == 20 and ifeval["kwargs"][0]["keywords"] is None
    with pytest.raises(data.VoiceBenchDataError, match="voicebench_modality 'video'"):
        data.modality({"voicebench_modality": "video"})
    with pytest.raises(data.VoiceBenchDataError, match="holds no nowhere-"):
        _sample_docs("mmsu", "nowhere")
    mmsu = _sample_docs("mmsu", ["biology", "law"])
    assert [d["uniq_id"] for d in mmsu] == ["mmsu/biology/0", "mmsu/biology/1", "mmsu/law/0"]


def test_ifeval_is_lm_evals_checks_with_the_evaluators_last_response_per_prompt():
    docs = _sample_docs("ifeval")
    items = [scoring.process_ifeval(d, [r])["ifeval_final"]
             for d, r in zip(docs, ["<1>my favourite fruit is a banana, which is sweet and yellow.",
                                "Rain falls softly on the quiet town tonight."])]
    task = _task("voicebench_sample_ifeval")
    assert scoring.prompt_level_strict_acc(items, task) == 1.0
    assert scoring.ifeval_final(items, task) == 1.0 and scoring.ifeval_leaderboard(items, task) == 100.0
    upper = [scoring.process_ifeval(d, ["MY FAVOURITE FRUIT IS A BANANA." if i == 0 else "Rain."])["ifeval_final"] for i, d in enumerate(docs)]
    task = _task("voicebench_sample_ifeval")
    assert scoring.prompt_level_strict_acc(upper, task) == 0.5 and scoring.inst_level_loose_acc(upper, task) == 0.5


@pytest.mark.slow  # two lm_eval runs and a report: about 20 s
def test_sample_through_the_cli_in_audio_and_text_modality_and_report_pairs_them(tmp_path):
    """The bundled cascade, one row per task, audio then text; without a judge the Overall is NaN, not the mean
    of the rule-scored columns."""
    runs = {}
    for modality in ("audio", "text"):
        out = tmp_path / modality
        proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "voicebench_sample", "--limit", "1",
                        "--batch_size", "8", "--gen_kwargs", "max_gen_toks=8", "--output_path", str(out),
                        "--log_samples", "--metadata", json.dumps({"voicebench_modality": modality})],
                       env_extra={**NO_JUDGE, "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
        assert proc.returncode == 0, proc.stderr[-4000:]
        res = runs[modality] = results_json(out)
        assert res["results"]["voicebench_sample"]["leaderboard_score,none"] is None  # strict JSON: null, with why
        assert "results.voicebench_sample.leaderboard_score,none" in res["lm_eval_audio_null_reasons"]
        # every NaN of the printed table has its reason under it; VoiceBench's MMSU is not MMSU's
        reasons = proc.stdout[proc.stdout.index("NaN in the table above, why:"):]
        for task in ("voicebench_sample_alpacaeval_full", "voicebench_sample_commoneval", "voicebench_sample_wildvoice"):
            assert f"  {task} leaderboard_score: no judge is configured" in reasons, reasons
        assert "  voicebench_sample_sd_qa_usa panda_acc: PEDANT (qa_metrics) cannot run here" in reasons, reasons
        assert "  voicebench_sample leaderboard_score: from voicebench_sample_" in reasons, reasons
        assert "nothing was scored for it" not in json.dumps(res["lm_eval_audio_null_reasons"])
        assert "| - voicebench_sample_mmsu (synthetic sample)" in proc.stdout and "| - mmsu " not in proc.stdout
        # the Overall's columns: lm-eval averages a group over its leaf tasks, and MMSU is one of them
        assert len(res["group_subtasks"]["voicebench_sample"]) == 9
        assert 0.0 <= res["results"]["voicebench_sample_bbh"]["official_acc,none"] <= 1.0
        assert set(res["lm_eval_audio_data"]["voicebench_modality"].values()) == {modality}
        # one record per split read (MMSU's two domains apart), each naming its own file and that file's sha256
        sources = res["lm_eval_audio_data"]["sources"]
        assert len(sources) == 10 and sources["VoiceBench mmsu/law sample"]["file_sha256"] == {
            "mmsu/law-00000-of-00001.parquet":
                hashlib.sha256((data.sample_root() / "mmsu" / "law-00000-of-00001.parquet").read_bytes()).hexdigest()}
        for key, record in sources.items():
            config, split = key.split()[1].split("/")
            assert record["metadata_files"] == list(record["file_sha256"]) == [f"{config}/{split}-00000-of-00001.parquet"]
        bbh_rules = res["lm_eval_audio_data"]["voicebench_rules"]["VoiceBench bbh/test"]
        assert bbh_rules["commit"].startswith("5338154") and bbh_rules["unread_fallback_seed"] == 0
        (samples,) = out.rglob("samples_voicebench_sample_openbookqa_*.jsonl")
        sample = json.loads(samples.read_text().splitlines()[0])
        assert bool(sample.get("transcripts")) is (modality == "audio")  # what the recognizer heard, or nothing
    report = run_cli(["lm-eval-audio", "report", *(str(tmp_path / m) for m in ("audio", "text")),
                      "--output", str(tmp_path / "report")])
    assert report.returncode == 0, report.stderr[-4000:]
    text = (tmp_path / "report" / "report.md").read_text()
    assert "voicebench_sample_bbh" in text and "paired" in text.lower()


def test_judged_scores_read_three_samples_each_cached_apart(tmp_path):
    """A scripted endpoint answers each identical request in turn: the three samples of an item are three requests
    (not one reply cached three times), with api_judge.py's settings."""
    import itertools

    from scripted_judge import ScriptedJudge

    from lm_eval_audio.judges.judge_cache import cache_key

    open_replies = itertools.cycle(["4", "Rating: [[5]]", "3"])
    qa_replies = itertools.cycle(["Yes", "yes", "No"])
    with ScriptedJudge(reply=lambda p: next(qa_replies if p.startswith("### Question") else open_replies)) as judge:
        metadata = {"judge_base_url": judge.base_url, "judge_cache": str(tmp_path / "judge.sqlite"),
                    "judge_model_default": "gpt-4o-mini", "judge_temperature_default": 0.5,
                    "judge_top_p_default": 0.95, "judge_concurrency": 1}
        task = TaskScoring("voicebench_sample_commoneval", metadata,
                           judge=judge_of("voicebench_sample_commoneval", metadata))
        docs = _sample_docs("commoneval")
        items = [scoring.process_open(d, ["A reply."], task)["gpt_score"] for d in docs]
        assert scoring.gpt_score(items, task) == 4.0 and scoring.open_leaderboard(items, task) == 80.0
        assert scoring.judge_failures(items, task) == 0
        qa_task = TaskScoring("voicebench_sample_sd_qa_usa", metadata,
                              judge=judge_of("voicebench_sample_sd_qa_usa", metadata))
        qa_items = [scoring.process_qa(d, ["Tokyo."], qa_task)["gpt_acc"] for d in _sample_docs("sd-qa", "usa")]
        assert scoring.gpt_acc(qa_items, qa_task) == 1.0 and scoring.judge_ties(qa_items, qa_task) == 0
        bodies = judge.requests
    assert len(bodies) == 3 * len(docs) + 3 * len(qa_items)
    assert {(b["model"], b["temperature"], b["top_p"]) for b in bodies} == {("gpt-4o-mini", 0.5, 0.95)}
    assert cache_key("m", [], {}, 0) != cache_key("m", [], {}, 0, 1) == cache_key("m", [], {}, 0, 1)


def test_without_a_judge_the_overall_is_not_the_mean_of_the_rule_scored_columns():
    task = _task("voicebench_sample_commoneval")
    out = scoring.process_open(_sample_docs("commoneval")[0], ["A reply."], task)
    assert set(out) == {"audio_missing", "leaderboard_score"}  # gpt_score is not reported without a judge
    assert math.isnan(scoring.open_leaderboard([out["leaderboard_score"]], task))


@pytest.fixture
def voicebench_hub(tmp_path, monkeypatch):
    """The stand-in Hub serving the sample as hlt-lab/voicebench, this process pointed at it, online."""
    with stand_in_hub({data.REPO: data.sample_root()}, tmp_path / "hf_cache", monkeypatch, (data.DATA.variable,)) as stand_in:
        yield stand_in


def test_a_task_fetches_only_its_split_from_the_hub_once_and_records_the_commit(voicebench_hub):
    notes = DataNotes()
    docs = data.load_docs("mmsu", "law", {}, False, notes=notes)
    assert [d["reference"] for d in docs] == ["A"]
    served = [e["path"] for e in voicebench_hub.downloads()]
    assert [p for p in served if p.endswith(".parquet")] == [p for p in served if "mmsu/law-00000-of-00001" in p]
    assert len([p for p in served if p.endswith(".parquet")]) == 1
    record = notes.entries["sources"]["VoiceBench mmsu/law"]
    assert record["repo_id"] == "hlt-lab/voicebench" and len(record["commit"]) == 40
    assert list(record["file_sha256"]) == record["metadata_files"] == ["mmsu/law-00000-of-00001.parquet"]
    assert docs[0]["audio_table"].startswith(str(voicebench_hub.cache))
    before = len(voicebench_hub.downloads())
    data.load_docs("mmsu", "law", {}, False, notes=DataNotes())
    assert len(voicebench_hub.downloads()) == before  # the second run reads the cache


def test_diagnose_puts_the_text_in_place_of_the_audio_beside_full_and_none(tmp_path):
    proc = run_cli(["lm-eval-audio", "diagnose", "--model", "cascade", "--tasks", "voicebench_sample_openbookqa",
                    "--fragments", "1", "--limit", "1", "--batch_size", "8", "--gen_kwargs", "max_gen_toks=8", "--output_path",
                    str(tmp_path)], env_extra={**NO_JUDGE, "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    (report,) = tmp_path.rglob("diagnose_*.json")
    (row,) = [r for r in json.loads(report.read_text())["tasks"] if r["task"] == "voicebench_sample_openbookqa"]
    # read by its 0/1 official_acc (leaderboard_score is 0/100 per item: no threshold reads it as right or wrong)
    assert row["metric"] == "official_acc" and row["threshold"] == 0.5
    assert row["acc_text"] is not None and row["acc_full"] is not None
    assert "Acc_text" in proc.stdout
    (text_run,) = (tmp_path / "text-instead-of-audio").rglob("samples_voicebench_sample_openbookqa_*.jsonl")
    assert all(not json.loads(line).get("transcripts") for line in text_run.read_text().splitlines())


def test_rows_the_official_evaluator_would_stop_on_are_left_out_at_load_with_their_reason(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = data.sample_root() / "bbh" / "test-00000-of-00001.parquet"
    table = pq.read_table(source).to_pylist()
    table[1]["id"] = "date_understanding_3"  # names no BBH task the evaluator reads
    table[2]["reference"] = "maybe"
    (tmp_path / "bbh").mkdir()
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(source)), tmp_path / "bbh" / source.name)
    notes = DataNotes()
    docs = data.load_docs("bbh", "test", {"voicebench_data_dir": str(tmp_path)}, False, notes=notes)
    assert [d["bbh_id"] for d in docs] == ["sports_understanding_0", "web_of_lies_0"]
    reasons = " ".join(notes.entries["invalid_items"].values())
    assert "date_understanding_3" in reasons and "'maybe' is none of yes, no" in reasons


def test_a_missing_clip_scores_ifeval_wrong_without_taking_the_place_of_a_heard_response():
    docs = _sample_docs("ifeval")
    twin = {**docs[0], "doc_id": 2, "audio_problem": "no file"}  # the same prompt, its clip missing, last
    items = [scoring.process_ifeval(d, [r])["ifeval_final"]
             for d, r in zip([docs[0], docs[1], twin], ["my favourite fruit is a banana, which is sweet.", "Rain.", ""])]
    task = _task("voicebench_sample_ifeval")
    assert scoring.prompt_level_strict_acc(items, task) == pytest.approx(2 / 3)
