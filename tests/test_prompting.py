from lm_eval_audio.audio.markers import decode_chat_context, encode_chat_context, flatten_without_template, place_audio

import pytest


def test_markers_replaced_in_order_and_chunks_expand():
    msgs = place_audio([{"role": "user", "content": "A <audio> B <audio> C"}], [1, 2])
    kinds = [p["type"] for p in msgs[0]["content"]]
    assert kinds == ["text", "audio", "text", "audio", "audio", "text"]
    assert [p["audio"] for p in msgs[0]["content"] if p["type"] == "audio"] == ["clip 1", "clip 2", "clip 2"]


def test_no_marker_puts_audio_first_in_last_user_turn():
    msgs = place_audio(
        [{"role": "user", "content": "shot"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "Q?"}],
        [1],
    )
    assert msgs[0]["content"] == "shot"
    assert [p["type"] for p in msgs[2]["content"]] == ["audio", "text"]


def test_marker_without_audio_is_an_error():
    with pytest.raises(ValueError, match="no audio"):
        place_audio([{"role": "user", "content": "<audio> Q?"}], [])


def test_chat_context_round_trip():
    ctx = encode_chat_context([{"role": "user", "content": "<audio> hi"}], add_generation_prompt=False)
    assert decode_chat_context(ctx) == ([{"role": "user", "content": "<audio> hi"}], False)
    assert decode_chat_context("plain text") is None


def test_flatten_without_template():
    msgs = place_audio([{"role": "user", "content": "<audio>What?"}], [1])
    assert flatten_without_template(msgs, "<A>") == "<A>What?"


def test_few_shot_markers_without_clips_explain_the_cause():
    context = "<audio>Q1? A1\n\n<audio>Q2? A2\n\n<audio>Q?"
    with pytest.raises(ValueError, match="3 <audio> marker.*1 clip.*few-shot.*--num_fewshot 0"):
        place_audio([{"role": "user", "content": context}], [1])
