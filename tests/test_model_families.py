"""hf-audio's model families: the tokens each model receives, checkpoint settings set aside, batch invariance and
each family's adapter (tiny models of the real transformers classes, no download; what is checked before a family
runs, and the refusals: tests/test_family_checks.py)."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import family_proofs
import pytest
import torch
from conftest import gen_request as gen
from conftest import ll_request as ll
from conftest import results_json, run_cli, templated

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


# --- the tokens the model receives ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemma(tiny_gemma_text):
    return HFAudioLM(pretrained=tiny_gemma_text, device="cpu", dtype="float32")


def test_a_template_that_writes_bos_gets_one_bos(gemma):
    """Gemma's template opens with {{ bos_token }} and its tokenizer adds another when asked."""
    bos = gemma.tokenizer.bos_token_id
    with _received(gemma.model) as seen:  # under --apply_chat_template, and plain text as lm-eval's hf sends it
        gemma.generate_until([gen(templated("Say hi.")), gen(templated("Count to three, please.")), gen("Plain.")])
    assert all(ids[0] == bos and ids.count(bos) == 1 for ids in seen)
    assert sorted(gemma.tokenizer.decode(ids) for ids in seen) == [
        "<bos><start_of_turn>user\nCount to three, please.<end_of_turn>\n<start_of_turn>model\n",
        "<bos><start_of_turn>user\nSay hi.<end_of_turn>\n<start_of_turn>model\n",
        "<bos>Plain.",
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


def test_documents_of_a_batch_share_one_prompt_pass_and_score_as_alone(tiny_qwen2_audio, qwen_family, clips):
    """At bs=8, four documents (clips of different lengths, one or three choices each) run their prompts in
    one right-padded forward, and each choice scores as in a batch of its own (bs=1)."""
    requests = [ll("<audio>Which letter?", c, [clip]) for clip, choices in zip(clips[:4], ([" A"], [" A", " B", " C and more"]) * 2)
                for c in choices]
    batched = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=8)
    audio_id = qwen_family.tokenizer.convert_tokens_to_ids("<|AUDIO|>")
    with _received(batched.model) as seen:
        got = batched.loglikelihood(requests)
    assert sum(audio_id in ids for ids in seen) == 4  # the four prompts ...
    calls = []
    handle = batched.model.register_forward_pre_hook(
        lambda module, args, kwargs: calls.append(kwargs.get("input_features") is not None), with_kwargs=True)
    try:
        batched.loglikelihood(requests)
    finally:
        handle.remove()
    assert calls == [True, False]  # ... in one forward with the audio, then one for the choices after them
    alone = qwen_family.loglikelihood(requests)
    for (a, ga), (b, gb) in zip(got, alone):
        assert a == pytest.approx(b, abs=1e-4) and ga == gb


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


def test_choices_split_over_batches_score_as_at_batch_size_1(tiny_qwen2_audio, clips):
    """Five choices of different lengths per clip at batch size 4: documents cross batch boundaries."""
    choices = [" A", " B is longer", " C", " the fourth", " E"]
    requests = [ll(f"<audio>Pick one for clip {i}.", c, [p]) for i, p in enumerate(clips[:3]) for c in choices]
    one = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=1).loglikelihood(requests)
    four = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", batch_size=4).loglikelihood(requests)
    assert len({round(s, 6) for s, _ in one}) > 10  # the scores depend on clip and choice
    assert [g for _, g in one] == [g for _, g in four]
    assert max(abs(a - b) for (a, _), (b, _) in zip(one, four)) < 1e-5


# --- Granite-Speech: the model card's prompt, the speech LoRA on for audio in every call ---------------------------
# granite-speech-3.3-2b's model card (https://huggingface.co/ibm-granite/granite-speech-3.3-2b, "Usage with
# transformers"): system prompt, "<|audio|>{instruction}" as the user turn, Granite's role markers.
GRANITE_PROMPT = (
    "<|start_of_role|>system<|end_of_role|>Knowledge Cutoff Date: April 2024.\nToday's Date: April 9, 2025.\n"
    "You are Granite, developed by IBM. You are a helpful AI assistant<|end_of_text|>\n"
    "<|start_of_role|>user<|end_of_role|>{user}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
)


