"""Seed-TTS-eval (issue 55): its WER against a restatement of its run_wer.py on the same transcripts, its lists read
in their official layout, and its sample answered in speech offline through the cascade."""

from __future__ import annotations

import json
import string

import pytest

from conftest import results_json, run_cli
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.seedtts import data, scoring


def _reference_process_one(hypo: str, truth: str, lang: str) -> float:
    """BytedanceSpeech/seed-tts-eval@95003fe run_wer.py ``process_one`` (after ``zhconv`` for Chinese, as its
    ``run_asr`` converts the transcript), restated: every punctuation mark of zhon's Chinese set and of
    string.punctuation but the apostrophe removed from both sides, one pass of double spaces to one, Chinese split
    into characters, English lower-cased, jiwer's WER."""
    import jiwer
    import zhconv
    from zhon.hanzi import punctuation

    if lang == "zh":
        hypo = zhconv.convert(hypo, "zh-cn")
    for mark in punctuation + string.punctuation:
        if mark != "'":
            truth, hypo = truth.replace(mark, ""), hypo.replace(mark, "")
    truth, hypo = truth.replace("  ", " "), hypo.replace("  ", " ")
    if lang == "zh":
        truth, hypo = " ".join(truth), " ".join(hypo)
    else:
        truth, hypo = truth.lower(), hypo.lower()
    return jiwer.process_words(truth, hypo).wer


PAIRS = [  # (transcript, text, language): what recognizers write against what the lists hold
    ("Get the trust fund to the bank early.", "Get the trust fund to the bank early.", "en"),
    (" get the trust fund to the bank early", "Get the trust fund to the bank early.", "en"),
    ("It's a small world, isn't it?", "It's a small world, isn't it?", "en"),
    ("Its a small world isnt it", "It's a small world, isn't it?", "en"),
    ("A well-known fact -- really.", "A well known fact, really!", "en"),
    ("Please call Stella.  Ask her to bring these things", "Please call Stella, and ask her to bring these things.",
     "en"),
    ("", "Get the trust fund to the bank early.", "en"),
    ("我们明天一起去公园散步吧。", "我们明天一起去公园散步吧。", "zh"),
    ("我們明天一起去公園散步吧", "我们明天一起去公园散步吧。", "zh"),
    ("这本书的内容很有意思，值得一读！", "这本书的内容很有意思，值得一读。", "zh"),
    ("四是四 十是十 十四是十四", "四是四，十是十，十四是十四，四十是四十。", "zh"),
    ("“你好”，他说。", "你好，他说：", "zh"),
]


def test_the_wer_is_seed_tts_evals_on_every_pair():
    ours = [scoring.utterance_wer(t, ref, lang) for t, ref, lang in PAIRS]
    theirs = [_reference_process_one(t, ref, lang) for t, ref, lang in PAIRS]
    assert ours == theirs  # 0 differences
    assert ours[0] == 0.0 and ours[1] == 0.0 and ours[2] == 0.0 and ours[6] == 1.0 and ours[8] == 0.0
    assert ours[3] > 0  # the apostrophe is kept: "its" is not "it's"


def test_the_aggregate_is_the_mean_of_the_spoken_utterances_rates():
    class Task:
        def not_a_number(self, metric, reason, said=False):
            return float("nan")

    assert scoring.seedtts_wer([0.0, 0.5, None, 1.0], Task()) == pytest.approx(0.5)


def test_the_lists_are_read_in_their_layout_and_bad_lines_are_left_out_with_a_note(tmp_path):
    counts = {s: len(data.load_docs(s, {}, True, notes=DataNotes())) for s in data.SETS}
    assert counts == {"test-en": 3, "test-zh": 2, "test-hard": 1}
    (first,) = [d for d in data.load_docs("test-en", {}, True, notes=DataNotes()) if d["doc_id"] == 0]
    assert first["text"] == "Get the trust fund to the bank early." and first["language"] == "en"
    assert first["audio"][0].endswith("en/prompt-wavs/common_voice_en_0001.wav") and not first["audio_problem"]

    root = tmp_path / "seedtts_testset"
    (root / "en" / "prompt-wavs").mkdir(parents=True)
    (root / "en" / "prompt-wavs" / "p.wav").write_bytes((data.DATA.sample / "en" / "prompt-wavs" /
                                                         "common_voice_en_0001.wav").read_bytes())
    (root / "en" / "meta.lst").write_text("u1|prompt|prompt-wavs/p.wav|Say this.\n"
                                          "u2|prompt|prompt-wavs/p.wav\n"
                                          "u3|prompt|../../escape.wav|Say that.\n"
                                          "u4|prompt|prompt-wavs/absent.wav|Say it.\n", encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("test-en", {"seedtts_data_dir": str(root)}, False, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["u1", "u4"] and docs[1]["audio_problem"]
    said = json.dumps(notes.__dict__, default=str)
    assert "has 3 '|'-separated fields" in said and "leads outside" in said


@pytest.mark.slow  # a cascade run of about a minute
def test_the_sample_is_answered_in_speech_offline_and_reports_wer_only_saying_why(tmp_path):
    out = tmp_path / "out"
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "seedtts_sample", "--output_path", str(out),
                    "--log_samples"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = results_json(out)
    task = "seedtts_sample_test_en"
    metrics = results["results"][task]
    assert metrics["spoken_failed,none"] == 0
    assert "speaker_similarity,none" not in metrics
    not_rated = results["lm_eval_audio_spoken"][task]["quality"]["not_rated"]
    assert "cannot take the prompt speaker's" in not_rated["speaker_similarity"]
    samples = [json.loads(line) for line in next(out.glob(f"*/samples_{task}_*.jsonl")).open()]
    rates = []
    for sample in samples:
        (said,) = sample["spoken_answer"]
        rates.append(scoring.utterance_wer(said["transcript"], sample["doc"]["text"], "en"))
        assert sample["seedtts_wer"] == pytest.approx(rates[-1])
    # the mean of the utterances' rates (above 1 where SmolLM2 says more than the text: insertions count)
    assert len(rates) == 3 and metrics["seedtts_wer,none"] == pytest.approx(sum(rates) / 3)
    assert "bundled recognizer" in proc.stdout
