"""hf-audio on tiny random-weight models: audio reaches the model, batching changes nothing."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
import torch
from conftest import tone
from conftest import gen_request as gen
from conftest import ll_request as ll
from lm_eval.api.instance import Instance

from lm_eval_audio.model_wrappers.failed_requests import EveryRequestFailed, FailedResponse
from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM



@pytest.fixture(scope="module")
def qwen(tiny_qwen2_audio):
    return HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")


def test_generation_identical_for_batch_size_1_and_8(tiny_qwen2_audio, clips):
    requests = [gen(f"<audio>Describe clip {i}.", [p]) for i, p in enumerate(clips)]
    one = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1)
    eight = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=8)
    out1 = one.generate_until(requests)
    out8 = eight.generate_until(requests)
    assert len(out1) == 16
    assert len(set(out1)) >= 8, "outputs should depend on the clip, or the comparison proves little"
    assert out1 == out8


def test_loglikelihood_identical_for_batch_size_1_and_8(tiny_qwen2_audio, clips):
    requests = [ll(f"<audio>Clip {i} says", " hello there", [p]) for i, p in enumerate(clips)]
    one = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1)
    eight = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=8)
    a = one.loglikelihood(requests)
    b = eight.loglikelihood(requests)
    np.testing.assert_allclose([x for x, _ in a], [x for x, _ in b], rtol=0, atol=1e-4)
    assert [g for _, g in a] == [g for _, g in b]


def test_audio_changes_the_score(qwen, clips):
    """The same prompt over two different clips gives two different log-likelihoods."""
    a, b = qwen.loglikelihood([ll("<audio>It sounds like", " a bird", [clips[0]]), ll("<audio>It sounds like", " a bird", [clips[9]])])
    assert abs(a[0] - b[0]) > 1e-6


class _FaultyProcessor:
    """The real processor, with its __call__ replaced by ``call(real, text, audio, **kwargs)``."""

    def __init__(self, real, call):
        self._real, self._call = real, call

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __call__(self, text, audio=None, **kwargs):
        return self._call(self._real, text, audio, **kwargs)


def test_processor_dropping_audio_fails_loudly(tiny_qwen2_audio, clips):
    """The lm-eval/lmms-eval bug: audio silently ignored by the processor. We refuse to run."""
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")

    def drops_audio(real, text, audio, sampling_rate=None, **kwargs):
        return real.tokenizer([t.replace("<|AUDIO|>", "") for t in text], **kwargs)

    model.processor = _FaultyProcessor(model.processor, drops_audio)
    with pytest.raises(RuntimeError, match="no audio features"):
        model.generate_until([gen("<audio>What is it?", [clips[0]])])


def test_mixed_text_and_audio_requests_in_one_call(qwen, clips):
    out = qwen.generate_until([gen("Say hi.", None), gen("<audio>What is it?", [clips[1]]), gen("Count to three.")])
    assert len(out) == 3 and all(isinstance(o, str) for o in out)
    scores = qwen.loglikelihood([ll("The capital of France is", " Paris"), ll("<audio>It is", " Paris", [clips[2]])])
    assert all(np.isfinite(s) and s < 0 for s, _ in scores)


def test_text_loglikelihood_matches_a_direct_forward_pass(qwen):
    context, continuation = "The quick brown fox", " jumps over"
    (score, greedy), = qwen.loglikelihood([ll(context, continuation)])
    tok = qwen.tokenizer
    whole = tok(context + continuation, add_special_tokens=False)["input_ids"]
    n_ctx = len(tok(context, add_special_tokens=False)["input_ids"])
    with torch.no_grad():
        logits = qwen.model(input_ids=torch.tensor([whole])).logits[0].float()
    lp = torch.log_softmax(logits, -1)
    expected = sum(float(lp[i - 1, whole[i]]) for i in range(n_ctx, len(whole)))
    assert score == pytest.approx(expected, abs=1e-5)


def test_loglikelihood_rolling_is_sum_over_tokens(qwen):
    text = "Hello world, how are you today? The quick brown fox jumps over the lazy dog."
    (total,) = qwen.loglikelihood_rolling([Instance("loglikelihood_rolling", {}, (text,), 0)])
    tok = qwen.tokenizer
    ids = [tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id] + tok(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        lp = torch.log_softmax(qwen.model(input_ids=torch.tensor([ids])).logits[0].float(), -1)
    expected = sum(float(lp[i - 1, ids[i]]) for i in range(1, len(ids)))
    assert total == pytest.approx(expected, abs=1e-4)


def test_placeholder_positions_the_audio(qwen, clips):
    item_before = qwen._render(_item("<audio>Question?"), [[np.zeros(10)]]).text
    item_after = qwen._render(_item("Question? <audio>"), [[np.zeros(10)]]).text
    assert item_before.index("<|AUDIO|>") < item_before.index("Question?")
    assert item_after.index("<|AUDIO|>") > item_after.index("Question?")
    no_marker = qwen._render(_item("Question?"), [[np.zeros(10)]]).text
    assert no_marker.index("<|AUDIO|>") < no_marker.index("Question?")


def _item(context):
    from lm_eval_audio.model_wrappers.request_parts import RequestParts as _Item

    return _Item(0, context, None, ["x.wav"])


def test_long_audio_truncate_and_chunk(tiny_qwen2_audio, tmp_path):
    path = tmp_path / "long.wav"
    sf.write(path, tone(5.0), 16000)
    counts = {}
    for policy in ("truncate", "chunk"):
        model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", max_audio_seconds=2, long_audio=policy)
        model._long_counts = {"truncated": 0, "chunked": 0}
        clips = model._clips(_item_with(str(path)))
        inputs = model._process([model._render(_item_with(str(path)), clips)], [clips])
        counts[policy] = int((inputs["input_ids"] == model._audio_token_id).sum())
        assert [len(c) for c in clips[0]] == ([32000] if policy == "truncate" else [32000, 32000, 16000])
    assert counts["chunk"] > counts["truncate"] > 0


def _item_with(path):
    from lm_eval_audio.model_wrappers.request_parts import RequestParts as _Item

    return _Item(0, "<audio>What is it?", None, [path])


def test_marker_count_mismatch_names_the_problem(qwen, clips):
    with pytest.raises(ValueError, match="2 <audio> marker"):
        qwen.generate_until([gen("<audio> and <audio>?", [clips[0]])])


def test_missing_audio_file_is_named(qwen, clips, tmp_path):
    """A clip that cannot be read fails its own request, named; a call with nothing answered stops."""
    missing = str(tmp_path / "nope.wav")
    qwen.notes.start_run()
    answers = qwen.generate_until([gen("<audio>What?", [clips[0]]), gen("<audio>What?", [missing])])
    assert answers[0] == qwen.generate_until([gen("<audio>What?", [clips[0]])])[0]
    assert isinstance(answers[1], FailedResponse) and answers[1] == "" and "nope.wav" in answers[1].error
    (errors,) = qwen.notes.data_notes["failed_requests"].values()
    assert len(errors) == 1 and "nope.wav" in errors[0]
    with pytest.raises(EveryRequestFailed, match="every request failed.*nope.wav"):
        qwen.generate_until([gen("<audio>What?", [missing])])
    qwen.notes.start_run()


def test_a_use_cache_rerun_whose_remaining_requests_all_fail_still_finishes(qwen, clips, tmp_path):
    """With --use_cache a re-run asks the model only for what failed before; if those fail again,
    the answers from the cache still stand: counted failures, not a stopped run."""
    from lm_eval.api.model import CacheHook, CachingLM

    corrupt = tmp_path / "corrupt.wav"  # it exists, so the cache key can hash it; it does not decode
    corrupt.write_bytes(b"RIFF" + bytes(range(256)) * 8)
    requests = [gen("<audio>What?", [clips[1]]), gen("<audio>What?", [str(corrupt)])]
    qwen.notes.start_run()
    first = CachingLM(qwen, str(tmp_path / "cache.db")).generate_until(requests)
    second = CachingLM(qwen, str(tmp_path / "cache.db")).generate_until(requests)
    assert second[0] == first[0] and isinstance(second[1], FailedResponse)
    assert len(qwen.notes.data_notes["failed_requests"]["unknown_task/doc None"]) == 2  # once per run
    with pytest.raises(EveryRequestFailed, match="corrupt.wav"):  # nothing cached, nothing answered
        CachingLM(qwen, str(tmp_path / "other.db")).generate_until(requests[1:])
    qwen.notes.start_run()
    qwen.set_cache_hook(CacheHook(None))  # the shared model leaves the cache as it came


def test_unknown_model_arg_is_rejected(tiny_qwen2_audio):
    with pytest.raises(ValueError, match="unknown model_args max_new_tokenz \\(did you mean max_new_tokens\\?\\)"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", max_new_tokenz=3)


def test_array_and_bytes_references(qwen, clips):
    data, sr = sf.read(clips[3], dtype="float32")
    with open(clips[3], "rb") as f:
        raw = f.read()
    scores = qwen.loglikelihood(
        [
            ll("<audio>It is", " a tone", [clips[3]]),
            ll("<audio>It is", " a tone", [{"array": data, "sampling_rate": sr}]),
            ll("<audio>It is", " a tone", [{"bytes": raw, "path": None}]),
        ]
    )
    assert scores[0][0] == pytest.approx(scores[1][0], abs=1e-5)
    assert scores[0][0] == pytest.approx(scores[2][0], abs=1e-5)


def test_batch_size_auto_halves_on_out_of_memory(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size="auto", max_batch_size=16)
    real = model._generate_batch

    def small_memory(batch):
        if len(batch) > 4:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(batch)

    model._generate_batch = small_memory
    reference = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1)
    requests = [gen(f"<audio>Clip {i}?", [p]) for i, p in enumerate(clips[:10])]
    assert model.generate_until(requests) == reference.generate_until(requests)
    assert model.batch_sizes == {"generate_until": 4}


def _memory_for(model, rows: int, refuse=()):
    """The model's generate() on a card that holds ``rows`` rows at once, and never the request whose text is in
    ``refuse``."""
    real = model.model.generate

    def generate(**inputs):
        prompts = model.tokenizer.batch_decode(inputs["input_ids"])
        if inputs["input_ids"].shape[0] > rows or any(text in p for p in prompts for text in refuse):
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return real(**inputs)

    model.model.generate = generate


def test_a_batch_that_does_not_fit_is_retried_smaller_counted_and_said(tiny_qwen2_audio, clips, caplog):
    """A fixed --batch_size too large for the card: the batch runs again as two halves, the following batches at the
    smaller size, and the run's notes count the retry; the answers are those of batch size 1."""
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=8)
    _memory_for(model, 4)
    requests = [gen(f"<audio>Clip {i}?", [p]) for i, p in enumerate(clips[:16])]
    reference = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1)
    with caplog.at_level("WARNING", logger="lm_eval.audio.batching"):
        assert model.generate_until(requests) == reference.generate_until(requests)
    assert model.notes.data_notes["out_of_memory_retries"] == {"generate_until": 1}
    assert model.batch_sizes == {"generate_until": 4}
    assert "a batch of 8 generate_until requests ran out of memory (OutOfMemoryError: CUDA out of memory" in caplog.text
    assert "it runs again in batches of 4, and the following generate_until batches at the largest size that fits" \
        in caplog.text


