"""The families added with transformers 5.23's audio models: Qwen3-Omni (Instruct, Thinking, a thinker saved alone),
Audio Flamingo 3, Music Flamingo, Gemma 4 and Granite Speech 4.1 plus, through hf-audio: the
tokens each receives, the thinker alone, batch invariance, traces kept out of the answer (plain lm_eval on
spoken_digits: tests/test_model_families.py; tiny models of the real transformers 5.23 classes, built offline)."""

from __future__ import annotations

import json

import numpy as np
import family_proofs
import pytest
import soundfile as sf
import torch
from conftest import gen_request as gen
from conftest import ll_request as ll
from test_model_families import GRANITE_PROMPT, _collapsed, _received

from lm_eval_audio.model_wrappers import reasoning
from lm_eval_audio.model_wrappers.families import UnsupportedFamily
from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM
from lm_eval_audio.testing.tiny_models.audio_flamingo import MUSIC_FLAMINGO_SYSTEM_PROMPT

# Qwen3-Omni-30B-A3B's turns (its model card; "No system prompt should be set for any evaluation benchmark", the
# README's evaluation settings): the clip as <|audio_start|> + its <|audio_pad|> tokens + <|audio_end|>, then the text.
QWEN3_OMNI_PROMPT = "<|im_start|>user\n<|audio_start|><|audio_pad|><|audio_end|>{text}<|im_end|>\n<|im_start|>assistant\n"
# Audio Flamingo 3's template (transformers' convert_audioflamingo3_to_hf.py): a default system turn, <sound> first.
AF3_PROMPT = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n<sound>{text}<|im_end|>\n"
              "<|im_start|>assistant\n")
MF_PROMPT = (f"<|im_start|>system\n{MUSIC_FLAMINGO_SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n<|sound_bos|><sound>"
             "<|sound_eos|>{text}<|im_end|>\n<|im_start|>assistant\n")


def _audio_tokens(model, seconds: float) -> int:
    """The audio tokens the family's processor gives a clip of ``seconds`` (its own count, for the check)."""
    inputs = model.processor(text=[model._default_audio_prompt() or "<sound>"],
                             audio=[np.zeros(int(seconds * 16000), dtype=np.float32)], return_tensors="pt")
    return int((inputs["input_ids"] == model._audio_token_id).sum())


@pytest.fixture(scope="module")
def qwen3_omni(tiny_qwen3_omni):
    return HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", dtype="float32", batch_size=4)


def test_qwen3_omni_runs_its_thinker_alone_from_each_layout(tiny_qwen3_omni, tiny_qwen3_omni_thinking,
                                                            tiny_qwen3_omni_thinker, qwen3_omni, clips):
    """The Instruct checkpoint sets enable_audio_output (transformers' top-level class would build the talker and
    code2wav and run them in generate()); whatever the layout, only the thinker is built, and it generates exactly the
    task's max_gen_toks."""
    from transformers import Qwen3OmniMoeThinkerForConditionalGeneration

    assert json.loads((__import__("pathlib").Path(tiny_qwen3_omni) / "config.json").read_text())["enable_audio_output"]
    for path in (tiny_qwen3_omni_thinking, tiny_qwen3_omni_thinker):
        other = HFAudioLM(pretrained=path, device="cpu", dtype="float32")
        assert type(other.model) is Qwen3OmniMoeThinkerForConditionalGeneration
    model = qwen3_omni.model
    assert type(model) is Qwen3OmniMoeThinkerForConditionalGeneration
    assert not any("talker" in name or "code2wav" in name for name, _ in model.named_modules())
    assert qwen3_omni.run_record["model"].startswith("the thinker only")
    generate, new_tokens = model.generate, []
    model.generate = lambda **kw: new_tokens.append((out := generate(**kw)).shape[1] - kw["input_ids"].shape[1]) or out
    try:
        qwen3_omni.generate_until([gen("<audio>Which digit?", [clips[2]], {"until": [], "max_gen_toks": 3})])
    finally:
        model.generate = generate
    assert new_tokens == [3]  # the task's, not the top-level generate()'s thinker_max_new_tokens


