"""The emotion of spoken answers (issue 55): emotion2vec+ large's reading on FunASR's own model class, built here with
random weights from a config laid out as the Hub's (lm_eval_audio.testing.tiny_emotion2vec), against FunASR's own
``inference`` on synthesized clips (clean speech at 22.05 and 24 kHz, noisy, clipped, silent, very short), batch 1
against batch 8, the results' record, the ``emotion`` metric's two readings (URO-Bench's label, VocalBench's
weights), and the one-line errors before any model loads."""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest
import soundfile as sf
import torch
from test_speech_quality import _espeak

from lm_eval_audio.metrics import speech_quality


@pytest.fixture(scope="module")
def tiny_e2v(tmp_path_factory):
    from lm_eval_audio.testing import tiny_emotion2vec

    return tiny_emotion2vec.build(str(tmp_path_factory.mktemp("emotion2vec")))


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("emotion_clips")
    clean = _espeak("I am so happy to see you again, this is wonderful news.", folder / "clean.wav")
    audio, rate = sf.read(clean, dtype="float32")
    sf.write(folder / "noisy.wav", np.clip(audio + np.random.default_rng(0).normal(0, 0.05, len(audio)), -1, 1)
             .astype("float32"), rate)
    sf.write(folder / "clipped.wav", np.clip(audio * 8, -0.3, 0.3), rate)
    sf.write(folder / "silent.wav", np.zeros(rate, "float32"), rate)
    sf.write(folder / "short.wav", audio[: int(0.1 * rate)], rate)
    sf.write(folder / "empty.wav", np.zeros(0, "float32"), rate)
    return {"clean": clean, "24k": _espeak("Why would you do that to me?", folder / "24k.wav", rate=24000),
            **{name: folder / f"{name}.wav" for name in ("noisy", "clipped", "silent", "short", "empty")}}


def test_the_probabilities_are_funasrs_own_to_the_bit_and_batches_change_nothing(tiny_e2v, clips):
    from lm_eval_audio.model_wrappers import emotion2vec
    from lm_eval_audio.model_wrappers.quality_raters import Emotion

    rater = Emotion(str(tiny_e2v))
    model = rater.recognizer.model
    tokens = (tiny_e2v / "tokens.txt").read_text(encoding="utf-8").split()
    rated = [name for name in clips if name != "empty"]
    for name in rated:
        with torch.no_grad():  # as FunASR's AutoModel.generate calls it
            (reference,), _ = model.inference([str(clips[name])], key=["k"], device="cpu", extract_embedding=False,
                                              tokenizer=SimpleNamespace(token_list=tokens))
        ours = rater.recognizer.probabilities(str(clips[name]))
        assert list(ours) == list(emotion2vec.LABELS)
        assert list(ours.values()) == reference["scores"], name  # the same floats
    paths = [str(clips[name]) for name in (*rated, "empty")]
    alone = rater.rate(paths, batch_size=1)
    assert rater.rate(paths, batch_size=8) == alone
    assert alone[-1] is None  # no samples: unrated
    distinct = {max(r["emotion"].items(), key=lambda kv: kv[1])[0] for r in alone[:-1]} | {
        round(r["emotion"]["happy"], 6) for r in alone[:-1]}
    assert len(distinct) > 3  # the clips are told apart
    record = rater.record()
    assert record["model"] == str(tiny_e2v) and record["sample_rate"] == 16000
    assert record["model.pt sha256"] == __import__("hashlib").sha256((tiny_e2v / "model.pt").read_bytes()).hexdigest()
    assert record["labels"] == list(emotion2vec.LABELS)


