"""FLEURS speech translation (tasks/fleurs_s2tt): pairs by sentence id, the target's raw_transcription the
reference; BLEU tokenized for the target; the Hub fetch (the source's transcript and archive, the target's
transcript only); the sample's numbers recomputed from a CLI run's logged samples (tests/test_model_card_samples.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import stand_in_hub

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.tasks.fleurs_s2tt import data

FOLDER = data.SPEC.folder
SAMPLE_GROUPS = ["fleurs_s2tt_sample"]


def _served(hub) -> list[str]:
    return sorted(e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads())


def test_a_pair_is_the_same_sentence_id_and_the_reference_the_targets_raw_transcription():
    notes = DataNotes()
    docs = data.load_docs("en_zh", {}, True, notes=notes)
    # every English recording of a sentence Mandarin holds (1002 read twice), 1003 (English only) left out and noted
    assert [(d["sentence_id"], d["reference"]) for d in docs] == [
        ("1001", "今天天气很好。"), ("1002", "我喜欢绿茶。"), ("1002", "我喜欢绿茶。")]
    assert notes.entries["unpaired_rows"]["FLEURS S2TT en_zh sample"]["first_ids"] == ["1003"]
    assert {d["scoring"] for d in docs} == {"bleu:zh"} and docs[0]["source_text"] == "The weather is nice today."
    assert docs[0]["prompt"] == "Listen to the provided English speech and produce a translation in Chinese text."
    into_english = data.load_docs("fr_en", {}, True, notes=DataNotes())
    assert [d["reference"] for d in into_english] == ["The weather is nice today.", "I like green tea."]


@pytest.mark.parametrize("direction,tokenizer", [
    ("en_zh", "zh"), ("en_yue", "zh"), ("en_ja", "ja-mecab"), ("zh_en", "13a"), ("zh_th", "13a"), ("en_ko", "13a")])
def test_bleu_is_tokenized_for_the_target(direction, tokenizer):
    assert data.scoring(direction) == f"bleu:{tokenizer}"


def test_the_directions_are_the_cards_four_groups_each_a_task():
    assert len(data.DIRECTIONS) == 54 and len(data.LANGUAGES) == 15
    for name, first in (("en2xx", "en_"), ("xx2en", "_en"), ("zh2xx", "zh_"), ("xx2zh", "_zh")):
        tasks = yaml.safe_load((FOLDER / f"fleurs_s2tt_{name}.yaml").read_text())["task"]
        assert len(tasks) == 14 and all(first in t for t in tasks)
    for direction in data.DIRECTIONS:
        text = (FOLDER / f"fleurs_s2tt_{direction}.yaml").read_text()
        assert f"direction: {direction}\n" in text
    with pytest.raises(SpeechDataError, match="no task direction 'en_xx'"):
        data.load_docs("en_xx", {}, True, notes=DataNotes())


def test_a_broken_target_row_is_named_and_its_sentence_left_out(tmp_path, monkeypatch):
    root = tmp_path / "fleurs"
    shutil.copytree(FOLDER / "sample_data", root)
    tsv = root / "data" / "cmn_hans_cn" / "test.tsv"
    lines = tsv.read_text(encoding="utf-8").splitlines()
    tsv.write_text(lines[0] + "\n" + "\t".join(lines[1].split("\t")[:5]) + "\n", encoding="utf-8")
    monkeypatch.setenv(data.SPEC.variable, str(root))
    notes = DataNotes()
    docs = data.load_docs("en_zh", {}, False, notes=notes)
    assert [d["sentence_id"] for d in docs] == ["1001"]
    assert "5 tab-separated fields, not 7" in str(notes.entries["invalid_items"])
    (root / "data" / "cmn_hans_cn" / "test.tsv").unlink()
    with pytest.raises(SpeechDataError, match=r"holds no data/cmn_hans_cn/test.tsv.*FLEURS_DATA_DIR"):
        data.load_docs("en_zh", {}, False, notes=DataNotes())


def test_a_direction_fetches_the_sources_clips_and_the_targets_transcript_only(tmp_path, monkeypatch):
    with stand_in_hub({data.SPEC.repo: FOLDER / "sample_data"}, tmp_path / "hub_cache", monkeypatch,
                      (data.SPEC.variable,)) as hub:
        notes = DataNotes()
        docs = data.load_docs("zh_en", {}, False, notes=notes)
        assert len(docs) == 2 and all(Path(d["audio_path"]).is_file() for d in docs)
        assert _served(hub) == ["data/cmn_hans_cn/audio/test.tar.gz", "data/cmn_hans_cn/test.tsv",
                                "data/en_us/test.tsv"]
        record = notes.entries["sources"]["FLEURS S2TT zh_en"]
        assert record["repo_id"] == "google/fleurs" and len(record["commit"]) == 40
        assert "FLEURS S2TT zh_en references" in notes.entries["sources"]


def check_sample_run(results: dict, logged) -> None:
    """Each direction's corpus BLEU recomputed with sacrebleu from its logged answers and references (the items
    whose clip could not be played left out), the target's tokenizer named by each document."""
    from sacrebleu.metrics import BLEU

    for task in ("fleurs_s2tt_sample_en_zh", "fleurs_s2tt_sample_en_fr", "fleurs_s2tt_sample_zh_en",
                 "fleurs_s2tt_sample_fr_en"):
        samples = sorted(logged(task), key=lambda s: s["doc_id"])
        heard = [s for s in samples if not s["doc"]["audio_problem"]]
        assert len(samples) == 2 and heard
        (scoring,) = {s["doc"]["scoring"] for s in heard}
        expected = BLEU(tokenize=scoring.removeprefix("bleu:")).corpus_score(
            [s["filtered_resps"][0] for s in heard], [[s["doc"]["reference"] for s in heard]]).score
        got = results["results"][task]
        assert got["bleu,none"] == pytest.approx(expected, abs=1e-9)
        assert got["audio_missing,none"] == len(samples) - len(heard)