@pytest.fixture(scope="module")
def granite(tiny_granite_speech):
    return HFAudioLM(pretrained=tiny_granite_speech, device="cpu", dtype="float32")


def _collapsed(tokenizer, ids, token="<|audio|>"):
    """The prompt's text with the clip's run of audio tokens written as the one marker the card writes."""
    text = tokenizer.decode(ids)
    while token * 2 in text:
        text = text.replace(token * 2, token)
    return text


def _spoken_digit_requests(model, clips, *more):
    """The inputs a model's forward receives for spoken_digits' two prompts (a generation, then a multiple
    choice between " one" and " two") and then ``more`` generation requests."""
    with _received(model.model) as seen:
        model.generate_until([gen("<audio>Which digit is spoken in the audio? Answer with one word.", [clips[0]])])
        model.loglikelihood([ll("<audio>Which digit is spoken in the audio?\nAnswer:", c, [clips[1]])
                             for c in (" one", " two")])
        model.generate_until(list(more))
    return seen


def test_granite_speech_receives_the_model_cards_prompt(granite, clips):
    tok = granite.tokenizer
    seen = _spoken_digit_requests(granite, clips, gen(templated("Say hi.")))
    prompts = [_collapsed(tok, ids) for ids in seen]
    assert prompts[0] == GRANITE_PROMPT.format(user="<|audio|>Which digit is spoken in the audio? Answer with one word.")
    assert prompts[1] == GRANITE_PROMPT.format(user="<|audio|>Which digit is spoken in the audio?\nAnswer:")
    # the choices after the prompt's cache (all but their last token, which is only a target): no space after
    # the header
    choices = prompts[2:-1]
    assert any(choices) and all("one".startswith(c) or "two".startswith(c) for c in choices)
    assert prompts[-1] == GRANITE_PROMPT.format(user="Say hi.")
    assert seen[0].count(tok.convert_tokens_to_ids("<|audio|>")) > 1  # the clip expanded to its frames
    assert granite.run_record["system_prompt"].startswith("Knowledge Cutoff Date: April 2024.\nToday's Date: April 9")
    assert granite.run_record["speech_lora"] == "on for requests with audio, off for text-only ones"


def _lora_state(model, audio_id):
    """For each forward in the block: which of its rows hold audio, and whether the speech LoRA is on; a
    forward after a cached prefix (a decoding step, the choices after a prompt) belongs to that prefix."""
    from peft.tuners.lora import LoraLayer

    layer = next(m for m in model.modules() if isinstance(m, LoraLayer))
    seen, prefix_rows = [], [()]

    def hook(module, args, kwargs):
        ids, cache = kwargs.get("input_ids"), kwargs.get("cache", kwargs.get("past_key_values"))  # 5.24 / 5.23
        if cache is None or cache.get_seq_length() == 0:
            prefix_rows[0] = tuple((ids == audio_id).any(dim=1).tolist())
        seen.append((prefix_rows[0], not layer.disable_adapters))

    return model.register_forward_pre_hook(hook, with_kwargs=True), seen


@pytest.mark.parametrize("tiny_model", ["tiny_granite_speech", "tiny_phi4_multimodal"])
def test_a_speech_lora_is_on_for_audio_and_off_for_text_in_every_call(tiny_model, request, clips):
    """Whatever ran before: a text-only generate() leaves Granite-Speech's LoRA off in transformers' own model,
    and the multiple-choice forwards after it would inherit that; Phi-4's is not even loaded there."""
    pretrained = request.getfixturevalue(tiny_model)
    audio_mc = [ll("<audio>Which digit?", c, [clips[2]]) for c in (" one", " two", " three")]
    fresh = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32").loglikelihood(audio_mc)

    model = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=4)
    handle, seen = _lora_state(model.model, model._audio_token_id)
    try:
        model.generate_until([gen("Say hi."), gen("<audio>What is it?", [clips[3]]), gen("Count to three.")])
        after_text = model.loglikelihood(audio_mc)
        model.loglikelihood([ll("The quick brown", " fox")])
        model.generate_until([gen("Say hi.")])
    finally:
        handle.remove()
    assert [g for _, g in after_text] == [g for _, g in fresh]
    assert max(abs(a - b) for (a, _), (b, _) in zip(after_text, fresh)) < 1e-5
    assert all(len(set(rows)) == 1 for rows, _ in seen)  # a batch is all audio or all text
    text_forwards = [on for rows, on in seen if not rows[0]]
    audio_forwards = [on for rows, on in seen if rows[0]]
    assert audio_forwards and all(audio_forwards) and text_forwards and not any(text_forwards)

    off = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32")
    off.adapter.before_call = lambda has_audio: off.model.disable_adapters()  # what no switching would give
    assert max(abs(a - b) for (a, _), (b, _) in zip(off.loglikelihood(audio_mc), fresh)) > 1e-3


