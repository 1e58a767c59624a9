"""How spoken answers sound (issue 55): DNSMOS against the reference scorer on synthesized clips (clean, noisy,
clipped, silent, very short, another sample rate), speaker similarity with a WavLM x-vector model built from a config,
batch 1 against batch 8, UTMOS on a checkpoint laid out as SpeechMOS's, the quality metrics named in a task's YAML
through a whole run, and the report's page of spoken answers in a real (headless) browser."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from test_cli_errors import _one_error_line
from test_spoken_answers import _served_args, _speaking_server

from conftest import results_json, run_cli
from lm_eval_audio.storage import dnsmos_data

SR = 16000


def _espeak(text: str, path: Path, rate: int | None = None) -> Path:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    if rate:
        subprocess.run(["sox", str(path), "-r", str(rate), str(path.with_suffix(".r.wav"))], check=True)
        path.with_suffix(".r.wav").replace(path)
    return path


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> dict[str, Path]:
    """Clean espeak-ng speech, the same under noise, clipped, silence, a 0.3 s clip, a 24 kHz clip, a 16 s one."""
    folder = tmp_path_factory.mktemp("clips")
    clean = _espeak("The quick brown fox jumps over the lazy dog, and then it runs far away into the forest.",
                    folder / "clean.wav")
    audio, rate = sf.read(clean, dtype="float32")
    noise = np.random.default_rng(0).normal(0, 0.05, len(audio)).astype("float32")
    sf.write(folder / "noisy.wav", np.clip(audio + noise, -1, 1), rate)
    sf.write(folder / "clipped.wav", np.clip(audio * 8, -0.3, 0.3), rate)
    sf.write(folder / "silent.wav", np.zeros(2 * rate, "float32"), rate)
    sf.write(folder / "short.wav", audio[: int(0.3 * rate)], rate)
    sf.write(folder / "long.wav", np.concatenate([audio] * 3), rate)  # over 10.01 s: two windows or more
    return {"clean": clean, "noisy": folder / "noisy.wav", "clipped": folder / "clipped.wav",
            "silent": folder / "silent.wav", "short": folder / "short.wav", "long": folder / "long.wav",
            "24k": _espeak("Another voice says something else entirely.", folder / "24k.wav", rate=24000)}


@functools.lru_cache(maxsize=1)
def _reference_dnsmos():
    """speechmos 0.0.1.1's DNSMOS scorer (the DNS Challenge's dnsmos_local.py, restated), run from the wheel setup
    downloaded: the reference ours is checked against."""
    wheelhouse = Path(os.environ.get("LM_EVAL_AUDIO_WHEELHOUSE")
                      or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lm_eval_audio" / "wheels")
    wheel = wheelhouse / dnsmos_data.WHEEL_FILE
    assert wheel.is_file(), f"scripts/setup.sh downloads {wheel}"
    unpacked = Path(os.environ.get("TMPDIR", "/tmp")) / f"lm_eval_audio_speechmos_{os.getuid()}"
    if not (unpacked / "speechmos" / "dnsmos.py").is_file():
        zipfile.ZipFile(wheel).extractall(unpacked)
    sys.path.insert(0, str(unpacked))
    try:
        from speechmos import dnsmos
    finally:
        sys.path.remove(str(unpacked))
    return dnsmos


@pytest.fixture(scope="module")
def dnsmos():
    from lm_eval_audio.model_wrappers.quality_raters import DnsMos

    return DnsMos()


@pytest.mark.slow  # 10 to 25 s: kept out of the README's 6-minute test command; .ci/run runs it
def test_dnsmos_gives_the_reference_scorers_numbers_on_every_kind_of_clip(clips, dnsmos):
    import librosa

    reference = _reference_dnsmos()
    names = list(clips)
    ours = dnsmos.rate([str(clips[n]) for n in names], batch_size=8)
    for name, scores in zip(names, ours):
        theirs = reference.run(librosa.load(clips[name], sr=SR)[0], SR)
        for metric, key in (("sig", "sig_mos"), ("bak", "bak_mos"), ("ovrl", "ovrl_mos"), ("p808", "p808_mos")):
            # P.808's windows are averaged in float32 there, in float64 here: a difference below 1e-6
            assert scores[f"dnsmos_{metric}"] == pytest.approx(float(theirs[key]), abs=1e-6), (name, metric)
    by_name = dict(zip(names, ours))
    # what the instruments are for: noise costs background quality, clipping costs signal quality
    assert by_name["noisy"]["dnsmos_bak"] < by_name["clean"]["dnsmos_bak"] - 0.5
    assert by_name["clipped"]["dnsmos_sig"] < by_name["clean"]["dnsmos_sig"]
    assert all(1.0 <= v <= 5.0 for scores in ours for k, v in scores.items() if k != "dnsmos_p808")


def test_dnsmos_batches_change_no_score_and_a_clip_without_samples_is_unrated(clips, dnsmos, tmp_path):
    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, "float32"), SR)
    paths = [str(clips[name]) for name in ("clean", "long", "short")] + [str(empty)]
    one, three = dnsmos.rate(paths, batch_size=1), dnsmos.rate(paths, batch_size=3)  # windows split across batches
    assert len(dnsmos.windows(dnsmos.read(paths[1]))) >= 2
    assert one == three
    assert one[-1] is None and all(one[:-1])


def test_dnsmos_says_in_one_line_where_its_models_are_missing(tmp_path, monkeypatch):
    from lm_eval_audio.model_wrappers.answer_quality import QualitySpec

    monkeypatch.setattr(dnsmos_data, "default_folder", lambda: tmp_path / "dnsmos")
    with pytest.raises(ValueError) as error:
        QualitySpec.of("t", ["dnsmos_ovrl"], {}).check()
    message = str(error.value)
    assert "sig_bak_ovr.onnx" in message and "python -m lm_eval_audio.storage.dnsmos_data" in message
    assert "\n" not in message


def tiny_xvector(folder: Path) -> Path:
    """A WavLMForXVector with random weights and its feature extractor, from a config (the real one is
    microsoft/wavlm-base-plus-sv: the same classes, with TDNN dilations as there)."""
    import torch
    from transformers import Wav2Vec2FeatureExtractor, WavLMConfig, WavLMForXVector

    torch.manual_seed(0)
    config = WavLMConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37,
                         conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 8, 4),
                         feat_extract_norm="layer", num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                         tdnn_dim=(16, 16, 16), tdnn_kernel=(5, 3, 3), tdnn_dilation=(1, 2, 3), xvector_output_dim=8,
                         num_buckets=32, max_bucket_distance=64)
    WavLMForXVector(config).eval().save_pretrained(folder)
    Wav2Vec2FeatureExtractor(sampling_rate=SR, do_normalize=True, return_attention_mask=True).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def xvector(tmp_path_factory) -> Path:
    return tiny_xvector(tmp_path_factory.mktemp("xvector"))


@pytest.mark.slow  # 10 to 25 s: kept out of the README's 6-minute test command; .ci/run runs it
def test_speaker_similarity_is_the_same_in_any_batch_and_alone_is_transformers_own(clips, xvector):
    import torch

    from lm_eval_audio.audio import decoding
    from lm_eval_audio.model_wrappers.quality_raters import SpeakerSimilarity

    rater = SpeakerSimilarity(str(xvector))
    paths = [str(p) for p in clips.values()]
    references = [decoding.load(p, SR) for p in reversed(paths)]
    one, eight = rater.rate(paths, references, 1), rater.rate(paths, references, 8)
    for a, b in zip(one, eight):
        assert a["speaker_similarity"] == pytest.approx(b["speaker_similarity"], abs=1e-5)
    # a clip against itself: 1; the 24 kHz answer is heard at 16 kHz, as its reference was read
    same = rater.rate([str(clips["24k"])], [decoding.load(clips["24k"], SR)])[0]["speaker_similarity"]
    assert same == pytest.approx(1.0, abs=1e-5)
    clip = decoding.load(clips["clean"], SR)
    inputs = rater.extractor([clip], sampling_rate=SR, return_tensors="pt", return_attention_mask=True)
    with torch.no_grad():
        theirs = rater.model(**inputs).embeddings[0]
        ours = rater._xvectors(inputs["input_values"], inputs["attention_mask"])[0]
    assert torch.allclose(theirs, ours, atol=1e-6)
    assert rater.rate([str(clips["clean"])], [None]) == [None]  # no reference clip: unrated


RATED_TASK = "spoken_digits_spoken"  # names the four DNSMOS metrics in its metric_list, like any other metric


@pytest.fixture(scope="module")
def rated_run(tmp_path_factory) -> Path:
    """A served model's spoken answers to spoken_digits_spoken, rated: the run's output folder."""
    out = tmp_path_factory.mktemp("rated") / "out"
    with _speaking_server() as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args", _served_args(server), "--tasks",
                        RATED_TASK, "--output_path", str(out), "--log_samples"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.mark.slow  # a run of the served model's spoken answers (rated_run): 15 s
def test_the_quality_metrics_a_task_names_are_scored_recorded_and_logged(rated_run, dnsmos):
    out, task = rated_run, RATED_TASK
    results = results_json(out)
    metrics = results["results"][task]
    samples = [json.loads(line) for line in next((out / "served-omni").glob(f"samples_{task}_*.jsonl")).open()]
    assert len(samples) == 10
    (said,) = samples[0]["spoken_answer"]
    expected = dnsmos.rate([said["path"]])[0]  # every answer is the same espeak-ng clip
    for metric in ("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "dnsmos_p808"):
        assert metrics[f"{metric},first_digit_word"] == pytest.approx(expected[metric], abs=1e-9)
        assert said["quality"][metric] == pytest.approx(expected[metric], abs=1e-9)
        assert samples[3][metric] == pytest.approx(expected[metric], abs=1e-9)
        assert results["higher_is_better"][task][metric] is True
    assert metrics["speech_unrated,first_digit_word"] == 0 and metrics["spoken_failed,first_digit_word"] == 0
    quality = results["lm_eval_audio_spoken"][task]["quality"]
    assert quality["metrics"] == ["dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "dnsmos_p808"]
    assert quality["raters"]["dnsmos"]["sha256"] == dnsmos_data.sha256s()
    assert quality["raters"]["dnsmos"]["sample_rate"] == SR


def test_a_tasks_answers_are_rated_against_each_documents_own_clip_and_the_unrated_counted(clips, xvector):
    from types import SimpleNamespace

    from lm_eval_audio.metrics import speech_quality
    from lm_eval_audio.metrics.spoken_answer import SpokenAnswer
    from lm_eval_audio.model_wrappers import answer_quality
    from lm_eval_audio.storage import run_state
    from lm_eval_audio.storage.digests import file_sha256

    def answer(name):
        path = clips[name]
        return SpokenAnswer("x", "x", {"path": str(path), "sha256": file_sha256(path), "seconds": 1.0})

    docs = [{"audio": str(clips["clean"])}, {"audio": str(clips["clean"])}, {"audio": None},
            {"audio": str(clips["clean"])}]
    silent = SpokenAnswer("", "", {"path": str(clips["clean"]) + ".absent.wav", "sha256": "0" * 64, "seconds": 0.0})
    said = [answer("clean"), answer("24k"), answer("clean"), silent]  # the last: an empty text read aloud
    task = SimpleNamespace(task_name="t", doc_to_audio=lambda doc: [doc["audio"]] if doc["audio"] else [],
                           instances=[SimpleNamespace(doc_id=i, doc=docs[i], resps=[a]) for i, a in enumerate(said)])
    run = run_state.Run()
    run.quality = {"t": answer_quality.QualitySpec.of("t", ["speaker_similarity"], {"speaker_model": str(xvector)})}
    token = run_state.started(run)
    try:
        answer_quality.rate_task(task)
        assert said[0].quality["speaker_similarity"] == pytest.approx(1.0, abs=1e-5)  # the document's own clip
        # another voice: not 1 (the random weights tell voices apart only a little)
        assert abs(said[1].quality["speaker_similarity"] - 1.0) > 1e-5
        assert said[2].quality == {}  # a document without a clip: nothing to compare with
        assert said[3].quality == {}  # no samples: given to no rater, and the others still rated
        scores = [speech_quality.per_document(["speaker_similarity"], [a]) for a in said]
        assert [s["speech_unrated"] for s in scores] == [0, 0, 1, 1]
        assert answer_quality.record("t")["raters"]["speaker_similarity"]["model"] == str(xvector)
    finally:
        run_state.ended(token)


def test_a_quality_metric_on_a_task_answered_in_text_stops_before_the_model_loads(tmp_path):
    line = _one_error_line(run_cli(["lm_eval", "--model", "cascade", "--tasks", "spoken_digits_spoken", "--metadata",
                                    '{"spoken_answers": false}', "--output_path", str(tmp_path / "out")]))
    assert "spoken_digits_spoken names dnsmos_sig, dnsmos_bak, dnsmos_ovrl, dnsmos_p808" in line
    assert "spoken_answers: true" in line


@pytest.mark.slow  # a run of the served model's spoken answers (rated_run): 15 s
def test_the_report_puts_how_answers_sound_beside_the_headline_and_its_page_plays_them(rated_run, tmp_path):
    report = tmp_path / "report"
    proc = run_cli(["lm-eval-audio", "report", str(rated_run), "--output", str(report), "--answers", "3"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (report / "report.md").read_text()
    (row,) = [line for line in text.splitlines() if line.startswith(f"| {RATED_TASK} | served-omni |")]
    ovrl = results_json(rated_run)["results"][RATED_TASK]["dnsmos_ovrl,first_digit_word"]
    assert "## Spoken answers" in text and f"{ovrl:.3f}" in row and "exact_match" in row
    assert "dnsmos: DNS Challenge DNSMOS" in row and "whisper-tiny.en" in row
    page = report / "answers.html"
    players = re.findall(r'<audio controls preload="metadata" src="([^"]+)">', page.read_text())
    assert len(players) == 3 and all((report / src).is_file() for src in players)
    # a real browser loads each player's audio: headless Chromium, with a probe that records what each one decoded
    probe = ("<script>document.querySelectorAll('audio').forEach(a=>{a.addEventListener('loadedmetadata',"
             "()=>{a.dataset.duration=a.duration});a.addEventListener('error',()=>{a.dataset.error=1})});</script>")
    probed = report / "probed.html"
    probed.write_text(page.read_text().replace("</body>", probe + "</body>"))
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                          "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    durations = [float(d) for d in re.findall(r'data-duration="([0-9.]+)"', dom)]
    seconds = sf.info(report / players[0]).duration
    assert len(durations) == 3 and durations[0] == pytest.approx(seconds, abs=0.01) and "data-error" not in dom


def speechmos_state(seed: int = 0) -> dict:
    """A state dict named and shaped as SpeechMOS v1.2.0's utmos22_strong checkpoint (its model.py and
    fairseq_alt.py: wav2vec 2.0 base in fairseq's names, the domain and judge rows, the BLSTM, the projection),
    with random values: what the real checkpoint must load into."""
    import torch

    g = torch.Generator().manual_seed(seed)

    def r(*shape):
        return torch.randn(*shape, generator=g) * 0.02

    ssl = {"mask_emb": r(768), "feature_extractor.conv_layers.0.2.weight": 1 + r(512),
           "feature_extractor.conv_layers.0.2.bias": r(512), "layer_norm.weight": 1 + r(512), "layer_norm.bias": r(512),
           "post_extract_proj.weight": r(768, 512), "post_extract_proj.bias": r(768),
           "encoder.pos_conv.0.bias": r(768), "encoder.pos_conv.0.weight_g": 1 + r(1, 1, 128),
           "encoder.pos_conv.0.weight_v": r(768, 48, 128), "encoder.layer_norm.weight": 1 + r(768),
           "encoder.layer_norm.bias": r(768)}
    for i, kernel in enumerate((10, 3, 3, 3, 3, 2, 2)):
        ssl[f"feature_extractor.conv_layers.{i}.0.weight"] = r(512, 1 if i == 0 else 512, kernel)
    for layer in range(12):
        at = f"encoder.layers.{layer}."
        for proj in ("q", "k", "v", "out"):
            ssl[f"{at}self_attn.{proj}_proj.weight"], ssl[f"{at}self_attn.{proj}_proj.bias"] = r(768, 768), r(768)
        for norm in ("self_attn_layer_norm", "final_layer_norm"):
            ssl[f"{at}{norm}.weight"], ssl[f"{at}{norm}.bias"] = 1 + r(768), r(768)
        ssl[f"{at}fc1.weight"], ssl[f"{at}fc1.bias"] = r(3072, 768), r(3072)
        ssl[f"{at}fc2.weight"], ssl[f"{at}fc2.bias"] = r(768, 3072), r(768)
    state = {f"wav2vec2.{k}": v for k, v in ssl.items()}
    state.update({"domain_emb": r(1, 128), "judge_emb": r(1, 128), "projection.0.weight": r(2048, 1024),
                  "projection.0.bias": r(2048), "projection.2.weight": r(1, 2048), "projection.2.bias": r(1)})
    for direction in ("", "_reverse"):
        state.update({f"blstm.weight_ih_l0{direction}": r(2048, 1024), f"blstm.weight_hh_l0{direction}": r(2048, 512),
                      f"blstm.bias_ih_l0{direction}": r(2048), f"blstm.bias_hh_l0{direction}": r(2048)})
    return state


@pytest.mark.slow  # 10 to 25 s: kept out of the README's 6-minute test command; .ci/run runs it
def test_utmos_loads_speechmos_checkpoint_whole_and_scores_each_clip_alone(clips, tmp_path):
    import torch

    from lm_eval_audio.model_wrappers import answer_quality, utmos22
    from lm_eval_audio.storage.digests import file_sha256

    state = speechmos_state()
    state["projection.2.weight"] = torch.zeros(1, 2048)  # every frame's score is the bias: the clip's is 2b + 3
    state["projection.2.bias"] = torch.tensor([0.25])
    checkpoint = tmp_path / utmos22.FILE
    torch.save(state, checkpoint)
    spec = answer_quality.QualitySpec.of("t", ["utmos"], {"utmos_checkpoint": str(checkpoint)})
    spec.check()
    rater = answer_quality._load(spec.raters()[0])
    assert rater.record()["sha256"] == file_sha256(checkpoint)
    flat = rater.rate([str(clips["clean"]), str(clips["24k"])])
    assert [s["utmos"] for s in flat] == pytest.approx([3.5, 3.5], abs=1e-6)

    state = speechmos_state(seed=1)
    torch.save(state, checkpoint)
    rater = answer_quality._load(spec.raters()[0])
    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, "float32"), SR)
    paths = [str(clips["clean"]), str(clips["24k"]), str(clips["short"]), str(empty)]
    together = rater.rate(paths)
    assert together[-1] is None and len({round(s["utmos"], 6) for s in together[:-1]}) == 3
    assert rater.rate([paths[1]]) == [together[1]]  # alone or among others, the same score

    del state["blstm.bias_hh_l0_reverse"]
    torch.save(state, checkpoint)
    with pytest.raises(ValueError, match=f"is not SpeechMOS's {utmos22.FILE}"):
        utmos22.load_speechmos(checkpoint)


def test_utmos_without_its_checkpoint_offline_says_where_to_put_it(tmp_path, monkeypatch):
    from lm_eval_audio.model_wrappers import answer_quality, utmos22

    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    with pytest.raises(ValueError) as error:
        answer_quality.QualitySpec.of("t", ["utmos"], {}).check()
    message = str(error.value)
    assert utmos22.URL in message and str(tmp_path / "torch" / "hub" / "checkpoints" / utmos22.FILE) in message
    assert "utmos_checkpoint=" in message and "\n" not in message