def test_qwen3_omni_loads_through_device_map(tiny_qwen3_omni, qwen3_omni, clips, monkeypatch):
    """device_map= (accelerate's placement, which shards the 30B MoE over several GPUs) reaches the thinker's load:
    here on the CPU, the same answers as a plain load."""
    from transformers import Qwen3OmniMoeThinkerForConditionalGeneration as Thinker

    asked, load = [], Thinker.from_pretrained.__func__
    monkeypatch.setattr(Thinker, "from_pretrained", classmethod(lambda cls, *a, **k: asked.append(k) or load(cls, *a, **k)))
    placed = HFAudioLM(pretrained=tiny_qwen3_omni, device_map="cpu", dtype="float32")
    assert [k.get("device_map") for k in asked] == ["cpu"]
    request = [gen("<audio>Which digit?", [clips[4]])]
    assert placed.generate_until(request) == qwen3_omni.generate_until(request)


def test_qwen3_omni_receives_the_model_cards_turns(qwen3_omni, clips):
    tok = qwen3_omni.tokenizer
    with _received(qwen3_omni.model) as seen:
        qwen3_omni.generate_until([gen("<audio>Which digit?", [clips[2]])])
        qwen3_omni.loglikelihood([ll("<audio>Which digit?", " one", [clips[2]])])
    assert _collapsed(tok, seen[0], "<|audio_pad|>") == QWEN3_OMNI_PROMPT.format(text="Which digit?")
    seconds = sf.info(clips[2]).duration
    assert seen[0].count(qwen3_omni._audio_token_id) == _audio_tokens(qwen3_omni, seconds) > 0
    assert tok.decode(seen[1]).startswith(tok.decode(seen[0]))  # the choice scored straight after the header
    assert qwen3_omni.run_record["system_prompt"] is None and qwen3_omni.max_audio_seconds is None


def test_qwen3_omni_hears_a_long_clip_whole(qwen3_omni, tmp_path):
    """The processor truncates nothing (chunk_length 300 s, truncation off): a 40 s clip is heard whole."""
    path = tmp_path / "long.wav"
    sf.write(path, (0.1 * np.sin(np.arange(40 * 16000) / 5)).astype(np.float32), 16000)
    with _received(qwen3_omni.model) as seen:
        qwen3_omni.generate_until([gen("<audio>Describe.", [str(path)], {"until": [], "max_gen_toks": 1})])
    assert seen[0].count(qwen3_omni._audio_token_id) == _audio_tokens(qwen3_omni, 40) > _audio_tokens(qwen3_omni, 30)


def test_a_thinking_checkpoint_is_scored_on_its_answer(tiny_qwen3_omni_thinking, clips):
    """The Thinking template opens the trace: the reply's trace is removed before the answer is cut at the task's
    stop strings, kept as reasoning, counted; a trace the token limit cut off is answered empty and counted."""
    model = HFAudioLM(pretrained=tiny_qwen3_omni_thinking, device="cpu", dtype="float32", batch_size=2)
    assert model.thinking.markers == reasoning.THINK and model.thinking.budget == 16384
    assert model.run_record["reasoning_trace"]["budget_from"] == "the family's documented thinking budget"
    tok = model.tokenizer
    replies = iter(["Two digits are heard.\nMaybe three.</think>\n\nthree\nmore", "Still thinking about"])

    def scripted(**kwargs):  # what the model writes, as token ids after the prompt
        rows = [tok(next(replies), add_special_tokens=False)["input_ids"] for _ in range(kwargs["input_ids"].shape[0])]
        width = max(map(len, rows))
        rows = [r + [tok.pad_token_id] * (width - len(r)) for r in rows]
        return torch.cat([kwargs["input_ids"], torch.tensor(rows)], dim=1)

    model.model.generate = scripted
    model.notes.start_run()
    state = model.notes
    # the same request twice: generated in order (requests are otherwise taken longest first)
    requests = [gen("<audio>Which digit?", [clips[2]], {"until": ["\n"], "max_gen_toks": 4}) for _ in range(2)]
    for i, request in enumerate(requests):
        request.task_name, request.doc_id = "spoken", i
    answers = model.generate_until(requests)
    assert [str(a) for a in answers] == ["three", ""]  # the stop string cut the answer, not the trace
    assert answers[0].reasoning == "Two digits are heard.\nMaybe three." and answers[0].finished
    assert answers[1].reasoning == "Still thinking about" and not answers[1].finished
    counted = state.data_notes["reasoning_traces"]["spoken"]
    assert (counted["answers"], counted["traces"], counted["unfinished"]) == (2, 2, 1)
    assert counted["mean_trace_tokens"] > 0


