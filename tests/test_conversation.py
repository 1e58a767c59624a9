"""Spoken conversations (model_wrappers.conversation): a document of several turns answered round by round, each
round asked with the model's own earlier answers in its context, one call per round for every conversation of the
call; what each wrapper and the cascade's LLM receive."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from lm_eval.api.instance import Instance

from lm_eval_audio.audio.markers import (AUDIO_PLACEHOLDER, decode_chat_context, encode_chat_context,
                                         encode_conversation)
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.model_wrappers.wrapper_base import AudioLM, audio_arg

GEN = {"until": [], "max_gen_toks": 8}


class Recording(AudioLM):
    """A wrapper whose generation is scripted: ``reply(request) -> answer``; it keeps every call's requests."""

    WHO = "recording"
    ARGS = (audio_arg(),)

    def __init__(self, reply) -> None:
        super().__init__()
        self.reply, self.calls = reply, []

    def _generate_until(self, requests, disable_tqdm: bool) -> list:
        self.calls.append(list(requests))
        return [self.reply(r) for r in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


def _talk(doc_id: int, clips: list[str], context: str | None = None) -> Instance:
    context = context or encode_conversation([AUDIO_PLACEHOLDER] * len(clips))
    return Instance("generate_until", {}, (context, dict(GEN), {"audio": list(clips)}), idx=0,
                    metadata=("talk_task", doc_id, 1))


def _turns(request) -> list[tuple[str, str]]:
    messages, add_generation_prompt = decode_chat_context(request.args[0])
    assert add_generation_prompt is True
    return [(m["role"], m["content"]) for m in messages]


def test_each_round_is_asked_with_the_earlier_answers_and_every_conversation_of_a_round_in_one_call():
    model = Recording(lambda r: f"answer {r.doc_id}.{r.idx}")
    plain = Instance("generate_until", {}, ("What is said?", dict(GEN), {"audio": ["p.wav"]}), idx=0,
                     metadata=("plain_task", 7, 1))
    answers = model.generate_until([_talk(0, ["a1.wav", "a2.wav"]), plain, _talk(1, ["b1.wav", "b2.wav", "b3.wav"])])
    assert answers == [["answer 0.0", "answer 0.1"], "answer 7.0", ["answer 1.0", "answer 1.1", "answer 1.2"]]
    # the plain request as it came; then one call per round, the two conversations together while both last
    assert [[(r.task_name, r.doc_id, r.idx) for r in call] for call in model.calls] == [
        [("plain_task", 7, 0)], [("talk_task", 0, 0), ("talk_task", 1, 0)], [("talk_task", 0, 1), ("talk_task", 1, 1)],
        [("talk_task", 1, 2)]]
    assert model.calls[0][0] is plain
    third = model.calls[3][0]
    assert _turns(third) == [("user", "<audio>"), ("assistant", "answer 1.0"), ("user", "<audio>"),
                             ("assistant", "answer 1.1"), ("user", "<audio>")]
    assert third.args[1] == GEN and third.args[2] == {"audio": ["b1.wav", "b2.wav", "b3.wav"]}
    assert model.calls[1][0].args[2] == {"audio": ["a1.wav"]}


def test_use_cache_gets_the_conversation_whole_and_no_round_apart():
    stored = []

    class Hook:
        def add_partial(self, attr, req, res):
            stored.append((req[0][:12], res))

    model = Recording(lambda r: f"answer {r.idx}")
    model._generate_until = lambda requests, disable_tqdm: [
        (model.cache_hook.add_partial("generate_until", r.args, model.reply(r)), model.reply(r))[1] for r in requests]
    model.cache_hook = Hook()
    plain = Instance("generate_until", {}, ("Say it.", dict(GEN)), idx=0, metadata=("plain_task", 1, 1))
    assert model.generate_until([_talk(0, ["a.wav", "b.wav"]), plain]) == [["answer 0", "answer 1"], "answer 0"]
    assert stored == [("Say it.", "answer 0")] and isinstance(model.cache_hook, Hook)  # the rounds: none


def test_a_spoken_rounds_own_text_is_what_the_next_round_hears():
    from lm_eval_audio.metrics.spoken_answer import SpokenAnswer

    audio = {"path": "x.wav", "sample_rate": 16000, "seconds": 1.0, "sha256": "0"}
    model = Recording(lambda r: SpokenAnswer(f"heard {r.idx}", f"wrote {r.idx}", audio, "asr"))
    (answer,) = model.generate_until([_talk(0, ["a.wav", "b.wav"])])
    assert [str(a) for a in answer] == ["heard 0", "heard 1"] and [a.text for a in answer] == ["wrote 0", "wrote 1"]
    assert _turns(model.calls[1][0])[1] == ("assistant", "wrote 0")


def test_a_failed_round_ends_its_conversation_counted_and_the_others_go_on():
    model = Recording(lambda r: failed_requests.record(model.notes, "recording", r, "the server broke")
                      if (r.doc_id, r.idx) == (0, 0) else f"ok {r.doc_id}.{r.idx}")
    first, second = model.generate_until([_talk(0, ["a.wav", "b.wav", "c.wav"]), _talk(1, ["d.wav", "e.wav"])])
    assert second == ["ok 1.0", "ok 1.1"]
    assert all(failed_requests.is_failed(a) for a in first) and failed_requests.holds_failure(first)
    assert [a.error for a in first[1:]] == [f"round {k} was not asked: round 1 of the conversation failed"
                                            for k in (2, 3)]
    assert [(r.doc_id, r.idx) for call in model.calls for r in call] == [(0, 0), (1, 0), (1, 1)]  # never asked
    noted = json.dumps(model.notes.data_notes, default=str)
    assert noted.count("round 1 of the conversation failed") == 2 and "the server broke" in noted


def test_an_unavailable_clip_is_not_run_in_any_round():
    model = Recording(lambda r: failed_requests.not_run("clip missing", "generate_until") if r.doc_id == 0
                      else "ok")
    (answer,) = model.generate_until([_talk(0, [{"path": "a.wav", "unavailable": "clip missing"}, "b.wav"])])
    assert [a.not_run for a in answer] == [True, True] and "clip missing" in answer[1].error


def test_lm_evals_chat_template_and_system_instruction_come_before_the_conversation():
    conversation = encode_conversation(["<audio>", "<audio>"])
    chat = encode_chat_context([{"role": "system", "content": "Be brief."}, {"role": "user", "content": conversation}])
    for context in (chat, "Be brief.\n\n" + conversation):
        model = Recording(lambda r: "fine")
        model.generate_until([_talk(0, ["a.wav", "b.wav"], context)])
        assert _turns(model.calls[1][0]) == [("system", "Be brief."), ("user", "<audio>"), ("assistant", "fine"),
                                             ("user", "<audio>")]


def test_a_benchmarks_given_context_comes_after_the_system_turn_and_before_the_first_spoken_turn():
    given = [{"role": "user", "content": "I have two cats."}, {"role": "assistant", "content": "Two pets."}]
    conversation = encode_conversation(["<audio>"], given)
    chat = encode_chat_context([{"role": "system", "content": "Be brief."}, {"role": "user", "content": conversation}])
    for context, system in ((conversation, []), (chat, [("system", "Be brief.")])):
        model = Recording(lambda r: "three")
        assert model.generate_until([_talk(0, ["a.wav"], context)]) == [["three"]]
        (asked,) = model.calls[0]
        assert _turns(asked) == [*system, ("user", "I have two cats."), ("assistant", "Two pets."), ("user", "<audio>")]
        assert asked.args[2] == {"audio": ["a.wav"]}
    with pytest.raises(ValueError, match="a user or assistant turn of text"):
        encode_conversation(["<audio>"], [{"role": "system", "content": "x"}])


def test_a_conversation_whose_clips_do_not_pair_with_its_turns_is_refused_by_document():
    with pytest.raises(ValueError, match="talk_task document 3: a conversation of 2 turn.* carries 1 clip"):
        Recording(lambda r: "x").generate_until([Instance(
            "generate_until", {}, (encode_conversation(["<audio>", "<audio>"]), dict(GEN), {"audio": ["a.wav"]}),
            idx=0, metadata=("talk_task", 3, 1))])


def test_the_cascade_puts_each_rounds_transcript_in_its_own_turn():
    from lm_eval_audio.model_wrappers.cascade import DEFAULT_PROMPT, CascadeLM

    cascade = SimpleNamespace(template=DEFAULT_PROMPT)
    context = encode_chat_context([{"role": "user", "content": "<audio>"}, {"role": "assistant", "content": "Hi."},
                                   {"role": "user", "content": "<audio>"}])
    turns = [m["content"] for m in decode_chat_context(CascadeLM._prompt(cascade, context, ["first", "second"]))[0]]
    one = decode_chat_context(CascadeLM._prompt(cascade, encode_chat_context([{"role": "user", "content": "<audio>"}]),
                                                ["first"]))[0][0]["content"]
    assert turns == [one, "Hi.", one.replace('"first"', '"second"')]
    assert '"first"' in one and "clip" not in one.lower()


def test_hf_audio_hears_every_earlier_clip_and_reads_its_own_earlier_answer(tiny_qwen2_audio, clips):
    """Round 2 of a conversation on a (tiny) Qwen2-Audio: both clips in their own user turns, round 1's answer as
    the assistant turn between them, in the model's chat template."""
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")
    rendered, render = [], model._render
    model._render = lambda item, audio, *more: rendered.append(render(item, audio, *more)) or rendered[-1]
    (answer,) = model.generate_until([_talk(0, clips[:2])])
    assert len(answer) == 2 and len(rendered) == 2
    clip = "<|audio_bos|><|AUDIO|><|audio_eos|>"
    assert rendered[0].text.count(clip) == 1 and rendered[1].text.count(clip) == 2
    assert rendered[1].text.startswith(rendered[0].text)  # round 1's prompt, then its answer, then round 2's clip
    # Qwen2-Audio's own template numbers the clips of a conversation
    assert rendered[1].text[len(rendered[0].text):] == \
        f"{answer[0]}<|im_end|>\n<|im_start|>user\nAudio 2: {clip}\n<|im_end|>\n<|im_start|>assistant\n"


def test_openai_audio_sends_each_clip_in_its_turn_and_its_own_earlier_answer(clips):
    from scripted_judge import ScriptedJudge, audio_parts

    from lm_eval_audio.model_wrappers.openai_audio import OpenAIAudioLM

    replies = iter(["It is a tone.", "Lower than the first."])
    with ScriptedJudge(models=("served-audio-lm",), reply=lambda prompt: next(replies)) as server:
        lm = OpenAIAudioLM(model="served-audio-lm", base_url=server.base_url, retry_base_seconds=0.01)
        (answer,) = lm.generate_until([_talk(0, clips[:2])])
        bodies = list(server.requests)
    assert answer == ["It is a tone.", "Lower than the first."]
    roles = [(m["role"], [p["type"] for p in m["content"]] if isinstance(m["content"], list) else m["content"])
             for m in bodies[1]["messages"]]
    assert roles == [("user", ["input_audio"]), ("assistant", "It is a tone."), ("user", ["input_audio"])]
    assert len(audio_parts(bodies[0])) == 1 and audio_parts(bodies[1])[0] == audio_parts(bodies[0])[0]