def test_a_request_that_does_not_fit_alone_is_a_counted_failure(tiny_qwen2_audio, clips):
    """Not a crash after the model has answered the others: that request is answered empty and counted."""
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=4)
    _memory_for(model, 4, refuse=("Clip 2?",))
    requests = [gen(f"<audio>Clip {i}?", [p]) for i, p in enumerate(clips[:6])]
    answers = model.generate_until(requests)
    reference = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32").generate_until(requests)
    assert answers[2] == "" and answers[2].error.startswith("out of memory at batch size 1 (OutOfMemoryError")
    assert [a for i, a in enumerate(answers) if i != 2] == [a for i, a in enumerate(reference) if i != 2]
    assert model.notes.data_notes["failed_request_counts"] == {"unknown_task": 1}
    assert model.notes.data_notes["out_of_memory_retries"] == {"generate_until": 2}  # 4 -> 2 -> 1
    assert model.batch_sizes == {"generate_until": 2}  # the others fitted two at a time: the one request lowers nothing


def test_other_errors_are_not_mistaken_for_out_of_memory(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", batch_size="auto")
    model._generate_batch = lambda batch: (_ for _ in ()).throw(RuntimeError("shape mismatch"))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        model.generate_until([gen("<audio>Q?", [clips[0]])])


def test_without_chat_template_uses_the_models_audio_marker(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", chat_template=False)
    assert model._render(_item("<audio>Question?"), [[np.zeros(10)]]).text == "<|audio_bos|><|AUDIO|><|audio_eos|>Question?"
    assert len(model.generate_until([gen("<audio>Question?", [clips[0]])])) == 1


def test_lm_eval_chat_template_turns_are_rendered_with_the_audio(qwen, clips):
    """--apply_chat_template: lm-eval hands us turns before the audio; we render them later."""
    context = qwen.apply_chat_template([{"role": "user", "content": "<audio>What is it?"}])
    assert qwen._render(_item(context), [[np.zeros(10)]]).text == qwen._render(_item("<audio>What is it?"), [[np.zeros(10)]]).text
    (score_turns, _), (score_plain, _) = qwen.loglikelihood(
        [ll(context, " a tone", [clips[0]]), ll("<audio>What is it?", " a tone", [clips[0]])]
    )
    assert score_turns == pytest.approx(score_plain, abs=1e-5)


def test_system_prompt_becomes_the_system_turn(tiny_qwen2_audio):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", system_prompt="Listen carefully.")
    text = model._render(_item("<audio>What is it?"), [[np.zeros(10)]]).text
    assert text.startswith("<|im_start|>system\nListen carefully.<|im_end|>")
    assert "You are a helpful assistant." not in text


@pytest.fixture(scope="module")
def qwen_bs8(tiny_qwen2_audio):
    return HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=8)


def test_batches_never_mix_generation_settings(qwen, qwen_bs8, clips):
    """Text-only and audio requests of tasks with different gen_kwargs, batched together."""
    short = {"until": ["\n"], "max_gen_toks": 2, "do_sample": False}
    long = {"until": ["zzz"], "max_gen_toks": 12, "do_sample": False}
    requests = [
        gen("Say hi.", None, short),
        gen("<audio>What is it?", [clips[4]], long),
        gen("Count to three.", None, long),
        gen("<audio>Describe.", [clips[5]], short),
        gen("<audio>Again?", [clips[6]], long),
    ]
    one, eight = qwen.generate_until(requests), qwen_bs8.generate_until(requests)
    assert one == eight
    n_tokens = [len(qwen.tokenizer(o, add_special_tokens=False)["input_ids"]) for o in one]
    # 2 new tokens against 12 (re-tokenizing a random model's text can merge or split a token or so)
    assert max(n_tokens[0], n_tokens[3]) <= 3 and min(n_tokens[1], n_tokens[2], n_tokens[4]) >= 8


def test_text_and_audio_requests_of_one_call_are_batch_invariant(qwen, qwen_bs8, clips):
    requests = [gen("Say hi."), gen("<audio>What is it?", [clips[1]]), gen("Count to three."), gen("<audio>Q?", [clips[8]])]
    assert qwen_bs8.generate_until(requests) == qwen.generate_until(requests)
    lls = [ll("The capital of France is", " Paris"), ll("<audio>It is", " Paris", [clips[2]]), ll("", " Paris")]
    a, b = qwen.loglikelihood(lls), qwen_bs8.loglikelihood(lls)
    np.testing.assert_allclose([x for x, _ in a], [x for x, _ in b], atol=1e-4)


def test_generation_stops_at_the_stop_string(qwen, clips):
    seen = {}
    real = qwen.model.generate

    def spy(**kwargs):
        out = real(**kwargs)
        seen["new_tokens"] = out.shape[1] - kwargs["input_ids"].shape[1]
        return out

    qwen.model.generate = spy
    try:
        stops = {"until": list("etaoinsr "), "max_gen_toks": 64, "do_sample": False}
        (text,) = qwen.generate_until([gen("<audio>Talk.", [clips[3]], stops)])
    finally:
        qwen.model.generate = real
    assert seen["new_tokens"] < 64
    assert not any(s in text for s in stops["until"])


def test_audio_token_missing_from_the_prompt_fails_loudly(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")

    def loses_the_slot(real, text, audio, **kwargs):
        inputs = real(text=text, audio=audio, **kwargs)
        inputs["input_ids"] = inputs["input_ids"].masked_fill(inputs["input_ids"] == model._audio_token_id, 0)
        return inputs

    model.processor = _FaultyProcessor(model.processor, loses_the_slot)
    with pytest.raises(RuntimeError, match="no audio token"):
        model.generate_until([gen("<audio>What is it?", [clips[0]])])


def test_document_without_audio_in_an_audio_task_is_an_error(qwen):
    with pytest.raises(ValueError, match="carries no audio.*What is it"):
        qwen.generate_until([gen("What is it?", [])])
    with pytest.raises(ValueError, match="empty string"):
        qwen.generate_until([gen("What is it?", [""])])


def test_model_args_are_validated(tiny_qwen2_audio):
    assert HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", chat_template="no", audio_prompt="<A>").use_chat_template is False
    with pytest.raises(ValueError, match="chat_template must be true or false"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", chat_template="maybe")
    with pytest.raises(ValueError, match="dtype='float33'"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float33")
    with pytest.raises(ValueError, match="max_audio_seconds must be positive"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", max_audio_seconds=0)


def test_auto_class_fallback(tiny_qwen2_audio, monkeypatch):
    import transformers

    from lm_eval_audio.model_wrappers import hf_loading

    real = transformers.AutoModelForMultimodalLM

    class NotMapped:
        @staticmethod
        def from_pretrained(*args, **kwargs):
            raise ValueError("Unrecognized configuration class Qwen2AudioConfig for this kind of AutoModel")

    class MappedElsewhere:
        from_pretrained = staticmethod(real.from_pretrained)

    monkeypatch.setattr(transformers, "AutoModelForMultimodalLM", NotMapped)
    monkeypatch.setattr(transformers, "AutoModelForImageTextToText", MappedElsewhere)
    assert type(hf_loading.load_model(tiny_qwen2_audio)).__name__ == "Qwen2AudioForConditionalGeneration"
    for name in ("AutoModelForImageTextToText", "AutoModelForSpeechSeq2Seq", "AutoModelForCausalLM"):
        monkeypatch.setattr(transformers, name, NotMapped)
    with pytest.raises(ValueError, match="no transformers auto class can load.*trust_remote_code"):
        hf_loading.load_model(tiny_qwen2_audio)


def test_a_long_clip_shared_by_choices_is_decoded_and_counted_once(tiny_qwen2_audio, tmp_path, monkeypatch):
    path = tmp_path / "long.wav"
    sf.write(path, tone(3.0), 16000)
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", max_audio_seconds=1, batch_size=4)
    from lm_eval_audio.audio import decoding

    calls = []
    real_load = decoding.load
    monkeypatch.setattr(decoding, "load", lambda ref, sr: calls.append(ref) or real_load(ref, sr))
    model.loglikelihood([ll("<audio>Digit:", f" {w}", [str(path)]) for w in ("one", "two", "three", "four", "five")])
    assert len(calls) == 1
    assert len(model._long_clips["truncated"]) == 1


def test_unavailable_audio_is_answered_empty_without_the_model(qwen, clips, caplog):
    """A loader's {"unavailable": reason} reference: no model call for that row, the rest unchanged."""
    gone = {"path": "/data/missing.wav", "unavailable": "missing audio file: /data/missing.wav"}
    plain = qwen.generate_until([gen("<audio>Say it.", [clips[0]]), gen("<audio>Say it.", [clips[1]])])
    with caplog.at_level("WARNING", logger="lm_eval.audio"):
        mixed = qwen.generate_until(
            [gen("<audio>Say it.", [clips[0]]), gen("<audio>Say it.", [gone]), gen("<audio>Say it.", [clips[1]])]
        )
    assert mixed == [plain[0], "", plain[1]]
    assert "1 request(s) have clips the loader marked unavailable" in caplog.text and "missing audio file" in caplog.text
    assert qwen.loglikelihood([ll("<audio>It is", " yes", [gone])]) == [(float("-inf"), False)]


def test_answers_reach_the_request_cache_batch_by_batch(tiny_qwen2_audio, clips, tmp_path):
    """A run that dies midway (here the third batch raises) keeps the batches already answered in
    lm-eval's --use_cache database, under the keys a re-run looks up, and the re-run asks only for the rest."""
    from lm_eval.api.model import CachingLM

    requests = [gen(f"<audio>Describe clip {i}.", [p]) for i, p in enumerate(clips)]
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=4)
    expected = model.generate_until(requests)
    cached = CachingLM(model, str(tmp_path / "cache.db"))
    run_rows, batches = model._generate_rows, []

    def dies_on_the_third_batch(batch):
        batches.append(len(batch))
        if len(batches) == 3:
            raise RuntimeError("killed")
        return run_rows(batch)

    model._generate_rows = dies_on_the_third_batch
    with pytest.raises(RuntimeError, match="killed"):
        cached.generate_until(requests)
    assert len(cached.dbdict) == 8
    batches.clear()
    assert cached.generate_until(requests) == expected
    assert sum(batches) == 8  # only the requests never answered


def test_lm_evals_default_device_on_a_cpu_machine_is_said_at_info_another_refused(tiny_qwen2_audio, caplog):
    """lm-eval's CLI passes cuda:0 when --device is not given: no warning for what nobody asked. A device named
    otherwise (``device=`` in the model arguments, or lm-eval's Python API) that the machine lacks is one error, not
    hours on the CPU; a --device the user named is refused by the seam before this (tests/test_entry_points.py)."""
    import logging

    from lm_eval_audio.model_wrappers.devices import DeviceNotFound
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    if torch.cuda.is_available():
        pytest.skip("a CUDA machine uses the device")
    with caplog.at_level(logging.INFO, logger="lm_eval.audio"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cuda:0", dtype="float32")
    said = [(r.levelno, r.getMessage()) for r in caplog.records if "cpu" in r.getMessage()]
    assert said == [(logging.INFO, "hf-audio: no CUDA device: running on cpu")]
    with pytest.raises(DeviceNotFound, match="hf-audio: --device cuda:1: torch .* sees no CUDA device here"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cuda:1", dtype="float32")