def test_a_task_limit_is_raised_to_the_thinking_budget_unless_asked(tiny_qwen3_omni_thinking, clips):
    asked = []
    for args, expected in (({}, 16384), ({"thinking_budget": 7}, 7)):
        model = HFAudioLM(pretrained=tiny_qwen3_omni_thinking, device="cpu", dtype="float32", **args)
        model.model.generate = lambda **kw: asked.append(kw["max_new_tokens"]) or kw["input_ids"]
        model.generate_until([gen("<audio>Which digit?", [clips[2]], {"until": [], "max_gen_toks": 4})])
        assert asked[-1] == expected


@pytest.fixture(scope="module")
def flamingos(tiny_audioflamingo3, tiny_musicflamingo):
    return {name: HFAudioLM(pretrained=path, device="cpu", dtype="float32", batch_size=4)
            for name, path in (("af3", tiny_audioflamingo3), ("mf", tiny_musicflamingo))}


@pytest.mark.parametrize("name, prompt, limit", [("af3", AF3_PROMPT, 600), ("mf", MF_PROMPT, 1200)])
def test_a_flamingo_receives_its_template_and_hears_up_to_its_limit(flamingos, name, prompt, limit, clips):
    model = flamingos[name]
    assert type(model.model).__name__ == {"af3": "AudioFlamingo3", "mf": "MusicFlamingo"}[name] + \
        "ForConditionalGeneration"
    with _received(model.model) as seen:
        model.generate_until([gen("<audio>Which digit?", [clips[2]])])
    assert _collapsed(model.tokenizer, seen[0], "<sound>") == prompt.format(text="Which digit?")
    assert seen[0].count(model._audio_token_id) == _audio_tokens(model, sf.info(clips[2]).duration) > 0
    assert model.max_audio_seconds == limit and model.long_audio == "truncate"
    assert model.run_record["checkpoint_settings"] == ({"do_sample": True, "temperature": 0.7, "top_k": 20,
                                                        "top_p": 0.8, "repetition_penalty": 1.05} if name == "af3" else {})


def test_a_flamingo_refuses_what_it_cannot_hear(tiny_audioflamingo3, flamingos, clips):
    with pytest.raises(UnsupportedFamily, match="one clip per request and windows it itself .*long_audio=chunk"):
        HFAudioLM(pretrained=tiny_audioflamingo3, device="cpu", long_audio="chunk")
    with pytest.raises(UnsupportedFamily, match="hears at most 600 s of a clip"):
        HFAudioLM(pretrained=tiny_audioflamingo3, device="cpu", max_audio_seconds=900)
    with pytest.raises(ValueError, match="hears one clip per request .* has 2"):
        flamingos["af3"].generate_until([gen("<audio> and <audio>: same digit?", [clips[2], clips[3]])])


# gemma-4-E4B-it's turns (its chat template, as ollama checks the published one in): BOS, the clip as <|audio> + its
# <|audio|> tokens (one per 40 ms) + <audio|>, no default system turn, the bare generation prompt of the small models.
GEMMA4_PROMPT = "<bos><|turn>user\n<|audio><|audio|><audio|>{text}<turn|>\n<|turn>model\n"


