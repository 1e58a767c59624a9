"""The speech sets read only from a local copy (not on the Hub): AISHELL-2 (tasks/aishell2), in its TEST&DEV
release's layout as Kimi-Audio-Evalkit reads it; the loader on the bundled sample and on broken copies, the one-line
refusal where no copy is set, and the sample's CER recomputed from a CLI run (tests/test_model_card_samples.py)."""

from __future__ import annotations

import shutil

import pytest

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.metrics import error_rates
from lm_eval_audio.tasks.aishell2 import data as aishell2

SAMPLE_GROUPS = ["aishell2_sample"]


def _copy(tmp_path):
    root = tmp_path / "aishell2"
    shutil.copytree(aishell2.SPEC.sample, root)
    return root, root / aishell2.TEST


def test_sample_loads_every_transcript_line_with_its_clip():
    notes = DataNotes()
    docs = aishell2.load_docs({}, True, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["IT0011W0001", "IT0011W0002", "IT0012W0001"]
    assert docs[2]["reference"] == "明天早上7点叫我起床" and docs[2]["audio_path"].endswith("wav/T0012/IT0012W0001.wav")
    assert {d["scoring"] for d in docs} == {"cn_tn_chars"} and docs[0]["prompt"] == "请把这段语音转录成文本。"
    assert notes.entries["sources"]["AISHELL-2 iOS test sample"]["metadata_files"] == [
        f"{aishell2.TEST}/trans.txt", f"{aishell2.TEST}/wav.scp"]


def test_without_a_local_copy_it_refuses_in_one_line_saying_where_to_get_it(monkeypatch):
    monkeypatch.delenv(aishell2.SPEC.variable, raising=False)
    with pytest.raises(SpeechDataError) as refused:
        aishell2.load_docs({}, False, notes=DataNotes())
    message = str(refused.value)
    assert "\n" not in message and "not on the Hugging Face Hub" in message
    assert "http://www.aishelltech.com/aishell_eval" in message and "AISHELL2_DATA_DIR" in message
    assert "iOS/test.tar.gz" in message and "aishell2_sample" in message
    assert "huggingface-cli" not in message


def test_a_folder_without_the_release_names_the_missing_file(tmp_path):
    with pytest.raises(SpeechDataError, match=r"AISHELL-DEV-TEST-SET/iOS/test/wav\.scp does not exist"):
        aishell2.load_docs({"aishell2_data_dir": str(tmp_path)}, False, notes=DataNotes())


def test_a_line_without_a_tab_names_the_file_and_line(tmp_path):
    root, test = _copy(tmp_path)
    (test / "trans.txt").write_text("IT0011W0001\t换一首歌\nIT0011W0002 打开客厅的灯\n", encoding="utf-8")
    with pytest.raises(SpeechDataError, match=r"trans\.txt:2 is not"):
        aishell2.load_docs({"aishell2_data_dir": str(root)}, False, notes=DataNotes())


def test_an_utterance_without_clip_is_left_out_and_a_missing_clip_counted(tmp_path, monkeypatch):
    root, test = _copy(tmp_path)
    with (test / "trans.txt").open("a", encoding="utf-8") as f:
        f.write("IT0099W0001\t没有录音\n")
    (test / "wav" / "T0011" / "IT0011W0002.wav").unlink()
    monkeypatch.setenv(aishell2.SPEC.variable, str(root))
    notes = DataNotes()
    docs = aishell2.load_docs({}, False, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["IT0011W0001", "IT0011W0002", "IT0012W0001"]
    assert docs[1]["audio_problem"] and not docs[0]["audio_problem"]
    assert list(notes.entries["invalid_items"].values()) == ["wav.scp names no clip for it (trans.txt:4)"]


def check_sample_run(results: dict, logged) -> None:
    task = "aishell2_sample_test"
    samples = logged(task)
    assert len(samples) == 2
    summed = error_rates.total(error_rates.counts(s["doc"]["reference"], s["filtered_resps"][0], s["doc"]["scoring"])
                               for s in samples)
    assert results["results"][task]["cer,none"] == pytest.approx(error_rates.rate(summed))