def _spoken_digits(pretrained, out, batch_size, audio="full"):
    """Each sample's responses, by (task, doc_id), from a plain lm_eval run of both spoken_digits tasks."""
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={pretrained},dtype=float32,audio={audio}",
                    "--tasks", "spoken_digits", "--limit", "6", "--gen_kwargs", "max_gen_toks=6", "--log_samples",
                    "--batch_size", str(batch_size), "--output_path", str(out)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    samples = {}
    for path in sorted(out.rglob("samples_*.jsonl")):
        task = path.name.split("_20")[0].removeprefix("samples_")
        for line in path.read_text().splitlines():
            row = json.loads(line)
            samples[(task, row["doc_id"])] = row["resps"]
    return samples


@pytest.mark.parametrize("tiny_model", family_proofs.first_quick_rest_slow(family_proofs.every_family()))
def test_a_family_on_spoken_digits_through_lm_eval(tiny_model, request, tmp_path):
    """Plain lm_eval, generation and multiple choice: batch size 1 and 4 agree, and silence in place of
    the clips changes the answers."""
    pretrained = request.getfixturevalue(tiny_model)
    one = _spoken_digits(pretrained, tmp_path / "bs1", 1)
    four = _spoken_digits(pretrained, tmp_path / "bs4", 4)
    silent = _spoken_digits(pretrained, tmp_path / "silence", 4, audio="silence")
    assert sorted(one) == sorted(four) == sorted(silent) and len(one) == 12
    gen_keys = [k for k in one if k[0] == "spoken_digits_gen"]
    mc_keys = [k for k in one if k[0] == "spoken_digits_mc"]
    assert len(gen_keys) == len(mc_keys) == 6
    assert all(one[k] == four[k] for k in gen_keys)
    scores = {name: [float(c[0][0]) for k in mc_keys for c in run[k]] for name, run in
              (("one", one), ("four", four), ("silent", silent))}
    assert max(abs(a - b) for a, b in zip(scores["one"], scores["four"])) < 1e-4
    assert max(abs(a - b) for a, b in zip(scores["one"], scores["silent"])) > 1e-3
    assert any(one[k] != silent[k] for k in gen_keys)


# --- Gemma 3n: one BOS, the model card's turns, clips encoded alone ----------------------------------------------
# gemma-3n-E4B-it's prompt format (its chat template; https://ai.google.dev/gemma/docs/core/prompt-structure):
# "<bos><start_of_turn>user\n{content}<end_of_turn>\n<start_of_turn>model\n", a clip as the processor's
# "\n\n<start_of_audio>" + 188 x <audio_soft_token> + "<end_of_audio>\n\n".
GEMMA3N_AUDIO = "\n\n<start_of_audio>" + "<audio_soft_token>" * 188 + "<end_of_audio>\n\n"


@pytest.fixture(scope="module")
def gemma3n(tiny_gemma3n):
    return HFAudioLM(pretrained=tiny_gemma3n, device="cpu", dtype="float32", batch_size=4)


