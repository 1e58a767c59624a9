"""hf-audio's model families: the tokens each model receives, checkpoint settings set aside, and a clear
stop for the families it does not run (tiny models of the real transformers classes, no download)."""

from __future__ import annotations

import contextlib
import json
import shutil

import pytest
import torch
from conftest import gen_request as gen
from conftest import ll_request as ll
from conftest import results_json, run_cli

from lm_eval_audio.model_wrappers import families
from lm_eval_audio.model_wrappers.families import UnsupportedFamily
from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM



@contextlib.contextmanager
def _received(model):
    """Every input_ids row the model's forward receives inside the block (padding removed)."""
    seen = []

    def hook(module, args, kwargs):
        ids, mask = kwargs.get("input_ids"), kwargs.get("attention_mask")
        if ids is not None and ids.shape[1] > 1:  # prompts, not the one-token decoding steps
            if mask is not None:
                mask = mask[:, -ids.shape[1] :]  # after a cached prompt the mask also covers the prompt
            for r in range(ids.shape[0]):
                row = ids[r] if mask is None else ids[r][mask[r].bool()]
                seen.append(row.tolist())

    handle = model.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        yield seen
    finally:
        handle.remove()


# --- families hf-audio does not run: one line that names the family and what to do ---------------------------


@pytest.mark.parametrize("model_type", sorted(families.REFUSED))
def test_a_refused_family_stops_at_load_naming_it(model_type, tmp_path):
    from transformers import AutoConfig

    AutoConfig.for_model(model_type).save_pretrained(tmp_path)
    name = families.REFUSED[model_type][0]
    with pytest.raises(UnsupportedFamily) as error:
        HFAudioLM(pretrained=str(tmp_path), device="cpu")
    message = str(error.value)
    assert "\n" not in message and name in message and "--model openai-audio" in message


def test_a_refused_family_with_family_generic_still_stops(tiny_granite_speech):
    """granite-speech's published checkpoints switch their speech LoRA on inside generate() only."""
    with pytest.raises(UnsupportedFamily, match="Granite-Speech .*speech LoRA"):
        HFAudioLM(pretrained=tiny_granite_speech, device="cpu", family="generic")


@pytest.mark.parametrize("config, folder, name", [
    ({"model_type": "kimia", "architectures": ["MoonshotKimiaForCausalLM"]}, "Kimi-Audio-7B-Instruct", "Kimi-Audio"),
    (None, "SALMONN-13B", "SALMONN"),
])  # fmt: skip
def test_families_transformers_does_not_implement_point_to_openai_audio(config, folder, name, tmp_path):
    path = tmp_path / folder
    path.mkdir()
    if config:
        (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(UnsupportedFamily, match=f"a {name} checkpoint, a family transformers does not implement"):
        HFAudioLM(pretrained=str(path), device="cpu")


def test_an_unknown_audio_family_needs_family_generic():
    with pytest.raises(UnsupportedFamily, match="model_type kyutai_speech_to_text.*pass family=generic"):
        families.resolve("kyutai/stt", {"model_type": "kyutai_speech_to_text"}, True, None)
    assert families.resolve("kyutai/stt", {"model_type": "kyutai_speech_to_text"}, True, "generic") is families.GENERIC_PATH
    assert families.resolve("HuggingFaceTB/SmolLM2", {"model_type": "llama"}, False, None) is families.TEXT_ONLY
    with pytest.raises(UnsupportedFamily, match="family='qwen' is not an option"):
        families.resolve("x", {"model_type": "qwen2_audio"}, True, "qwen")


def test_the_refusal_reaches_the_lm_eval_user_as_one_line(tmp_path):
    from transformers import AutoConfig

    AutoConfig.for_model("gemma3n").save_pretrained(tmp_path / "gemma3n")
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tmp_path / 'gemma3n'}",
                    "--tasks", "spoken_digits", "--output_path", str(tmp_path / "out")])
    assert proc.returncode != 0
    assert "hf-audio: Gemma 3n (" in proc.stderr and "Traceback" not in proc.stderr


