"""Big Bench Audio: the judge Artificial Analysis describe (their prompt, exactly; the verdict read as a word, never
as a substring), the question transcribed for it, the sample in ArtificialAnalysis/big_bench_audio's layout, and
its clips fetched from the stand-in Hub only for the questions a run evaluates."""

from __future__ import annotations

import pytest
from conftest import judge_of, stand_in_hub

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.bigbench_audio import data, judges, scoring


def test_prompt_is_the_blogs_with_its_escaped_newlines_as_newlines():
    (message,) = judges.messages_for("Does Bob lie?", "Yes", "He does. {question}")
    text = message["content"]
    assert message["role"] == "user"
    assert text.startswith("Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.\n")
    assert "Autry or Audrie.\n  \nThe question, for reference only: START QUESTION Does Bob lie? \n\nEND QUESTION\n" in text
    assert "The OFFICIAL ANSWER:Yes\n\nBEGIN CANDIDATE ANSWER TO ASSESS\n\nHe does. {question}\n\n" in text  # filled once
    assert text.endswith("END CANDIDATE ANSWER TO ASSESS\n\nReply only with CORRECT or INCORRECT.")


@pytest.mark.parametrize("reply, verdict", [
    ("CORRECT", True), ("INCORRECT", False), (" correct. ", True), ("Incorrect.", False),
    ("The answer is CORRECT", None), ("", None), ("CORRECT or INCORRECT", None),
])
def test_verdict_is_read_as_one_word(reply, verdict):
    assert judges.parse_verdict(reply) is verdict


def test_sample_is_read_in_the_official_layout():
    docs = data.load_docs(["web_of_lies"], {}, True, notes=DataNotes())
    assert [(d["uniq_id"], d["answer"]) for d in docs] == [("750", "Yes"), ("1059", "No")]
    assert docs[1]["audio"][0].endswith("sample_data/data/question_1059.mp3") and not docs[1]["audio_problem"]


def test_judged_accuracy_with_the_question_transcribed_for_the_judge(tmp_path, monkeypatch):
    from scripted_judge import ScriptedJudge

    monkeypatch.setenv("LM_EVAL_AUDIO_TRANSCRIPT_CACHE", str(tmp_path / "t.sqlite"))
    prompts = []

    def reply(prompt):
        prompts.append(prompt)
        return "CORRECT" if "OFFICIAL ANSWER:Yes" in prompt else "The candidate is wrong"  # the second: unreadable

    with ScriptedJudge(reply=reply) as judge:
        metadata = {"judge_base_url": judge.base_url, "judge_cache": str(tmp_path / "j.sqlite"),
                    "judge_model_default": "claude-3-5-sonnet-20241022", "judge_max_parse_attempts": 1}
        task = TaskScoring("bigbench_audio_sample_navigate", metadata,
                           judge=judge_of("bigbench_audio_sample_navigate", metadata))
        docs = data.load_docs(["navigate"], {}, True, notes=DataNotes())
        items = [scoring.process_results(d, ["I think so."], task)["judge_acc"] for d in docs]
        assert scoring.judge_acc(items, task) == 1.0  # the one readable verdict
        assert scoring.judge_failures(items, task) == 1
    assert any("START QUESTION" in p and "steps forward" in p.split("START QUESTION")[1].lower() for p in prompts)
    assert task.data_notes["bigbench_audio_question_asr"]["bigbench_audio_sample_navigate"].startswith(
        "faster-whisper:")


@pytest.fixture
def bba_hub(tmp_path, monkeypatch):
    """The stand-in Hub serving the sample as ArtificialAnalysis/big_bench_audio, this process pointed at it."""
    with stand_in_hub({data.DATA.repo: data.sample_root()}, tmp_path / "hf_cache", monkeypatch, (data.DATA.variable,)) as stand_in:
        yield stand_in


def test_the_hub_gives_the_metadata_then_only_the_clips_a_run_evaluates(bba_hub):
    from lm_eval_audio.benchmarks.hub_data import fetch_clips

    notes = DataNotes()
    docs = data.load_docs(["object_counting"], {}, False, notes=notes)
    assert [p.rsplit("/", 1)[-1] for p in (e["path"] for e in bba_hub.downloads())] == ["metadata.jsonl"]
    assert notes.entries["sources"]["Big Bench Audio"]["repo_id"] == data.DATA.repo
    fetch_clips(docs[0]["audio"], notes, "bigbench_audio_object_counting")  # what --limit 1 evaluates
    assert [p.rsplit("/", 1)[-1] for p in (e["path"] for e in bba_hub.downloads())] == \
        ["metadata.jsonl", "question_500.mp3"]