def test_gemma3n_receives_one_bos_and_the_model_cards_turns(gemma3n, clips):
    tok = gemma3n.tokenizer
    seen = _spoken_digit_requests(gemma3n, clips)
    assert tok.decode(seen[0]) == ("<bos><start_of_turn>user\n" + GEMMA3N_AUDIO +
                                   "Which digit is spoken in the audio? Answer with one word.<end_of_turn>\n"
                                   "<start_of_turn>model\n")
    assert tok.decode(seen[1]) == ("<bos><start_of_turn>user\n" + GEMMA3N_AUDIO + "Which digit is spoken in the audio?"
                                   "\nAnswer:<end_of_turn>\n<start_of_turn>model\n")
    assert all(ids.count(tok.bos_token_id) == 1 for ids in seen[:2])
    choices = [tok.decode(ids) for ids in seen[2:]]
    assert any(choices) and all("one".startswith(c) or "two".startswith(c) for c in choices)
    assert gemma3n.run_record["family"] == "Gemma 3n" and gemma3n.run_record["system_prompt"] is None


# --- Qwen2.5-Omni: the thinker alone -------------------------------------------------------------------------------
# Qwen2.5-Omni-7B's chat template: Qwen2-Audio's turns, "You are a helpful assistant." by default, a clip as
# <|audio_bos|><|AUDIO|><|audio_eos|> (the audio token expanded to the clip's frames).
OMNI_PROMPT = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
               "<|audio_bos|><|AUDIO|><|audio_eos|>{text}<|im_end|>\n<|im_start|>assistant\n")


def test_qwen2_5_omni_runs_its_thinker_alone(tiny_qwen2_5_omni, clips):
    """The checkpoint sets enable_audio_output, so transformers' top-level class would build and run the talker;
    the thinker generates text at the task's length and scores choices as a full forward does."""
    import soundfile as sf
    from transformers import Qwen2_5OmniThinkerForConditionalGeneration

    assert json.loads((Path(tiny_qwen2_5_omni) / "config.json").read_text())["enable_audio_output"] is True
    omni = HFAudioLM(pretrained=tiny_qwen2_5_omni, device="cpu", dtype="float32")
    assert type(omni.model) is Qwen2_5OmniThinkerForConditionalGeneration
    assert omni.run_record["model"] == "the thinker only (text out); the speech talker is not loaded"
    tok = omni.tokenizer
    generate, new_tokens = omni.model.generate, []

    def counted(**kwargs):
        out = generate(**kwargs)
        new_tokens.append(out.shape[1] - kwargs["input_ids"].shape[1])
        return out

    omni.model.generate = counted
    with _received(omni.model) as seen:
        omni.generate_until([gen("<audio>Which digit?", [clips[2]],
                                          {"until": [], "max_gen_toks": 3, "do_sample": False})])
        scores = omni.loglikelihood([ll("<audio>Which digit?", c, [clips[3]]) for c in (" one two", " three")])
    assert _collapsed(tok, seen[0], "<|AUDIO|>") == OMNI_PROMPT.format(text="Which digit?")
    assert new_tokens == [3]  # the task's max_gen_toks, not the thinker's 1,024

    audio, sr = sf.read(clips[3], dtype="float32")
    text = OMNI_PROMPT.format(text="Which digit?")
    for choice, (score, _) in zip(("one two", "three"), scores):
        whole = omni.processor(text=[text + choice], audio=[audio], sampling_rate=sr, return_tensors="pt",
                               add_special_tokens=False)
        n_cont = len(tok(text + choice, add_special_tokens=False)["input_ids"]) - len(tok(text)["input_ids"])
        with torch.no_grad():
            lp = torch.log_softmax(omni.model(**whole).logits[0].float(), -1)
        ids = whole["input_ids"][0].tolist()
        positions = range(len(ids) - n_cont, len(ids))
        assert score == pytest.approx(sum(float(lp[p - 1, ids[p]]) for p in positions), abs=1e-4)


# --- Phi-4-multimodal: its speech LoRA loaded and switched, the template its processor loses -----------------------
# Phi-4-multimodal-instruct's prompt format (its model card; the transformers chat template): "<|user|>" + the
# clip's <|audio|> tokens + the question + "<|end|><|assistant|>", no default system turn.