def test_gemma4_receives_its_template_with_one_bos_and_batches_its_clips(tiny_gemma4, clips):
    """Unlike Gemma 3n's, its encoder is padding-invariant: clips are batched, and a batch of four gives each request
    the scores it gets alone."""
    four = HFAudioLM(pretrained=tiny_gemma4, device="cpu", dtype="float32", batch_size=4)
    tok = four.tokenizer
    requests = [gen(f"<audio>Which digit? {i}", [clips[i]]) for i in (1, 5, 9, 13)]
    with _received(four.model) as seen:
        batched = four.generate_until(requests)
    assert len(seen) == 4  # one generate() for the four
    first = next(ids for ids in seen if tok.decode(ids).endswith("Which digit? 1<turn|>\n<|turn>model\n"))
    assert _collapsed(tok, first, "<|audio|>") == GEMMA4_PROMPT.format(text="Which digit? 1")
    assert first.count(tok.bos_token_id) == 1
    assert first.count(four._audio_token_id) == _audio_tokens(four, sf.info(clips[1]).duration) > 0
    one = HFAudioLM(pretrained=tiny_gemma4, device="cpu", dtype="float32", batch_size=1)
    assert one.generate_until(requests) == batched
    assert four.max_audio_seconds == 30 and four.run_record["system_prompt"] is None


def test_gemma4_without_an_audio_tower_stops(tiny_gemma4, tmp_path):
    """The 26B and 31B checkpoints share model_type gemma4 and hear nothing."""
    import shutil

    deaf = tmp_path / "gemma4-31b"
    shutil.copytree(tiny_gemma4, deaf)
    config = json.loads((deaf / "config.json").read_text())
    config["audio_config"] = None
    (deaf / "config.json").write_text(json.dumps(config))
    with pytest.raises(UnsupportedFamily, match="has no audio tower .*only the E2B and E4B checkpoints hear audio"):
        HFAudioLM(pretrained=str(deaf), device="cpu")


def test_granite_speech_plus_runs_as_granite_speech(tiny_granite_speech_plus, clips):
    """granite-speech-4.1-2b-plus: the same processor, prompt format and speech LoRA as granite-speech-3.3 (its
    encoder also hands some middle layers to the projector): the Granite-Speech adapter, clips alone."""
    model = HFAudioLM(pretrained=tiny_granite_speech_plus, device="cpu", dtype="float32", batch_size=4)
    assert model.family.name == "Granite-Speech" and type(model.model).__name__ == "GraniteSpeechPlusForConditionalGeneration"
    with _received(model.model) as seen:
        model.generate_until([gen("<audio>Which digit?", [clips[2]])])
    assert _collapsed(model.tokenizer, seen[0]) == GRANITE_PROMPT.format(user="<|audio|>Which digit?")
    assert model.run_record["speech_lora"] == "on for requests with audio, off for text-only ones"


