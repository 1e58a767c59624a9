"""``model_args audio=full|none|silence|noise|fragment:N:K``: what each wrapper's model
receives under each condition, and where the condition is recorded."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest
import soundfile as sf
from lm_eval.api.instance import Instance
from scripted_judge import SERVED_MODELS, ScriptedJudge, audio_parts, prompt_text

from conftest import results_json, run_cli, tone
from lm_eval_audio.audio import decoding
from lm_eval_audio.audio.conditions import NOISE_RMS, fragment_bounds, mark, parse, strip_markers, without_audio
from lm_eval_audio.audio.refs import content_digest
from lm_eval_audio.audio.markers import decode_chat_context, encode_chat_context

GREEDY = {"until": [], "max_gen_toks": 4, "do_sample": False}


def _request(context, refs=None, doc_id=0):
    args = (context, dict(GREEDY), {"audio": refs}) if refs is not None else (context, dict(GREEDY))
    return Instance("generate_until", {}, args, idx=0, metadata=("t", doc_id, 1))


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("cond") / "clip.wav"
    sf.write(path, tone(1.003, freq=330, seed=4), 16000, subtype="FLOAT")  # 16047 samples: not a multiple of 4
    return str(path)


def test_parse_accepts_the_conditions_and_names_a_wrong_one():
    # lm-eval's argument parser turns the word none into None
    assert [parse(v).label for v in ("full", "NONE", " silence", "noise", "fragment:4:2", None)] == [
        "full", "none", "silence", "noise", "fragment:4:2", "none"]
    for bad in ("fragment:4:5", "fragment:0:0", "fragment:4", "half", "fragment:4:0"):
        with pytest.raises(ValueError, match=r"audio=.*is not a condition; audio= takes full, none"):
            parse(bad, "hf-audio")


def test_markers_and_audio_parts_are_removed_without_a_trace():
    assert strip_markers("<audio>\nWhat is said?") == "What is said?"
    assert strip_markers("Listen to <audio> and answer.") == "Listen to and answer."
    assert strip_markers("Compare <audio> <audio>.\nQ?") == "Compare.\nQ?"
    assert strip_markers("Question? <audio>") == "Question?"
    assert strip_markers("Question: what?\nAnswer:\n") == "Question: what?\nAnswer:\n"  # no marker: untouched
    assert strip_markers("Listen: <audio>\nWhich one?") == "Listen:\nWhich one?"
    chat = encode_chat_context([{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": [{"type": "audio"}, {"type": "text", "text": "<audio> Q?"}]}])
    messages, _ = decode_chat_context(without_audio(chat))
    assert messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Q?"}]}]


def test_condition_samples_and_digests(clip):
    # the reference carries the condition object (conditions.mark), read by decoding without parsing it again
    whole = decoding.load(clip, 16000)
    assert len(whole) == 16047
    for k in range(1, 5):
        part = decoding.load({"path": clip, "condition": parse(f"fragment:4:{k}")}, 16000)
        first, last = fragment_bounds(16047, 4, k)
        np.testing.assert_array_equal(part, whole[first:last])
    # fragments tile the clip exactly: nothing lost, nothing shared
    assert sum(last - first for first, last in (fragment_bounds(16047, 4, k) for k in range(1, 5))) == 16047
    silence = decoding.load({"path": clip, "condition": parse("silence")}, 16000)
    assert silence.shape == whole.shape and not silence.any()
    noise = decoding.load({"path": clip, "condition": parse("noise")}, 16000)
    assert noise.shape == whole.shape and np.sqrt(np.mean(noise**2)) == pytest.approx(NOISE_RMS, rel=0.05)
    assert abs(np.corrcoef(noise, whole)[0, 1]) < 0.05
    np.testing.assert_array_equal(noise, decoding.load({"path": clip, "condition": parse("noise")}, 16000))  # seeded
    # a fragment of a time slice is a fragment of what the task asked for
    sliced = decoding.load({"path": clip, "start": 0.5, "end": 1.0, "condition": parse("fragment:2:2")}, 16000)
    np.testing.assert_array_equal(sliced, whole[8000 + 4000 : 16000])
    labels = ("silence", "noise", "fragment:4:1", "fragment:4:2")
    digests = {content_digest(mark(clip, parse(c))) for c in labels}
    assert len(digests | {content_digest(clip)}) == 5
    # the digest hashes the condition's label, as it did when references carried the label: --use_cache and
    # transcript caches written before still match
    with open(clip, "rb") as f:
        file_digest = hashlib.sha256(f.read()).hexdigest()
    for c in labels:
        expected = hashlib.sha256(f"file:{file_digest}:None:None:condition={c}".encode()).hexdigest()
        assert content_digest(mark(clip, parse(c))) == expected
    assert decoding.duration_seconds(mark(clip, parse("fragment:4:1"))) == pytest.approx(16047 / 16000 / 4)
    with pytest.raises(ValueError, match=r"clip.wav: audio=fragment:20000:1 leaves no samples"):
        decoding.load(mark(clip, parse("fragment:20000:1")), 16000)


def test_encoding_sends_a_conditioned_clip_as_its_transformed_samples(clip, tmp_path):
    from lm_eval_audio.audio import encoding

    pcm16 = tmp_path / "pcm16.wav"
    sf.write(pcm16, tone(0.5, freq=330, seed=4), 16000, subtype="PCM_16")
    assert encoding.encode(str(pcm16)) == pcm16.read_bytes()  # a 16-bit WAV as it is
    silent = encoding.encode(mark(str(pcm16), parse("silence")))
    samples, rate = sf.read(io.BytesIO(silent), dtype="float32")
    assert rate == 16000 and len(samples) == 8000 and not samples.any()


class _Recorder:
    """The real processor, noting the text and audio of every call."""

    def __init__(self, real):
        self._real, self.calls = real, []

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __call__(self, text, audio=None, **kwargs):
        self.calls.append((list(text), None if audio is None else [np.array(a) for a in audio]))
        return self._real(text=text, audio=audio, **kwargs) if audio is not None else self._real(text=text, **kwargs)


def test_hf_audio_receives_no_audio_zeros_noise_or_exactly_the_kth_slice(tiny_qwen2_audio, clip):
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    whole = decoding.load(clip, 16000)
    heard = {}
    for condition in ("full", "none", "silence", "noise", "fragment:4:3"):
        lm = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", audio=condition)
        lm.processor = recorder = _Recorder(lm.processor)
        (answer,) = lm.generate_until([_request("<audio>What is it?", [clip])])
        assert isinstance(answer, str)
        ((texts, audio),) = recorder.calls
        heard[condition] = (texts[0], audio)
    assert heard["full"][1][0].shape == whole.shape and "<|AUDIO|>" in heard["full"][0]
    text, audio = heard["none"]
    assert audio is None and "<|AUDIO|>" not in text and "<audio>" not in text and "What is it?" in text
    # the same chat template as under full: the conditions differ by the audio alone, never by the prompt's format
    full_text = heard["full"][0]
    opening = full_text[: full_text.index("<|im_start|>user\n") + len("<|im_start|>user\n")]
    assert opening.startswith("<|im_start|>system\n") and text.startswith(opening)
    assert text.endswith("What is it?<|im_end|>\n<|im_start|>assistant\n")
    assert heard["silence"][1][0].shape == whole.shape and not heard["silence"][1][0].any()
    noise = heard["noise"][1][0]
    assert noise.shape == whole.shape and np.sqrt(np.mean(noise**2)) == pytest.approx(NOISE_RMS, rel=0.05)
    first, last = fragment_bounds(len(whole), 4, 3)
    np.testing.assert_array_equal(heard["fragment:4:3"][1][0], whole[first:last])
    with pytest.raises(ValueError, match="hf-audio: audio='quiet' is not a condition"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", audio="quiet")


def test_openai_audio_sends_no_audio_part_or_the_transformed_clip(clip):
    from lm_eval_audio.audio.encoding import _wav
    from lm_eval_audio.model_wrappers.openai_audio import OpenAIAudioLM

    whole = decoding.load(clip, 16000)
    sent = {}
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda prompt: "A") as server:
        for condition in ("none", "silence", "noise", "fragment:2:1"):
            lm = OpenAIAudioLM(model="served-audio-lm", base_url=server.base_url, audio=condition)
            lm.generate_until([_request("Listen: <audio>\nWhich one?", [clip])])
            sent[condition] = server.requests[-1]
        # the same through lm-eval's string parser, which reads the word none as None
        parsed = OpenAIAudioLM.create_from_arg_string(f"model=served-audio-lm,base_url={server.base_url},audio=none")
        assert parsed.audio_condition.label == "none"
    assert audio_parts(sent["none"]) == [] and prompt_text(sent["none"]) == "Listen:\nWhich one?"
    import base64

    (part,) = audio_parts(sent["fragment:2:1"])
    first, last = fragment_bounds(len(whole), 2, 1)
    assert base64.b64decode(part["input_audio"]["data"]) == _wav(whole[first:last], 16000)
    (part,) = audio_parts(sent["silence"])
    assert base64.b64decode(part["input_audio"]["data"]) == _wav(np.zeros_like(whole), 16000)
    (part,) = audio_parts(sent["noise"])
    noise, rate = sf.read(io.BytesIO(base64.b64decode(part["input_audio"]["data"])), dtype="float32")
    assert rate == 16000 and noise.shape == whole.shape
    assert np.sqrt(np.mean(noise**2)) == pytest.approx(NOISE_RMS, rel=0.05)


def test_cascade_under_none_gives_the_llm_the_question_alone(clip, tmp_path):
    from lm_eval_audio.audio.markers import decode_chat_context
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",), reply=lambda prompt: "B") as server:
        lm = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url, audio="none",
                       transcript_cache=str(tmp_path / "t.sqlite"))
        real = lm.transcripts.get_all
        lm.transcripts.get_all = lambda clips, load, *bar: real(clips, load, *bar) if not clips else pytest.fail(
            "nothing to transcribe under audio=none")
        assert lm.generate_until([_request("<audio>Which option?", [clip])]) == ["B"]
        assert prompt_text(server.requests[-1]) == "Which option?"

        class Recorder:  # the LLM behind the cascade: a transformers LLM renders chat turns in its template
            cache_hook = None

            def generate_until(self, instances, disable_tqdm=False):
                self.contexts = [i.args[0] for i in instances]
                return ["B"] * len(instances)

        lm.llm = Recorder()
        lm.generate_until([_request("<audio>Which option?", [clip])])
        # under none the question goes in chat turns as under full, never as plain text without the template
        assert decode_chat_context(lm.llm.contexts[0]) == ([{"role": "user", "content": "Which option?"}], True)


def test_cascade_transcribes_zeros_noise_or_exactly_the_kth_slice(clip, tmp_path):
    from lm_eval_audio.model_wrappers.cascade import CascadeLM

    whole = decoding.load(clip, 16000)
    heard = {}
    with ScriptedJudge(models=SERVED_MODELS + ("text-llm",), reply=lambda prompt: "B") as server:
        for condition in ("full", "silence", "noise", "fragment:4:3"):
            # one transcript cache for all: a condition must not be answered from another's transcript
            lm = CascadeLM(llm="openai", llm_model="text-llm", llm_base_url=server.base_url, audio=condition,
                           transcript_cache=str(tmp_path / "t.sqlite"))
            got = []

            def transcribe(clips, got=got):
                got.extend(np.array(c) for c in clips)
                return [f"{len(c)} samples, peak {np.abs(c).max():.4f}" for c in clips]

            lm.transcripts.transcriber.transcribe = transcribe
            assert lm.generate_until([_request("<audio>Which option?", [clip])]) == ["B"]
            (heard[condition],) = got
            assert f"{len(got[0])} samples" in prompt_text(server.requests[-1])
    np.testing.assert_array_equal(heard["full"], whole)
    assert heard["silence"].shape == whole.shape and not heard["silence"].any()
    assert heard["noise"].shape == whole.shape
    assert np.sqrt(np.mean(heard["noise"] ** 2)) == pytest.approx(NOISE_RMS, rel=0.05)
    first, last = fragment_bounds(len(whole), 4, 3)
    np.testing.assert_array_equal(heard["fragment:4:3"], whole[first:last])


def _cli(server, out, condition, cache):
    return run_cli(
        ["lm_eval", "--model", "openai-audio", "--model_args",
         f"base_url={server.base_url},model=served-audio-lm,audio={condition}",
         "--tasks", "airbench_sample_foundation", "--limit", "4", "--output_path", str(out), "--log_samples",
         "--use_cache", str(cache)],
        env_extra={"OPENAI_BASE_URL": server.base_url, "LM_EVAL_AUDIO_JUDGE_CACHE": str(out / "judge.sqlite")},
    )


def test_cli_records_the_condition_and_keeps_cached_answers_apart(tmp_path):
    """The same --use_cache file for two conditions: the second run is not served the
    first one's answers; the condition is in the results, every sample and the folder name."""
    cache = tmp_path / "cache" / "db"
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",)) as server:
        full = _cli(server, tmp_path / "full", "full", cache)
        assert full.returncode == 0, full.stderr[-3000:]
        none = _cli(server, tmp_path / "none", "none", cache)
        assert none.returncode == 0, none.stderr[-3000:]
        assert "Cached requests: 0, Requests remaining: 4" in none.stderr
        again = _cli(server, tmp_path / "again", "none", cache)
        assert "Cached requests: 4, Requests remaining: 0" in again.stderr
        model_calls = [b for b in server.requests if b["model"] == "served-audio-lm"]
    assert [len(audio_parts(b)) for b in model_calls] == [1] * 4 + [0] * 4
    assert results_json(tmp_path / "full")["lm_eval_audio_condition"] == "full"
    res = results_json(tmp_path / "none")
    assert res["lm_eval_audio_condition"] == "none" and res["config"]["model_args"]["audio"] == "none"
    (folder,) = [p for p in (tmp_path / "none").iterdir() if p.is_dir()]
    assert folder.name == "served-audio-lm__audio-none"
    (samples_file,) = folder.glob("samples_airbench_sample_foundation_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert len(samples) == 4 and {s["audio_condition"] for s in samples} == {"none"}


def test_fragments_of_a_long_clip_are_cut_from_what_the_full_run_hears(tiny_qwen2_audio, tmp_path):
    """A 120-s clip, of which hf-audio hears the first 30 s (its processor's window, long_audio=truncate):
    every fragment lies inside those 30 s, and together they tile them. With long_audio=chunk the whole
    clip is heard, so its fragments tile the whole clip."""
    import soundfile as sf

    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    path = tmp_path / "long.wav"
    whole = (np.arange(120 * 16000) % 1000 / 1000 - 0.5).astype(np.float32) * 0.5  # every sample tells its place
    sf.write(path, whole, 16000, subtype="FLOAT")
    for policy, heard in (("truncate", 30 * 16000), ("chunk", len(whole))):
        pieces = []
        for k in range(1, 5):
            lm = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", audio=f"fragment:4:{k}",
                           long_audio=policy)
            item = lm._split_args(0, ("<audio>What is it?", GREEDY, {"audio": [str(path)]}))
            (chunks,) = [lm._clip(ref) for ref in item.refs]
            pieces.append(np.concatenate(chunks))
            first, last = fragment_bounds(heard, 4, k)
            np.testing.assert_array_equal(pieces[-1], whole[first:last])
            assert decoding.duration_seconds(item.refs[0]) == pytest.approx(heard / 16000 / 4)
        np.testing.assert_array_equal(np.concatenate(pieces), whole[:heard])  # nothing outside, nothing lost


