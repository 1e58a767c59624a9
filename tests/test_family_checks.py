"""What hf-audio checks of a checkpoint before it runs it: a family it does not run stops in one line naming the family
and what to do (refused, not implemented by transformers, unknown), a family without its package or its speech LoRA
stops naming what is missing, a known model_type decides over a folder's name; family=generic and the audio
window read from each feature extractor."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from conftest import REPO, run_cli
from conftest import gen_request as gen
from conftest import ll_request as ll

from lm_eval_audio.model_wrappers import families, family_adapters
from lm_eval_audio.model_wrappers.families import UnsupportedFamily
from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM


# --- families hf-audio does not run: one line that names the family and what to do ---------------------------


REFUSED = {model_type: f.name for f in family_adapters.all_families() if f.refused for model_type in f.model_types}


@pytest.mark.parametrize("model_type", sorted(REFUSED))
def test_a_refused_family_stops_at_load_naming_it(model_type, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type}))  # read before anything loads
    name = REFUSED[model_type]
    with pytest.raises(UnsupportedFamily) as error:
        HFAudioLM(pretrained=str(tmp_path), device="cpu")
    message = str(error.value)
    assert "\n" not in message and name in message and "--model openai-audio" in message


def test_family_generic_cannot_skip_a_familys_own_adapter(tiny_granite_speech):
    with pytest.raises(UnsupportedFamily, match="without the Granite-Speech adapter .*speech LoRA.*leave family= out"):
        HFAudioLM(pretrained=tiny_granite_speech, device="cpu", family="generic")


@pytest.mark.parametrize("config, folder, name, server", [
    ({"model_type": "kimia", "architectures": ["MoonshotKimiaForCausalLM"]}, "Kimi-Audio-7B-Instruct", "Kimi-Audio",
     "vllm serve moonshotai/Kimi-Audio-7B-Instruct"),
    (None, "midashenglm-7b", "MiDashengLM", "vllm serve mispeech/midashenglm-7b"),
    (None, "Step-Audio-R1", "Step-Audio-R1", "--served-model-name Step-Audio-R1"),
    ({"architectures": ["StepAudio2ForCausalLM"]}, "Step-Audio-2-mini", "Step-Audio 2", "--tokenizer-mode step_audio_2"),
    (None, "MiMo-Audio-7B-Instruct", "MiMo-Audio", "vLLM-Omni"),
    (None, "LongCat-Flash-Omni", "LongCat-Flash-Omni", "sglang.launch_server"),
    (None, "Baichuan-Audio-Instruct", "Baichuan-Audio", None),
    (None, "SALMONN-13B", "SALMONN", None),
    (None, "Qwen-Audio-Chat", "Qwen-Audio", None),
])  # fmt: skip
def test_families_transformers_does_not_implement_name_the_way_to_evaluate_them(config, folder, name, server,
                                                                                tmp_path):
    """One line: the family, the server that implements it, its serve command and the openai-audio line (or that
    no server implements it)."""
    path = tmp_path / folder
    path.mkdir()
    if config:
        (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(UnsupportedFamily, match=f"a {name} checkpoint, a family transformers does not implement") as e:
        HFAudioLM(pretrained=str(path), device="cpu")
    message = str(e.value)
    assert "\n" not in message and "docs/SERVING.md" in message
    if server:
        assert server in message and "--model openai-audio --model_args base_url=http://HOST:8000/v1,model=" in message
    else:
        assert "cannot be evaluated here yet" in message


def test_a_served_familys_name_in_a_parent_folder_refuses_nothing():
    """A served family is recognised by the checkpoint's own name (a Hub id's, a folder's last part), not by the
    folders above it: a text LLM kept under qwen-audio-eval/ is no Qwen-Audio checkpoint."""
    family_adapters.refuse_known("/home/u/qwen-audio-eval/Qwen2.5-0.5B-Instruct", {"model_type": "qwen2"}, None)
    with pytest.raises(UnsupportedFamily, match="is a Qwen-Audio checkpoint"):
        family_adapters.refuse_known("/home/u/models/Qwen-Audio-Chat/", {}, None)


def test_an_unknown_audio_family_needs_family_generic():
    with pytest.raises(UnsupportedFamily, match="model_type dots3_note.*pass family=generic"):
        family_adapters.resolve("dots-studio/dots3-note-prev", {"model_type": "dots3_note"}, True, None)
    assert family_adapters.resolve("dots", {"model_type": "dots3_note"}, True, "generic") is families.GENERIC_PATH
    assert family_adapters.resolve("HuggingFaceTB/SmolLM2", {"model_type": "llama"}, False, None) is families.TEXT_ONLY
    with pytest.raises(UnsupportedFamily, match="family='qwen' is not an option"):
        family_adapters.resolve("x", {"model_type": "qwen2_audio"}, True, "qwen")


def test_the_refusal_reaches_the_lm_eval_user_as_one_line(tmp_path):
    from transformers import AutoConfig

    AutoConfig.for_model("cosmos3_omni").save_pretrained(tmp_path / "cosmos3_omni")
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tmp_path / 'cosmos3_omni'}",
                    "--tasks", "spoken_digits", "--output_path", str(tmp_path / "out")])
    assert proc.returncode != 0
    assert "hf-audio: Cosmos3-Omni (" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("tiny_model, package, extra, name", [
    ("tiny_granite_speech", "peft", "granite-speech", "Granite-Speech"),
    ("tiny_gemma3n", "timm", "gemma3n", "Gemma 3n"),
    ("tiny_qwen2_5_omni", "torchvision", "qwen2-5-omni", "Qwen2.5-Omni"),
    ("tiny_phi4_multimodal", "peft", "phi4-multimodal", "Phi-4-multimodal"),
    ("tiny_qwen3_omni", "torchvision", "qwen3-omni", "Qwen3-Omni"),
    ("tiny_gemma4", "torchvision", "gemma4", "Gemma 4"),
    ("tiny_voxtral", "mistral_common", "voxtral", "Voxtral"),
    ("tiny_voxtral", "soxr", "voxtral", "Voxtral"),
])  # fmt: skip
def test_a_family_without_its_package_stops_naming_it(tiny_model, package, extra, name, request, monkeypatch):
    """Before the processor loads."""
    import configparser

    from lm_eval_audio.model_wrappers import family_adapters

    pretrained = request.getfixturevalue(tiny_model)
    real = family_adapters.importlib.util.find_spec
    monkeypatch.setattr(family_adapters.importlib.util, "find_spec", lambda mod: None if mod == package else real(mod))
    loaded = []
    monkeypatch.setattr("transformers.AutoProcessor.from_pretrained", lambda *a, **k: loaded.append(a))
    with pytest.raises(UnsupportedFamily) as error:
        HFAudioLM(pretrained=pretrained, device="cpu")
    message = str(error.value)
    assert "\n" not in message and not loaded
    assert f"{name} ({pretrained!r}) needs {package} for" in message and f"pip install -e '.[{extra}]'" in message
    extras = configparser.ConfigParser()
    extras.read(REPO / "setup.cfg")
    assert package in extras["options.extras_require"][extra]  # the extra the message names installs it


@pytest.mark.parametrize("tiny_model, missing, message", [
    ("tiny_granite_speech", "adapter_config.json", "config.json says has_lora_adapter but no speech LoRA was loaded"),
    ("tiny_phi4_multimodal", "speech-lora", "its speech LoRA could not be loaded from speech-lora/"),
])  # fmt: skip
def test_a_checkpoint_without_its_speech_lora_stops(tiny_model, missing, message, request, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(request.getfixturevalue(tiny_model), partial)
    shutil.rmtree(partial / missing) if (partial / missing).is_dir() else (partial / missing).unlink()
    with pytest.raises(UnsupportedFamily, match=message):
        HFAudioLM(pretrained=str(partial), device="cpu")


def test_a_known_model_type_decides_over_a_folder_name(tiny_qwen2_audio, tmp_path):
    """A fine-tuned Qwen2-Audio kept in a folder named after a served family is still Qwen2-Audio."""
    import shutil

    folder = tmp_path / "vs-midashenglm" / "qwen2-audio-ft"
    shutil.copytree(tiny_qwen2_audio, folder)
    assert HFAudioLM(pretrained=str(folder), device="cpu").family.name == "Qwen2-Audio"


def test_family_generic_runs_a_proven_family_on_the_generic_path(tiny_qwen2_audio, clips):
    model = HFAudioLM(pretrained=tiny_qwen2_audio, device="cpu", dtype="float32", family="generic")
    assert model.run_record["family"] == "generic (family=generic)"
    assert len(model.generate_until([gen("<audio>What is it?", [clips[1]])])) == 1
    assert torch.isfinite(torch.tensor(model.loglikelihood([ll("<audio>It is", " a tone", [clips[1]])])[0][0]))


def test_the_audio_window_is_read_from_each_feature_extractor():
    """So that long_audio applies, and the log does not claim clips pass whole when the extractor cuts them."""
    from transformers import Gemma3nAudioFeatureExtractor, WhisperFeatureExtractor

    from lm_eval_audio.model_wrappers.hf_loading import audio_window_seconds

    assert audio_window_seconds(WhisperFeatureExtractor(), 16000) == 30.0
    assert audio_window_seconds(Gemma3nAudioFeatureExtractor(), 16000) == 30.0  # max_length=480,000 samples
    assert audio_window_seconds(None, 16000) is None


@pytest.mark.parametrize("config, name", [
    ({"model_type": "granite_speech", "has_lora_adapter": True}, "Granite-Speech"),
    ({"model_type": "phi4_multimodal"}, "Phi-4-multimodal"),
])  # fmt: skip
def test_a_lora_family_under_a_transformers_that_wants_a_newer_peft_stops(config, name, tmp_path, monkeypatch):
    """transformers checks its peft minimum only when a LoRA is switched, in the middle of a run (5.24 asks
    peft>=0.22.0, which no release met on 2026-11-28): hf-audio says so before anything loads."""
    from importlib import metadata

    from transformers.integrations import peft as integration

    (tmp_path / "config.json").write_text(json.dumps(config))
    monkeypatch.setattr(integration, "MIN_PEFT_VERSION", "99.0.0")
    loaded = []
    monkeypatch.setattr("transformers.AutoProcessor.from_pretrained", lambda *a, **k: loaded.append(a))
    with pytest.raises(UnsupportedFamily) as error:
        HFAudioLM(pretrained=str(tmp_path), device="cpu")
    message = str(error.value)
    assert "\n" not in message and not loaded
    assert message.startswith(f"hf-audio: {name} ({str(tmp_path)!r}) needs peft for its speech LoRA")
    assert (f"transformers {metadata.version('transformers')} switches a LoRA only with peft>=99.0.0, while peft "
            f"{metadata.version('peft')} is installed: pip install 'peft>=99.0.0'") in message