def test_a_thinking_model_through_lm_eval_keeps_its_traces_beside_the_answers(tiny_qwen3_omni_thinking, tmp_path):
    """A tiny random Thinking model never closes its trace within 5 tokens: every answer is empty (scored wrong),
    every trace is in its logged sample, the unfinished ones are counted in the results, and --gen_kwargs
    max_gen_toks=5 is the whole budget (the family's 16,384 otherwise)."""
    from conftest import results_json, run_cli

    out = tmp_path / "run"
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                    f"pretrained={tiny_qwen3_omni_thinking},dtype=float32", "--tasks", "spoken_digits_gen",
                    "--limit", "3", "--gen_kwargs", "max_gen_toks=5", "--batch_size", "2", "--log_samples",
                    "--output_path", str(out)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = results_json(out)
    assert results["lm_eval_audio_model"]["reasoning_trace"]["budget"] == 5
    counted = results["lm_eval_audio_data"]["reasoning_traces"]["spoken_digits_gen"]
    assert (counted["answers"], counted["traces"], counted["unfinished"]) == (3, 3, 3)
    assert results["results"]["spoken_digits_gen"]["exact_match,first_digit_word"] == 0.0
    samples = [json.loads(line) for path in out.rglob("samples_*.jsonl") for line in path.read_text().splitlines()]
    assert len(samples) == 3 and all(s["resps"] == [[""]] and s["reasoning_finished"] == [False] for s in samples)
    assert all(isinstance(s["reasoning"][0], str) and s["reasoning"][0] for s in samples)
    # said once, with the task's total (the model answered in batches), and the budget in force said at start
    said = [line for line in proc.stderr.splitlines() if line.startswith("WARNING [lm_eval.audio]") and "ran out of" in line]
    assert len(said) == 1, said
    assert "spoken_digits_gen: 3 of 3 answer(s) ran out of tokens inside the reasoning trace" in proc.stderr
    assert "the model thinks before it answers: each reply gets up to 5 new tokens" in proc.stderr


@pytest.mark.parametrize("task", ["tiny_capitals", "tiny_arc", "tiny_wikitext"])
def test_a_thinking_model_runs_lm_evals_own_text_tasks_of_every_output_type(tiny_qwen3_omni_thinking, tmp_path, task):
    """lm-eval's own scoring gets the answer as the str it expects (generate_until makes its gold ``type(result)(gold)``),
    for each output type: generation, multiple choice and rolling log-likelihood, on text tasks of lm-eval's form."""
    from conftest import REPO, results_json, run_cli

    out = tmp_path / "run"
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                    f"pretrained={tiny_qwen3_omni_thinking},dtype=float32", "--tasks", task, "--limit", "2",
                    "--gen_kwargs", "max_gen_toks=4", "--include_path", str(REPO / "tests" / "fixtures" / "text_tasks"),
                    "--output_path", str(out)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    metrics = results_json(out)["results"][task]
    expected = {"tiny_capitals": "exact_match,none", "tiny_arc": "acc,none", "tiny_wikitext": "word_perplexity,none"}
    assert isinstance(metrics[expected[task]], float)
    if task == "tiny_capitals":  # the trace never closes in 4 tokens: no answer, scored wrong
        assert metrics["exact_match,none"] == 0.0


def test_a_thinking_model_scores_an_option_as_its_answer_after_an_empty_trace(tiny_qwen3_omni_thinking, clips):
    """Qwen3's form of a reply without thinking: the option follows <think>\\n\\n</think>\\n\\n, not the open trace."""
    model = HFAudioLM(pretrained=tiny_qwen3_omni_thinking, device="cpu", dtype="float32")
    with _received(model.model) as seen:
        (score, _), = model.loglikelihood([ll("<audio>Which digit?", " one two", [clips[2]])])
    prompt = QWEN3_OMNI_PROMPT.format(text="Which digit?") + "<think>\n\n</think>\n\n"
    assert _collapsed(model.tokenizer, seen[0], "<|audio_pad|>") == prompt
    # the same score as a full forward over prompt, closed trace and option (the option scored after the header)
    audio, sr = sf.read(clips[2], dtype="float32")
    tok = model.tokenizer
    whole = model.processor(text=[prompt + "one two"], audio=[audio], sampling_rate=sr, return_tensors="pt")
    n_option = len(tok(prompt + "one two", add_special_tokens=False)["input_ids"]) - len(tok(prompt)["input_ids"])
    with torch.no_grad():
        lp = torch.log_softmax(model.model(**whole).logits[0].float(), -1)
    ids = whole["input_ids"][0].tolist()
    assert score == pytest.approx(sum(float(lp[p - 1, ids[p]]) for p in range(len(ids) - n_option, len(ids))), abs=1e-4)