def test_under_is_a_copy_with_another_condition_sharing_the_weights(tiny_qwen2_audio, clip):
    """diagnose runs one loaded model under every condition through copies: each copy hears its condition, its
    prompt counts are its own, and the model it came from is never changed."""
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    lm = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")
    fragment = lm.under(parse("fragment:4:3"))
    assert fragment.model is lm.model and fragment.processor is lm.processor and fragment.batcher is lm.batcher
    assert (lm.audio_condition.label, fragment.audio_condition.label) == ("full", "fragment:4:3")
    (ref,) = fragment._split_args(0, ("<audio>What is it?", GREEDY, {"audio": [clip]})).refs
    assert ref["condition"] is fragment.audio_condition  # the object itself, never its label parsed again
    assert "condition" not in lm._split_args(0, ("<audio>What is it?", GREEDY, {"audio": [clip]})).refs[0]
    whole = decoding.load(clip, 16000)
    first, last = fragment_bounds(len(whole), 4, 3)
    np.testing.assert_array_equal(np.concatenate(fragment._clip(ref)), whole[first:last])
    fragment.generate_until([_request("<audio>What is it?", [clip])])
    assert fragment.run_record["prompts"]["audio_with_template"] == 1
    assert lm.run_record["prompts"]["audio_with_template"] == 0 and lm.audio_condition.label == "full"


def test_results_folder_name_from_the_model_not_its_arguments():
    from lm_eval_audio.model_wrappers.registry import results_folder_name

    assert results_folder_name("Qwen__Qwen2-Audio", None, parse("full")) == "Qwen__Qwen2-Audio"
    assert results_folder_name("Qwen__Qwen2-Audio", None, None) == "Qwen__Qwen2-Audio"
    assert results_folder_name("m", None, parse("none")) == "m__audio-none"
    assert results_folder_name("whisper", "cascade__tiny__llm", parse("fragment:4:2")) == "cascade__tiny__llm__audio-fragment-4-2"
