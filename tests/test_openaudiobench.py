"""OpenAudioBench: the Hub eval scripts' judge prompts (exactly), each subset's reading of the judge's reply restated
on edge cases, the sample in baichuan-inc/OpenAudioBench's layout and broken copies, the stand-in Hub fetching the
CSV then only the clips a run evaluates, the judged scores recomputed from the judge log, and (check_sample_run) the
cascade run without a judge: answers logged, every score NaN with its reason."""

from __future__ import annotations

import hashlib
import math
import shutil

import pytest
from conftest import judge_of, stand_in_hub

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.openaudiobench import data, judges, scoring

# sha256 of each prompt as the Hub scripts' f-strings evaluate (VoiceAgentGroup/AudioCompass@bafbcb0
# src/benchmarks/openaudiobench/evaluator/*.py, the values replaced by {question}, {answer}, {prediction})
PROMPT_SHA256 = {
    "alpaca_eval": "65533d8bf9348cb1f78e494ad6d2b4775de221c0e643c750b7ff861ba4158799",
    "llama_questions": "59d57dc79598052fcf8ce4aca7e4689ec865512f7ea72c644109c57f22d96e06",
    "reasoning_qa": "cece3d72aac96f2f28f8532524194856662f04a7a699bf2705e6a466f3fee0e2",
    "trivia_qa": "1709ca1736f30e35fcf256262a4b6125e920677f23d06b76368ae463cfe4d4f9",
    "web_questions": "1709ca1736f30e35fcf256262a4b6125e920677f23d06b76368ae463cfe4d4f9",
}


def test_prompts_are_the_hub_eval_scripts_exactly():
    for subset, digest in PROMPT_SHA256.items():
        assert hashlib.sha256(judges.PROMPTS[subset].encode()).hexdigest() == digest, subset
    system, user = judges.messages_for("llama_questions", "Who? {answer}", "Bob", "It is {question}")
    assert system == {"role": "system", "content": judges.SYSTEM}
    assert user["content"].endswith("## Question:\nWho? {answer}\n\n## Standard Answer:\nBob\n\n## Model's Answer:\n"
                                    "It is {question}\n\n")  # filled once: the answer's braces stay
    alpaca = judges.messages_for("alpaca_eval", "Name a color.", "Red.", "Blue.")[1]["content"]
    assert "[Question] \n        Name a color.  \n" in alpaca and "Red." not in alpaca  # rated alone
    assert judges.PROMPTS["reasoning_qa"].startswith("\n## 背景\n现在你是一个大学数学老师。")


# (subset, judge reply, the verdict read here; None: unread). The Hub scripts' outcome for each (AudioCompass@bafbcb0
# evaluator/*.py run on these strings): scripts/check_openaudiobench_readings.py, which reads this list.
EDGE_CASES = [
    ("alpaca_eval", "Good answer. Rating: [[8]]", 8),
    ("alpaca_eval", "Rating: [[7]] then [[9]]", 7),  # re.search: the first
    ("alpaca_eval", "Rating: [[11]]", None),  # the Hub script asserts 1-10 (it stops)
    ("alpaca_eval", "Rating: [[0]]", None),
    ("alpaca_eval", "Rating: [8]", None),  # the Hub script leaves it out too
    ("alpaca_eval", "", None),
    ("reasoning_qa", "过程正确，得分是[4]", 4),
    ("reasoning_qa", "列表[1]中... 得分是[5]", 5),  # findall: the last
    ("reasoning_qa", "得分是[0]", 0),
    ("reasoning_qa", "得分是[6]", None),  # -1 in the Hub script
    ("reasoning_qa", "得分是4分", None),
    ("llama_questions", "Equivalent, the score is [Correct]", True),
    ("llama_questions", "The score is [Incorrect]", False),
    ("llama_questions", "the score is [correct]", True),  # Kimi-Audio-Evalkit's regex; the Hub script stops
    ("llama_questions", "the score is [CORRECT]", None),
    ("llama_questions", "the score is [Incorrect] ... the score is [Correct]", False),  # the first
    # a lowercase verdict before a capitalized one: the Hub script's case-sensitive regex reads the capitalized one
    ("llama_questions", "the score is [correct]. Also the score is [Incorrect]", False),
    ("llama_questions", "The score is [incorrect], no: the score is [Correct]", True),
    ("llama_questions", "the score is [Correct]. Also the score is [incorrect]", True),
    ("trivia_qa", '```json\n{"analysis": "Same city.", "judgment": "correct"}\n```', True),
    ("trivia_qa", '```json\n{"analysis": "Same city.", "judgment": "correct"}\n```\n', True),  # stripped first
    ("trivia_qa", "'''json\n{'analysis': 'No.', 'judgment': 'incorrect'}\n'''", False),
    ("trivia_qa", "{'analysis': 'No.', 'judgment': 'Incorrect'}", None),  # exactly "correct"/"incorrect"
    ("trivia_qa", '{"analysis": "Partly.", "judgment": "partially correct"}', None),
    ("trivia_qa", '{"judgment": "correct"}', None),  # the Hub scripts assert an analysis
    ("trivia_qa", 'Verdict: {"analysis": "x", "judgment": "correct"}', None),  # Kimi-Audio-Evalkit would read it
    ("web_questions", '{"analysis": "a {b} c", "judgment": "correct"}', True),  # the whole reply, braces and all
    ("web_questions", '{"analysis": "x", "judgment": true}', None),
    ("web_questions", "correct", None),
    ("web_questions", "", None),
    ("web_questions", '{"analysis": "x", "judgment": "cor" + "rect"}', None),  # eval() would read "correct"
    ("web_questions", "{'analysis': 'x', 'judgment': __import__('os').getcwd()}", None),  # never run here
]


