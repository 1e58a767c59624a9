"""hf-audio's spoken answers (issue 54) on tiny random-weight Qwen2.5-Omni and Qwen3-Omni with their talkers, built
offline from the real transformers classes (``testing.tiny_models.omni_talkers``): each document's saved answer is
exactly what the model's own ``generate(..., generation_mode="audio")`` returns for the same conversation and seed;
with spoken answers off, nothing of the talker loads; a family or checkpoint without a talker stops in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf
import torch
from test_cli_errors import _one_error_line

from conftest import results_json, run_cli

TASK = "bigbench_audio_sample_s2s_navigate"  # two questions, answered in speech (its YAML), max_gen_toks 48
TALKER_TOKENS = 8  # the tiny talkers never say their end: each answer is cut at this many speech tokens


def _conversation(system_prompt: str | None) -> list[dict]:
    """The turns hf-audio asks a Big Bench Audio question with: the clip alone (doc_to_text is empty)."""
    turns = [{"role": "system", "content": [{"type": "text", "text": system_prompt}]}] if system_prompt else []
    return turns + [{"role": "user", "content": [{"type": "audio"}]}]


@pytest.mark.parametrize("arch, voice", [("qwen2_5_omni_talker", "Chelsie"), ("qwen3_omni_talker", "Ethan")])
def test_each_saved_answer_is_what_the_models_own_generate_says(arch, voice, request, tmp_path):
    from transformers import AutoProcessor

    from lm_eval_audio.audio import decoding
    from lm_eval_audio.model_wrappers import family_adapters
    from lm_eval_audio.model_wrappers import generation_config as greedy
    from lm_eval_audio.tasks.bigbench_audio import utils

    checkpoint = request.getfixturevalue(f"tiny_{arch}")
    out = tmp_path / "out"
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                    f"pretrained={checkpoint},talker_max_new_tokens={TALKER_TOKENS}", "--tasks", TASK,
                    "--output_path", str(out), "--log_samples"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = results_json(out)
    record = results["lm_eval_audio_model"]
    assert record["speech"]["voice"] == voice and record["speech"]["sample_rate"] == 24000
    assert record["speech"]["talker_settings"]["talker_do_sample"] is True  # the card's sampling, recorded
    samples = [json.loads(line) for line in next(out.glob(f"*/samples_{TASK}_*.jsonl")).open()]
    assert len(samples) == 2

    family = family_adapters.proven(json.load(open(f"{checkpoint}/config.json")))
    model_class = getattr(__import__("transformers"), family.talker.top_class)
    model = model_class.from_pretrained(checkpoint).eval()
    processor = AutoProcessor.from_pretrained(checkpoint)
    neutral = {f"thinker_{k}": v for k, v in greedy.neutralizing_kwargs(model.thinker.generation_config).items()}
    for sample in samples:
        (said,) = sample["spoken_answer"]
        side = json.loads(open(said["path"].removesuffix(".wav") + ".json").read())
        saved, rate = sf.read(said["path"], dtype="float32")
        assert rate == 24000 and said["seconds"] == pytest.approx(len(saved) / 24000, abs=1e-3)
        (clip,) = [decoding.load(ref, 16000) for ref in utils.doc_to_audio(sample["doc"])]
        text = processor.apply_chat_template(_conversation(family.talker.system_prompt), add_generation_prompt=True,
                                             tokenize=False)
        inputs = processor(text=text, audio=[clip], return_tensors="pt", padding=True)
        torch.manual_seed(side["seed"])
        with torch.inference_mode():
            ids, wav = model.generate(**inputs, speaker=voice, generation_mode="audio", thinker_max_new_tokens=48,
                                      thinker_do_sample=False, thinker_eos_token_id=model.thinker.generation_config
                                      .eos_token_id, talker_max_new_tokens=TALKER_TOKENS, **neutral)
        own = wav.reshape(-1).float().numpy()
        # the file holds 16-bit PCM: equal to the model's waveform to within one step of 16 bits
        assert len(saved) == len(own) > 0
        assert np.abs(saved - np.clip(own, -1, 1)).max() <= 1 / 32767
        written = processor.tokenizer.decode(ids[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        assert said["text"] == written.strip()


def test_without_spoken_answers_nothing_of_the_talker_loads(tiny_qwen2_5_omni_talker, tiny_qwen3_omni_talker):
    from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

    for checkpoint in (tiny_qwen2_5_omni_talker, tiny_qwen3_omni_talker):
        lm = HFAudioLM(pretrained=checkpoint, device="cpu")
        names = [name for name, _ in lm.model.named_parameters()]
        assert names and not [n for n in names if any(p in n for p in ("talker", "token2wav", "code2wav"))]
        assert lm.speaker_model is None and "speech" not in lm.run_record
        spoken = HFAudioLM(pretrained=checkpoint, device="cpu", spoken_answers="true")
        assert any("talker" in name for name, _ in spoken.speaker_model.named_parameters())
        assert spoken.model is spoken.speaker_model.thinker  # the thinker answers every text request


@pytest.mark.parametrize("arch, expected", [
    ("qwen2_audio", "Qwen2-Audio ('{}') answers in text only (it has no talker), so spoken_answers=true cannot run"),
    ("qwen3_omni_thinking", "is a Qwen3-Omni checkpoint without a talker (its config.json does not set "
                            "enable_audio_output"),
    ("qwen2_5_omni_talker", "voice=Alloy is not a Qwen2.5-Omni speaker; give one of Chelsie, Ethan"),
])
def test_a_model_that_cannot_speak_stops_before_it_loads(arch, expected, request, tmp_path):
    checkpoint = request.getfixturevalue(f"tiny_{arch}")
    voice = ",voice=Alloy" if "voice" in expected else ""
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                                    f"pretrained={checkpoint}{voice}", "--tasks", TASK, "--output_path",
                                    str(tmp_path / "out")]))
    assert expected.format(checkpoint) in line
