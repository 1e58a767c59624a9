"""The families whose audio path is not padding-invariant (Qwen3-Omni, Phi-4-multimodal, Gemma 3n, Granite-Speech and
its 4.1 plus): each request's audio is encoded as at batch size 1, the batch decoded together (clip_encoding), so a
batch of 4 or 8 with clips of very different lengths answers exactly as batch size 1, in a handful of model calls."""

from __future__ import annotations

import family_proofs
import numpy as np
import pytest
import torch
from conftest import gen_request as gen
from conftest import ll_request as ll
from conftest import tone

from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

FAMILIES = family_proofs.encoded_alone()
GREEDY_8 = {"until": ["\n"], "max_gen_toks": 8, "do_sample": False}
# Clips from 0.4 s to 4.9 s in one batch: the shortest is under one of Qwen3-Omni's 1 s encoder chunks, the longest
# twelve times its length.
SECONDS = (0.4, 4.9, 0.7, 2.3, 1.1, 3.7, 0.5, 4.2, 1.6, 0.9, 2.9, 0.6, 4.5, 1.3, 3.1, 0.8)


@pytest.fixture(scope="module")
def varied_clips(tmp_path_factory) -> list[str]:
    import soundfile as sf

    folder = tmp_path_factory.mktemp("varied")
    paths = []
    for i, seconds in enumerate(SECONDS):
        path = folder / f"clip_{i:02d}.wav"
        sf.write(path, tone(seconds, freq=180 + 70 * i, seed=i), 16000)
        paths.append(str(path))
    return paths


def _prompt_forwards(model) -> tuple[list[int], object]:
    """The rows of each prompt forward (a forward over more than one position: a generate()'s prefill or a prompt pass)
    with audio, recorded while the handle is in place."""
    rows: list[int] = []

    def hook(module, args, kwargs):
        ids = kwargs.get("input_ids")
        if ids is not None and ids.shape[1] > 1 and bool((ids == model._audio_token_id).any()):
            rows.append(ids.shape[0])

    return rows, model.model.register_forward_pre_hook(hook, with_kwargs=True)


@pytest.mark.parametrize("tiny_model", family_proofs.first_quick_rest_slow(FAMILIES))
def test_a_batch_answers_exactly_as_batch_size_1_in_two_calls_per_sixteen_clips(tiny_model, request, varied_clips):
    """Greedy answers identical and log-likelihoods within 1e-4 at batch sizes 1, 4 and 8; at batch 8 the 16 requests
    with audio take 2 generate() calls of 8 rows (not 16 of one), and the audio encoder runs once per request (or,
    for Qwen3-Omni, once per run of requests whose clips encode exactly alike together)."""
    pretrained = request.getfixturevalue(tiny_model)
    generation = [gen(f"<audio>Describe clip {i}.", [p], GREEDY_8) for i, p in enumerate(varied_clips)]
    choices = [ll("<audio>Which digit?", c, [p]) for p in varied_clips[:8] for c in (" one", " two")]
    answers, scores = {}, {}
    for batch_size in (1, 4, 8):
        model = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=batch_size)
        rows, handle = _prompt_forwards(model)
        encoder, encoded = model.adapter.encoded_alone, []
        original = encoder.original
        encoder.original = lambda *a, seen=encoded, run=original, **k: (seen.append(a[0].shape[0]), run(*a, **k))[1]
        try:
            answers[batch_size] = model.generate_until(generation)
            generate_rows = list(rows)
            scores[batch_size] = model.loglikelihood(choices)
        finally:
            handle.remove()
        if batch_size == 8:
            assert generate_rows == [8, 8]
            assert sum(encoded) == 16 + 8  # 16 answers' clips, then 8 documents' prompts' clips
            if model.adapter.audio_method.together is None:
                assert set(encoded) == {1}  # every request's clip encoded in a call of its own
            else:  # Qwen3-Omni: the requests whose clips hold a whole encoder chunk (1 s) share calls
                assert len(encoded) < 24 and max(encoded) > 1
    assert len(set(answers[1])) > 2  # the tiny model's answers differ from clip to clip
    for batch_size in (4, 8):
        assert answers[batch_size] == answers[1]
        assert [g for _, g in scores[batch_size]] == [g for _, g in scores[1]]
        assert max(abs(a - b) for (a, _), (b, _) in zip(scores[batch_size], scores[1])) < 1e-4