@pytest.mark.parametrize("subset, reply, verdict", EDGE_CASES)
def test_reply_is_read_as_the_evaluator_reads_it(subset, reply, verdict):
    assert judges.READERS[subset](reply) == verdict


def test_an_unread_triviaqa_or_web_questions_reply_counts_wrong_an_endpoint_failure_is_left_out():
    assert scoring.scored_verdict("trivia_qa", None, True) is False
    assert scoring.scored_verdict("web_questions", None, True) is False
    assert scoring.scored_verdict("web_questions", None, False) is None  # no reply: not the model's fault
    assert scoring.scored_verdict("reasoning_qa", None, True) is None  # left out (the Hub script: -1)
    assert scoring.scored_verdict("alpaca_eval", None, True) is None
    assert scoring.scored_verdict("trivia_qa", True, True) is True


def test_sample_is_read_in_the_official_layout():
    docs = data.load_docs("reasoning_qa", {}, True, notes=DataNotes())
    assert [(d["question"], d["reference"]) for d in docs] == [
        ("What is two plus three?", "5"), ("Tom is older than Ann. Who is younger?", "Ann")]
    assert docs[0]["audio"][0].endswith("sample_data/eval_datas/reasoning_qa/audios/reasoning_qa_0.mp3")
    assert docs[0]["uniq_id"] == "reasoning_qa/reasoning_qa_0.mp3" and not docs[0]["audio_problem"]


@pytest.fixture
def broken_copy(tmp_path, monkeypatch):
    root = tmp_path / "oab"
    shutil.copytree(data.SPEC.sample, root)
    monkeypatch.setenv(data.SPEC.variable, str(root))
    return root / "eval_datas" / "trivia_qa"


def test_a_copy_without_a_column_names_the_file_and_the_fix(broken_copy):
    table = broken_copy / "trivia_qa.csv"
    table.write_text(table.read_text().replace("answer_normalized_aliases", "aliases", 1))
    with pytest.raises(data.OpenAudioBenchDataError, match=r"trivia_qa\.csv has no column 'answer_normalized_aliases'"):
        data.load_docs("trivia_qa", {}, False, notes=DataNotes())


def test_a_missing_clip_and_an_escaping_path_are_counted_not_dropped_silently(broken_copy):
    (broken_copy / "audios" / "trivia_qa_1.mp3").unlink()
    table = broken_copy / "trivia_qa.csv"
    table.write_text(table.read_text() + "Where?,['x'],../../secret.mp3\n")
    notes = DataNotes()
    docs = data.load_docs("trivia_qa", {}, False, notes=notes)
    assert [bool(d["audio_problem"]) for d in docs] == [False, True]
    assert "OpenAudioBench trivia_qa/trivia_qa_1.mp3" in notes.entries["unusable_audio"]
    assert "leads outside" in notes.entries["invalid_items"]["OpenAudioBench trivia_qa/2"]
    task = TaskScoring("openaudiobench_trivia_qa", {})
    out = scoring.process_results(docs[1], ["unheard"], task)
    assert out["audio_missing"] == 1.0 and out["judge_score"]["response"] == ""


@pytest.fixture
def oab_hub(tmp_path, monkeypatch):
    with stand_in_hub({data.SPEC.repo: data.SPEC.sample}, tmp_path / "hf_cache", monkeypatch,
                      (data.SPEC.variable,)) as stand_in:
        yield stand_in


def test_the_hub_gives_the_csv_then_only_the_clips_a_run_evaluates(oab_hub):
    from lm_eval_audio.benchmarks.hub_data import fetch_clips

    notes = DataNotes()
    docs = data.load_docs("web_questions", {}, False, notes=notes)
    assert [e["path"].rsplit("/", 1)[-1] for e in oab_hub.downloads()] == ["web_questions.csv"]
    record = notes.entries["sources"]["OpenAudioBench web_questions"]
    assert record["repo_id"] == data.SPEC.repo and len(record["commit"]) == 40
    assert record["metadata_files"] == ["eval_datas/web_questions/web_questions.csv"]
    fetch_clips(docs[0]["audio"], notes, "openaudiobench_web_questions")  # what --limit 1 evaluates
    assert [e["path"].rsplit("/", 1)[-1] for e in oab_hub.downloads()] == ["web_questions.csv", "web_questions_0.mp3"]


