"""Reading a thinking model's reply: the trace out of the answer with each family's real markers, a trace cut by the
token limit, and a served model's reply with the trace handed over apart (``reasoning_content`` / ``reasoning``)."""

from __future__ import annotations

import pickle

import pytest

from lm_eval_audio.model_wrappers import reasoning
from lm_eval_audio.model_wrappers.reasoning import THINK, Reasoned, Thinking, split_trace
from lm_eval_audio.model_wrappers.request_parts import GenerationSettings
from lm_eval_audio.model_wrappers.run_notes import ModelNotes

THINKING = Thinking(THINK, 100, "test")
PLAIN = Thinking(None, None, "")


@pytest.mark.parametrize("reply, opened, answer, trace", [
    # Qwen3-Omni Thinking (Qwen3's markers): the model writes both markers, then the answer
    ("<think>\nThe clip has a dog barking.\n</think>\n\nB. Dog", False, "B. Dog", "The clip has a dog barking."),
    # a template that opens the trace in the prompt (Qwen3 2507 Thinking, Step-Audio-R1: "...assistant\n<think>\n"):
    # the reply holds only the close marker
    ("A dog barks twice.</think>\n\nDog", True, "Dog", "A dog barks twice."),
    # the same reply where nobody said the template opened it: the close marker alone shows the trace
    ("A dog barks twice.</think>\n\nDog", False, "Dog", "A dog barks twice."),
    # an empty trace (a thinking template asked not to think writes <think>\n\n</think>)
    ("<think>\n\n</think>\n\nCat", False, "Cat", ""),
])  # fmt: skip
def test_a_trace_is_cut_out_of_the_answer(reply, opened, answer, trace):
    got = split_trace(reply, THINK, opened=opened)
    assert isinstance(got, Reasoned) and str(got) == answer and got.reasoning == trace and got.finished


def test_a_reply_without_a_trace_is_left_as_it_is():
    assert type(split_trace("B. Dog <think> is a word here", THINK)) is str
    assert split_trace("B. Dog", THINK) == "B. Dog"


def test_a_trace_cut_by_the_token_limit_is_no_answer():
    """The limit stopped the model inside its trace: the answer is empty (scored wrong), the trace kept, unfinished."""
    for reply, opened in (("<think>\nThe options mention a dog, so the answer is B", False),
                          ("The options mention a dog, so the answer is B", True)):
        got = split_trace(reply, THINK, opened=opened)
        assert str(got) == "" and not got.finished and got.reasoning.endswith("so the answer is B")


def test_stop_strings_cut_the_answer_not_the_trace():
    got = THINKING.answer("Line one.\nLine two.</think>\nDog\nextra", "<|im_start|>assistant\n<think>\n", ["\n"])
    assert str(got) == "Dog" and got.reasoning == "Line one.\nLine two."
    assert PLAIN.answer("Dog\nextra", "", ["\n"]) == "Dog"


def test_the_budget_raises_a_task_limit_and_keeps_a_larger_one():
    settings = GenerationSettings(until=["\n"], max_new_tokens=8, do_sample=False, temperature=0.0, other={})
    assert THINKING.settings(settings).max_new_tokens == 100
    assert THINKING.settings(GenerationSettings(["\n"], 500, False, 0.0, {})).max_new_tokens == 500
    assert PLAIN.settings(settings) is settings


def test_an_answer_keeps_its_trace_through_the_cache_and_the_gather_of_ranks():
    answer = Reasoned("Dog", "a bark", True, 3)
    back = pickle.loads(pickle.dumps(answer))
    assert (str(back), back.reasoning, back.finished, back.trace_tokens) == ("Dog", "a bark", True, 3)
    assert reasoning.traces_of([[back], [Reasoned("", "cut", False)]]) == [("a bark", True), ("cut", False)]


def _reply(content, finish="stop", **message):
    return {"choices": [{"message": {"role": "assistant", "content": content, **message}, "finish_reason": finish}],
            "usage": {"completion_tokens": 40, "completion_tokens_details": {"reasoning_tokens": 31}}}


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_a_servers_reply_with_the_trace_handed_over_apart(field):
    """vLLM's reasoning parsers (``message.reasoning`` since late 2025, ``reasoning_content`` before, as SGLang)."""
    # the newlines that followed </think> stay in the content a parser hands back: the answer starts after them
    got = PLAIN.answer_of_reply(_reply("\n\nB. Dog\nmore", **{field: "A bark, so a dog."}), ["\n"])
    assert str(got) == "B. Dog" and got.reasoning == "A bark, so a dog." and got.finished and got.trace_tokens == 31
    cut = PLAIN.answer_of_reply(_reply(None, "length", **{field: "A bark, so"}), [])
    assert str(cut) == "" and not cut.finished and cut.reasoning == "A bark, so"


def test_a_servers_reply_with_the_trace_left_in_the_content():
    got = THINKING.answer_of_reply(_reply("<think>A bark.</think>\n\nDog"), [])
    assert str(got) == "Dog" and got.reasoning == "A bark." and got.trace_tokens == 31
    assert PLAIN.answer_of_reply(_reply("Dog"), []) == "Dog"


def test_traces_are_counted_per_task():
    state = ModelNotes()
    THINKING.count(state, ["a", "a", "b"], [Reasoned("Dog", "xx"), Reasoned("", "yyyy", False), "plain"])
    counted = state.data_notes["reasoning_traces"]
    assert (counted["a"]["answers"], counted["a"]["traces"], counted["a"]["unfinished"]) == (2, 2, 1)
    assert counted["a"]["mean_trace_chars"] == 3.0 and counted["b"]["traces"] == 0
    state = ModelNotes()
    PLAIN.count(state, ["a"], ["Dog"])  # a model that does not think, and wrote no trace: nothing to note
    assert "reasoning_traces" not in state.data_notes


def test_a_model_not_known_to_think_keeps_an_answer_that_mentions_the_close_marker():
    assert PLAIN.answer("The tag </think> ends a trace. Answer: B", "", []) == "The tag </think> ends a trace. Answer: B"
    assert str(THINKING.answer("A bark.</think>\n\nDog", "", [])) == "Dog"  # a model known to think: a trace


def test_a_thinking_servers_reply_cut_inside_a_trace_its_template_opened_is_no_answer():
    """No parser split it and no marker is in the content: the prompt opened the trace and the limit stopped it."""
    cut = THINKING.answer_of_reply(_reply("Let me think about the options, A says", "length"), [])
    assert str(cut) == "" and not cut.finished and cut.reasoning.startswith("Let me think")
    assert PLAIN.answer_of_reply(_reply("A long answer cut by the limit", "length"), []) == "A long answer cut by the limit"