@pytest.mark.parametrize("tiny_model", FAMILIES)
def test_the_families_audio_path_is_not_padding_invariant(tiny_model, request):
    """Why the above is needed: the processor's own batch, encoded in one call by the model's own audio method, moves
    the short clip's next-token log-probs by more than the 1e-4 the batch-size tests allow."""
    pretrained = request.getfixturevalue(tiny_model)
    model = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32")
    encoder = model.adapter.encoded_alone
    turns = [{"role": "user", "content": [{"type": "audio"}, {"type": "text", "text": "Which digit?"}]}]
    prompt = model.processor.apply_chat_template(
        model.adapter.messages(turns, getattr(model.processor, "audio_token", None)), tokenize=False,
        add_generation_prompt=True)
    short, longer = tone(0.5, 300, seed=1), tone(4.3, 500, seed=2)

    def first_row(clips):  # the first request's next-token log-probs in the processor's batch of len(clips)
        inputs = model.processor(text=[prompt] * len(clips), audio=clips, return_tensors="pt", padding=True,
                                 add_special_tokens=False)
        model.adapter.before_call(True)
        width = int(inputs["attention_mask"][0].sum())
        with torch.no_grad():
            return torch.log_softmax(model.model(**inputs).logits[0, width - 1], -1)

    with pytest.raises(RuntimeError, match="called on 2 clips without its requests' own inputs"):
        first_row([short, longer])  # hf-audio's model never encodes several requests' clips in one call
    setattr(encoder.owner, encoder.method.name, encoder.original)  # the model as transformers builds it
    moved = float((first_row([short]) - first_row([short, longer])).abs().max())
    assert moved > 1e-4, moved


def test_a_request_with_two_clips_keeps_both_in_one_batch(tiny_qwen3_omni, varied_clips):
    """A request's clips stay together (its own processor call), beside single-clip requests of other lengths."""
    requests = [gen("<audio>First, <audio>then?", [varied_clips[0], varied_clips[1]], GREEDY_8),
                *[gen(f"<audio>Clip {i}?", [p], GREEDY_8) for i, p in enumerate(varied_clips[2:7])]]
    one = HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", dtype="float32", batch_size=1).generate_until(requests)
    eight = HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", dtype="float32", batch_size=8)
    assert eight.generate_until(requests) == one
    assert eight.run_record["audio_batching"].startswith("each request's audio through the processor and the audio")


def test_silence_still_changes_the_answers_of_a_batch(tiny_qwen3_omni, varied_clips):
    """The clips reach the model in a batch: the same requests with silence of the same lengths answer otherwise."""
    import soundfile as sf

    model = HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", dtype="float32", batch_size=8)
    silent = []
    for path in varied_clips[:8]:
        data, rate = sf.read(path, dtype="float32")
        silent.append({"array": np.zeros_like(data), "sampling_rate": rate})
    heard = model.generate_until([gen(f"<audio>Clip {i}?", [p], GREEDY_8) for i, p in enumerate(varied_clips[:8])])
    quiet = model.generate_until([gen(f"<audio>Clip {i}?", [p], GREEDY_8) for i, p in enumerate(silent)])
    assert sum(a != b for a, b in zip(heard, quiet)) >= 6


@pytest.mark.parametrize("tiny_model", ["tiny_qwen3_omni", "tiny_phi4_multimodal"])  # a packed join and a padded one
def test_beam_search_repeats_each_requests_encoding_per_beam(tiny_model, request, varied_clips):
    """generate() repeats each row's inputs once per beam: each request's encoded clip is repeated as transformers
    repeats its features, and the answers are those of batch size 1."""
    pretrained = request.getfixturevalue(tiny_model)
    beams = {**GREEDY_8, "num_beams": 2}
    requests = [gen(f"<audio>Clip {i}?", [p], beams) for i, p in enumerate(varied_clips[:6])]
    one = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=1).generate_until(requests)
    four = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=4).generate_until(requests)
    assert four == one and len(set(one)) > 2
    two_clips = [gen("<audio>First, <audio>then?", varied_clips[:2], beams)]
    model = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32")
    answers = model.generate_until([requests[0], *two_clips])  # that request fails alone; the other is answered
    assert answers[0] == one[0] and answers[1] == ""
    assert answers[1].error.startswith(f"{model.family.name} with num_beams=2, num_return_sequences=1 cannot run a "
                                       "request holding several clips")
    assert model.notes.data_notes["failed_request_counts"] == {"unknown_task": 1}


def test_a_transformers_without_the_families_audio_method_stops_in_one_line(tiny_qwen3_omni):
    """A later transformers that renames the method: a refusal at load naming it, not a wrong or crashed run."""
    import dataclasses

    import transformers

    from lm_eval_audio.model_wrappers.clip_encoding import EncodedAlone
    from lm_eval_audio.model_wrappers.families import UnsupportedFamily

    model = HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", dtype="float32")
    renamed = dataclasses.replace(model.adapter.audio_method, name="get_sound_features")
    with pytest.raises(UnsupportedFamily, match=f"hf-audio: Qwen3-Omni: the loaded Qwen3OmniMoeThinkerForConditional"
                                                f"Generation has no model.get_sound_features in transformers "
                                                f"{transformers.__version__}"):
        EncodedAlone(model.model, renamed, "Qwen3-Omni")