def test_phi4_multimodal_receives_its_prompt_format(tiny_phi4_multimodal, clips):
    from transformers import AutoProcessor

    assert not AutoProcessor.from_pretrained(tiny_phi4_multimodal).chat_template  # what transformers 5.23 loads
    phi = HFAudioLM(pretrained=tiny_phi4_multimodal, device="cpu", dtype="float32")
    seen = _spoken_digit_requests(phi, clips)
    tok = phi.tokenizer
    assert _collapsed(tok, seen[0]) == "<|user|><|audio|>Which digit is spoken in the audio? Answer with one word.<|end|><|assistant|>"
    assert _collapsed(tok, seen[1]) == "<|user|><|audio|>Which digit is spoken in the audio?\nAnswer:<|end|><|assistant|>"
    assert phi.run_record["speech_lora"] == "speech-lora/, on for requests with audio, off for text-only ones"


# --- Voxtral: the prompt as mistral_common renders it, the clips inside it --------------------------------------
# Voxtral-Mini-3B-2507's prompt format is mistral_common's (tekken v7; the model card's transformers usage goes
# through processor.apply_chat_template): "<s>[INST]" + per clip "[BEGIN_AUDIO]" and 12.5 [AUDIO] tokens per
# second of the clip padded to a multiple of 30 s + the text + "[/INST]", no system turn with audio. The tiny
# tekken vocabulary is bytes only: a text byte b is token 40 + b.


def _voxtral_ids(text: str, audio_tokens: list[int] = ()) -> list[int]:
    from lm_eval_audio.testing.tiny_models.voxtral import VOXTRAL_SPECIAL_TOKENS_IDS as ID

    audio = [i for n in audio_tokens for i in [ID["[BEGIN_AUDIO]"]] + [ID["[AUDIO]"]] * n]
    return [ID["<s>"], ID["[INST]"], *audio, *(40 + b for b in text.encode()), ID["[/INST]"]]


@pytest.fixture(scope="module")
def voxtral(tiny_voxtral):
    return HFAudioLM(pretrained=tiny_voxtral, device="cpu", dtype="float32", batch_size=4)


def test_voxtral_receives_mistral_commons_prompt_with_its_clips(voxtral, clips):
    seen = _spoken_digit_requests(voxtral, clips, gen("Say hi."))
    assert seen[0] == _voxtral_ids("Which digit is spoken in the audio? Answer with one word.", [375])
    assert seen[1] == _voxtral_ids("Which digit is spoken in the audio?\nAnswer:", [375])  # 375: one 30 s window
    # the choices after the prompt's cache, straight after [/INST] (all but their last token, only a target)
    assert [bytes(i - 40 for i in ids).decode() for ids in seen[2:-1]] == ["on", "tw"]
    assert seen[-1] == _voxtral_ids("Say hi.")  # text only: no audio tokens, the same turns
    assert voxtral.run_record["family"] == "Voxtral" and voxtral.run_record["system_prompt"] is None


ONE_TOKEN = {"until": ["\n"], "max_gen_toks": 1, "do_sample": False}


def test_voxtral_hears_a_long_clip_whole_and_stops_clearly_where_mistral_common_would_refuse(tiny_voxtral, voxtral,
                                                                                            tmp_path):
    import soundfile as sf
    from conftest import tone

    long_clip = tmp_path / "long.wav"
    sf.write(long_clip, tone(31.0), 16000)
    with _received(voxtral.model) as seen:
        voxtral.generate_until([gen("<audio>What is this?", [str(long_clip)], ONE_TOKEN)])
    assert seen[0] == _voxtral_ids("What is this?", [750])  # two 30 s windows, not truncated to the first
    assert voxtral.max_audio_seconds is None
    with_system = HFAudioLM(pretrained=tiny_voxtral, device="cpu", dtype="float32", system_prompt="Be brief.")
    with pytest.raises(ValueError, match=r"Voxtral .* takes no system prompt in a conversation with audio"):
        with_system.generate_until([gen("<audio>What is this?", [str(long_clip)], ONE_TOKEN)])
    with_system_text = with_system.generate_until([gen("Say hi.", kwargs=ONE_TOKEN)])  # text only: allowed
    assert len(with_system_text) == 1
    with pytest.raises(ValueError, match="takes its prompt only as its processor renders it"):
        HFAudioLM(pretrained=tiny_voxtral, device="cpu", chat_template=False)