# --- the tokens the model receives ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemma(tiny_gemma_text):
    return HFAudioLM(pretrained=tiny_gemma_text, device="cpu", dtype="float32")


def test_a_template_that_writes_bos_gets_one_bos(gemma):
    """Gemma's template opens with {{ bos_token }} and its tokenizer adds another when asked."""
    bos = gemma.tokenizer.bos_token_id
    with _received(gemma.model) as seen:
        gemma.generate_until([gen("Say hi."), gen("Count to three, please.")])
    assert all(ids[0] == bos and ids.count(bos) == 1 for ids in seen)
    assert sorted(gemma.tokenizer.decode(ids) for ids in seen) == [
        "<bos><start_of_turn>user\nCount to three, please.<end_of_turn>\n<start_of_turn>model\n",
        "<bos><start_of_turn>user\nSay hi.<end_of_turn>\n<start_of_turn>model\n",
    ]


def test_text_loglikelihoods_match_lm_evals_hf_model(gemma, tiny_gemma_text):
    """Plain-text pairs are tokenized as lm-eval's own `hf` model does: with the BOS its tokenizer adds."""
    from lm_eval.models.huggingface import HFLM

    requests = [ll("The quick brown fox", " jumps over"), ll("Hello world, how are", " you today?"),
                ll("", "Hello world"), ll("One two ", "three")]
    ours = gemma.loglikelihood(requests)
    theirs = HFLM(pretrained=tiny_gemma_text, device="cpu", dtype="float32").loglikelihood(requests)
    for (a, ga), (b, gb) in zip(ours, theirs):
        assert a == pytest.approx(b, abs=1e-4) and ga == gb


def test_choices_are_scored_as_the_reply_from_one_prompt_pass(qwen_family, clips):
    """A document's choices: the prompt with its audio runs once, the choices after it together; each
    choice is scored straight after the assistant header (no leading space), with the log-likelihood a
    full forward over prompt and choice gives."""
    import soundfile as sf

    choices = [" A", " B", " C and then more", " D"]
    with _received(qwen_family.model) as seen:
        got = qwen_family.loglikelihood([ll("<audio>Which letter?", c, [clips[0]]) for c in choices])
    tok = qwen_family.tokenizer
    prompt = tok.decode(seen[0])
    # Qwen2-Audio-7B-Instruct's prompt format (its model card's chat example), the clip expanded to its frames
    n_frames = prompt.count("<|AUDIO|>")
    assert n_frames > 1 and prompt.replace("<|AUDIO|>" * n_frames, "<|AUDIO|>") == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
        "Audio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\nWhich letter?<|im_end|>\n<|im_start|>assistant\n")
    audio_id = tok.convert_tokens_to_ids("<|AUDIO|>")
    assert sum(audio_id in ids for ids in seen) == 1  # one pass over the prompt and its audio for four choices
    audio, sr = sf.read(clips[0], dtype="float32")
    for choice, (score, greedy) in zip(choices, got):
        text = prompt.replace("<|AUDIO|>" * n_frames, "<|AUDIO|>")
        whole = qwen_family.processor(text=[text + choice.lstrip()], audio=[audio], sampling_rate=sr,
                                      return_tensors="pt", add_special_tokens=False)
        ids = whole["input_ids"][0].tolist()
        cont = tok(text + choice.lstrip(), add_special_tokens=False)["input_ids"][len(tok(text, add_special_tokens=False)["input_ids"]):]
        assert tok.decode(cont) == choice.lstrip()
        with torch.no_grad():
            lp = torch.log_softmax(qwen_family.model(**whole).logits[0].float(), -1)
        positions = range(len(ids) - len(cont), len(ids))
        assert score == pytest.approx(sum(float(lp[p - 1, ids[p]]) for p in positions), abs=1e-4)
        assert greedy == all(int(lp[p - 1].argmax()) == ids[p] for p in positions)


