"""How spoken answers sound (issue 55, part 1): DNSMOS against the reference scorer on synthesized clips (clean,
noisy, clipped, silent, very short, another sample rate), speaker similarity with a WavLM x-vector model built from
a config, batch 1 against batch 8, and the quality metrics named in a task's YAML through a whole run."""

from __future__ import annotations

import functools
import json
import os
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


def test_the_quality_metrics_a_task_names_are_scored_recorded_and_logged(tmp_path, dnsmos):
    out = tmp_path / "out"
    task = "spoken_digits_spoken"  # names the four DNSMOS metrics in its metric_list, like any other metric
    with _speaking_server() as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args", _served_args(server), "--tasks", task,
                        "--output_path", str(out), "--log_samples"])
    assert proc.returncode == 0, proc.stderr[-3000:]
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

    docs = [{"audio": str(clips["clean"])}, {"audio": str(clips["clean"])}, {"audio": None}]
    said = [answer("clean"), answer("24k"), answer("clean")]
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
        scores = [speech_quality.per_document(["speaker_similarity"], [a]) for a in said]
        assert [s["speech_unrated"] for s in scores] == [0, 0, 1]
        assert answer_quality.record("t")["raters"]["speaker_similarity"]["model"] == str(xvector)
    finally:
        run_state.ended(token)


def test_a_quality_metric_on_a_task_answered_in_text_stops_before_the_model_loads(tmp_path):
    line = _one_error_line(run_cli(["lm_eval", "--model", "cascade", "--tasks", "spoken_digits_spoken", "--metadata",
                                    '{"spoken_answers": false}', "--output_path", str(tmp_path / "out")]))
    assert "spoken_digits_spoken names dnsmos_sig, dnsmos_bak, dnsmos_ovrl, dnsmos_p808" in line
    assert "spoken_answers: true" in line