@pytest.mark.parametrize("tiny_model", family_proofs.batched_clips())
def test_documents_sharing_a_prompt_pass_score_as_alone_in_every_batched_family(tiny_model, request, clips):
    """The families that batch their clips: at bs=8, four documents of two options each (clips of different lengths)
    run their prompts in one forward, and each option scores as at bs=1 (a prompt pass padded on the wrong side
    moved Audio Flamingo 3's scores by 2.85; Gemma 4's sliding-window cache, shared by padded prompts, moved its by
    3.3: it runs each document's prompt alone)."""
    pretrained = request.getfixturevalue(tiny_model)
    requests = [ll(f"<audio>Which letter? {i}", c, [clips[i * 4 + 1]]) for i in range(4) for c in (" A", " B then C")]
    batched = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=8)
    assert batched.adapter.audio_method is None  # the processor's batch goes to the model as it is
    with _received(batched.model) as seen:
        got = batched.loglikelihood(requests)
    assert sum(batched._audio_token_id in ids for ids in seen) == 4
    assert batched._sliding_window_cache() == (tiny_model == "tiny_gemma4")
    alone = HFAudioLM(pretrained=pretrained, device="cpu", dtype="float32", batch_size=1).loglikelihood(requests)
    assert max(abs(a - b) for (a, _), (b, _) in zip(got, alone)) < 1e-4
    assert [g for _, g in got] == [g for _, g in alone]


def test_what_makes_a_checkpoint_a_thinking_one(tiny_qwen3_omni, tmp_path):
    """A template that opens <think> in its generation prompt, or a Qwen3-Omni Thinking checkpoint by its name;
    not a template that only mentions <think> (Qwen3's re-render an earlier turn's reasoning); thinking= decides."""
    import shutil

    def copy(name, template_tail=""):
        folder = tmp_path / name
        shutil.copytree(tiny_qwen3_omni, folder)
        if template_tail:
            path = folder / "chat_template.jinja"
            path.write_text(template_tail + path.read_text())
        return str(folder)

    mentions = copy("Qwen3-Omni-Instruct-like", "{% for m in messages %}{% if m.reasoning_content is defined %}"
                    "<think>{{ m.reasoning_content }}</think>{% endif %}{% endfor %}")
    assert HFAudioLM(pretrained=mentions, device="cpu").thinking.markers is None
    by_name = HFAudioLM(pretrained=copy("Qwen3-Omni-30B-A3B-Thinking"), device="cpu")
    assert by_name.thinking.markers == reasoning.THINK and by_name.thinking.budget == 16384
    assert HFAudioLM(pretrained=tiny_qwen3_omni, device="cpu", thinking="true").thinking.markers == reasoning.THINK
    assert HFAudioLM(pretrained=by_name.pretrained, device="cpu", thinking="false").thinking.markers is None


def test_gen_kwargs_max_gen_toks_is_a_budget_for_hf_audio_only():
    """For openai-audio, thinking_budget= is the word that the served model thinks: --gen_kwargs must not say it."""
    from types import SimpleNamespace

    from lm_eval_audio.harness.cli_patches import budget_from_gen_kwargs

    for model, expected in (("hf-audio", {"pretrained": "x", "thinking_budget": 64}), ("openai-audio", {"model": "x"})):
        model_args = {"pretrained": "x"} if model == "hf-audio" else {"model": "x"}
        config = SimpleNamespace(model=model, gen_kwargs={"max_gen_toks": 64}, model_args=model_args,
                                 metadata=dict(model_args))  # lm-eval's model_args | metadata
        budget_from_gen_kwargs(config)
        assert config.model_args == expected and config.metadata == expected  # what the tasks get too
    # --metadata's own thinking_budget wins in the tasks' metadata, as lm-eval merges model_args | metadata
    config = SimpleNamespace(model="hf-audio", gen_kwargs={"max_gen_toks": 64}, model_args={"pretrained": "x"},
                             metadata={"pretrained": "x", "thinking_budget": 8})
    budget_from_gen_kwargs(config)
    assert config.model_args["thinking_budget"] == 64 and config.metadata["thinking_budget"] == 8