@pytest.fixture(scope="module")
def qwen_family(tiny_qwen2_audio):
    return HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32")


def test_qwen2_audio_is_the_family_and_the_results_say_so(tiny_qwen2_audio, tmp_path):
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                    "--tasks", "spoken_digits", "--limit", "2", "--gen_kwargs", "max_gen_toks=4",
                    "--output_path", str(tmp_path)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = results_json(tmp_path)["lm_eval_audio_model"]
    assert record["family"] == "Qwen2-Audio" and record["generation_config"] == "neutral"


# --- greedy means greedy -----------------------------------------------------------------------------------------


def test_the_checkpoints_decoding_settings_are_set_aside_unless_asked_for(tiny_qwen2_audio, clips, tmp_path):
    """Same weights, a generation_config.json that samples with a strong repetition penalty: greedy answers
    stay those of the plain checkpoint, unless generation_config=model."""
    penalized = tmp_path / "penalized"
    shutil.copytree(tiny_qwen2_audio, penalized)
    config_file = penalized / "generation_config.json"
    config = json.loads(config_file.read_text())
    config.update(do_sample=True, temperature=0.7, top_k=20, repetition_penalty=5.0, no_repeat_ngram_size=2)
    config_file.write_text(json.dumps(config))
    requests = [gen(f"<audio>Describe clip {i}.", [p]) for i, p in enumerate(clips[:4])]

    plain = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32").generate_until(requests)
    neutral = HFAudioLM(pretrained=str(penalized), device="cpu", dtype="float32")
    assert neutral.generate_until(requests) == plain
    assert neutral.run_record["checkpoint_settings"] == {
        "do_sample": True, "temperature": 0.7, "top_k": 20, "repetition_penalty": 5.0, "no_repeat_ngram_size": 2}
    assert neutral.run_record["applied"] == "the task's settings only; the checkpoint's own were set aside"
    kept = HFAudioLM(pretrained=str(penalized), device="cpu", dtype="float32", generation_config="model")
    assert kept.generate_until(requests) != plain
    assert kept.run_record["generation_config"] == "model"
    with pytest.raises(ValueError, match="generation_config must be one of"):
        HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", generation_config="greedy")


def test_family_generic_runs_a_proven_family_on_the_generic_path(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", family="generic")
    assert model.run_record["family"] == "generic (family=generic)"
    assert len(model.generate_until([gen("<audio>What is it?", [clips[1]])])) == 1
    assert torch.isfinite(torch.tensor(model.loglikelihood([ll("<audio>It is", " a tone", [clips[1]])])[0][0]))


def test_the_audio_window_is_read_from_each_feature_extractor():
    """So that long_audio applies, and the log does not claim clips pass whole when the extractor cuts them."""
    from transformers import Gemma3nAudioFeatureExtractor, WhisperFeatureExtractor

    from lm_eval_audio.model_wrappers.hf_audio import audio_window_seconds

    assert audio_window_seconds(WhisperFeatureExtractor(), 16000) == 30.0
    assert audio_window_seconds(Gemma3nAudioFeatureExtractor(), 16000) == 30.0  # max_length=480,000 samples
    assert audio_window_seconds(None, 16000) is None


def test_choices_split_over_batches_score_as_at_batch_size_1(tiny_qwen2_audio, clips):
    """Five choices of different lengths per clip at batch size 4: documents cross batch boundaries."""
    choices = [" A", " B is longer", " C", " the fourth", " E"]
    requests = [ll(f"<audio>Pick one for clip {i}.", c, [p]) for i, p in enumerate(clips[:3]) for c in choices]
    one = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1).loglikelihood(requests)
    four = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=4).loglikelihood(requests)
    assert len({round(s, 6) for s, _ in one}) > 10  # the scores depend on clip and choice
    assert [g for _, g in one] == [g for _, g in four]
    assert max(abs(a - b) for (a, _), (b, _) in zip(one, four)) < 1e-5