REPLIES = {  # first words of the prompt -> the scripted judge's reply
    "[Instruction]": "Helpful. Rating: [[8]]",
    "## Background": "Matches, the score is [Correct]",
    "## 背景": "得分是[4]",
    "Your will be given": '```json\n{"analysis": "x", "judgment": "correct"}\n```',
}


def _scripted(prompt: str) -> str:
    if "Who wrote Hamlet?" in prompt or "Tom is older" in prompt:
        return "I cannot tell."  # unreadable: a judge failure
    return next(reply for start, reply in REPLIES.items() if prompt.lstrip().startswith(start))


def test_judged_scores_recomputed_from_the_judge_log(tmp_path):
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    def fault(body):  # an endpoint error: no reply to read
        return (400, {}) if "red planet" in body["messages"][-1]["content"] else None

    with ScriptedJudge(reply=_scripted, models=SERVED_MODELS + ("gpt-4o-mini",), fault_for=fault) as judge:
        metadata = {"judge_base_url": judge.base_url, "judge_cache": str(tmp_path / "j.sqlite"),
                    "judge_model_default": "gpt-4o-mini", "judge_temperature_default": 0.0,
                    "judge_top_p_default": 0.95, "judge_max_parse_attempts_default": 1}
        scores = {}
        for subset in data.SUBSETS:
            task = TaskScoring(f"openaudiobench_sample_{subset}", metadata,
                               judge=judge_of(f"openaudiobench_sample_{subset}", metadata))
            docs = data.load_docs(subset, {}, True, notes=DataNotes())
            items = [scoring.process_results(d, ["An answer."], task)["judge_score"] for d in docs]
            scores[subset] = (scoring.judge_score(items, task), scoring.judge_failures(items, task))
            # recomputed from the log alone
            parsed = [(r["parsed"], any(x.strip() for x in r["replies"])) for r in task.judge_records]
            counted = [scoring.scored_verdict(subset, p, replied) for p, replied in parsed]
            read = [judges.POINTS[subset](v) for v in counted if v is not None]
            assert scores[subset] == (sum(read) / len(read), [p for p, _ in parsed].count(None))
            assert all(r["messages"][0]["content"] == judges.SYSTEM for r in task.judge_records)
        bodies = judge.requests
    # Reasoning QA's unread reply is left out; Web Questions' counts wrong (the Hub script's 1 of 2); TriviaQA's
    # endpoint error is left out; each is a judge failure
    assert scores == {"alpaca_eval": (80.0, 0), "llama_questions": (100.0, 0), "reasoning_qa": (80.0, 1),
                      "trivia_qa": (100.0, 1), "web_questions": (50.0, 1)}
    assert len(bodies) == 10  # one request per item: an unreadable reply is not asked again
    assert {(b["model"], b["temperature"], b["top_p"], b["max_tokens"]) for b in bodies} == {
        ("gpt-4o-mini", 0.0, 0.95, 1024)}
    overall = sum(s for s, _ in scores.values()) / 5  # the group's unweighted mean
    assert overall == 82.0


# --- the cascade run without a judge (tests/test_model_card_samples.py runs the groups) ---------------------------
SAMPLE_GROUPS = ["openaudiobench_sample"]


def _null(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def check_sample_run(results: dict, logged) -> None:
    reasons = results["lm_eval_audio_null_reasons"]
    for subset in data.SUBSETS:
        task = f"openaudiobench_sample_{subset}"
        samples = logged(task)
        docs = data.load_docs(subset, {}, True, notes=DataNotes())
        assert len(samples) == min(2, len(docs))
        for sample in samples:  # the answers are logged beside their documents
            assert sample["doc"]["uniq_id"] == docs[sample["doc_id"]]["uniq_id"]
            assert isinstance(sample["filtered_resps"][0], str)
        row = results["results"][task]
        assert _null(row["judge_score,none"]) and "judge_failures,none" not in row
        assert row["audio_missing,none"] == sum(bool(s["doc"]["audio_problem"]) for s in samples) == 0
        assert reasons[f"results.{task}.judge_score,none"] == scoring.NO_JUDGE
        unscored = results["lm_eval_audio_data"]["unscored_metrics"]
        assert f"{task}/judge_score" in unscored
    group = results["groups"]["openaudiobench_sample"] if "groups" in results else results["results"][
        "openaudiobench_sample"]
    assert _null(group["judge_score,none"])