def test_the_emotion_metric_reads_a_label_as_urobench_and_weights_as_vocalbench():
    probabilities = {"angry": 0.1, "disgusted": 0.05, "fearful": 0.05, "happy": 0.4, "neutral": 0.2, "other": 0.05,
                     "sad": 0.1, "surprised": 0.03, "unknown": 0.02}
    # URO-Bench GenEmotion (metrics/mark_emotion.py:118): the target's probability among all nine
    assert speech_quality.emotion_score(probabilities, "happy") == 0.4
    assert speech_quality.emotion_score(probabilities, "Sad") == 0.1
    # VocalBench (utils/calc_emotion_acoustic.py:44-49): its five labels' probabilities scaled to sum to one (its
    # re-softmax of their logs), times the item's five scores
    scores = {"angry": 0, "happy": 5, "neutral": 3, "sad": 1, "surprised": 2}
    total = 0.1 + 0.4 + 0.2 + 0.1 + 0.03
    expected = (0.4 * 5 + 0.2 * 3 + 0.1 * 1 + 0.03 * 2) / total
    assert speech_quality.emotion_score(probabilities, scores) == pytest.approx(expected, rel=1e-12)
    logs = np.log(np.array([0.1, 0.4, 0.2, 0.1, 0.03]) / 0.95)  # their chain, from a six-way softmax with <unk>
    again = np.exp(logs - logs.max()) / np.exp(logs - logs.max()).sum()
    assert float(again @ np.array([0, 5, 3, 1, 2])) == pytest.approx(expected, rel=1e-12)
    for target in (None, "joyful", {"joyful": 1}, {}, {"happy": "high"}):  # nothing it can read: unrated
        assert speech_quality.emotion_score(probabilities, target) is None


def test_a_document_without_a_target_emotion_is_counted_unrated_unless_it_asks_for_none():
    from lm_eval_audio.metrics.spoken_answer import SpokenAnswer

    answer = SpokenAnswer("x", "x", {"path": "a.wav", "sha256": "0" * 64, "seconds": 1.0},
                          quality={"emotion": {"happy": 0.9, "sad": 0.1}})
    assert speech_quality.per_document(["emotion"], [answer], {"target_emotion": "happy"}) == {
        "emotion": 0.9, "speech_unrated": 0}
    assert speech_quality.per_document(["emotion"], [answer], {"question": "?"}) == {
        "emotion": None, "speech_unrated": 1}
    # a document that says it asks for none (VocalBench instruction_following's items but the emotion ones)
    assert speech_quality.per_document(["emotion"], [answer], {"target_emotion": None}) == {
        "emotion": None, "speech_unrated": 0}
    assert speech_quality.shown("emotion", answer.quality["emotion"]) == "emotion happy 0.900"


def test_a_folder_that_is_not_the_models_stops_in_one_line(tiny_e2v, tmp_path):
    import shutil

    from lm_eval_audio.model_wrappers import emotion2vec

    folder = tmp_path / "e2v"
    shutil.copytree(tiny_e2v, folder)
    (folder / "model.pt").unlink()
    with pytest.raises(ValueError, match=r"emotion_model=.*e2v is a folder without model.pt: give the folder of "
                                         r"emotion2vec/emotion2vec_plus_large"):
        emotion2vec.folder(str(folder))
    shutil.copy(tiny_e2v / "model.pt", folder / "model.pt")
    (folder / "tokens.txt").write_text("angry\nhappy\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"tokens.txt lists \['angry', 'happy'\], not the nine labels"):
        emotion2vec.Emotion2vecRecognizer(str(folder))
    shutil.copy(tiny_e2v / "tokens.txt", folder / "tokens.txt")
    state = torch.load(folder / "model.pt", weights_only=True)
    state["state_dict"].pop("proj.weight")
    torch.save(state, folder / "model.pt")
    with pytest.raises(ValueError, match=r"model.pt does not fit its config.yaml \(1 weight\(s\) missing, 0 of "
                                         r"another shape, first proj.weight\)"):
        emotion2vec.Emotion2vecRecognizer(str(folder))


def test_without_the_weights_offline_the_check_says_what_to_download(tmp_path, monkeypatch):
    from lm_eval_audio.model_wrappers.answer_quality import QualitySpec

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty_cache"))
    spec = QualitySpec.of("t", ["emotion"], {})
    with pytest.raises(ValueError) as raised:
        spec.check()
    line = str(raised.value)
    assert "\n" not in line
    assert "emotion_model=emotion2vec/emotion2vec_plus_large" in line and "hf download" in line
    assert os.fspath(tmp_path / "empty_cache") in line
