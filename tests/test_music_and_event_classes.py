"""GTZAN, NSynth and FSD50K (tasks/gtzan, tasks/nsynth, tasks/fsd50k): the loaders on the bundled samples and on
broken copies, MiDashengLM's readings restated (evaluate/compute_at_acc.py, compute_map.py; the reference's own
answers from scripts/check_label_readings_against_midashenglm.py), the Hub fetch, and the sample run's numbers
recomputed from the logged samples (tests/test_model_card_samples.py runs them)."""

from __future__ import annotations

import math
import shutil

import pytest
from conftest import stand_in_hub, task_scoring

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.class_reading import label_in_answer
from lm_eval_audio.benchmarks.label_sets import answer_labels, mean_average_precision
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.tasks.fsd50k import data as fsd50k
from lm_eval_audio.tasks.fsd50k import scoring as fsd50k_scoring
from lm_eval_audio.tasks.gtzan import data as gtzan
from lm_eval_audio.tasks.nsynth import data as nsynth

SAMPLE_GROUPS = ["gtzan_sample", "nsynth_sample", "fsd50k_sample"]


def _copy(spec, tmp_path, monkeypatch):
    root = tmp_path / spec.folder.name
    shutil.copytree(spec.folder / "sample_data", root)
    monkeypatch.setenv(spec.variable, str(root))
    return root


def test_the_samples_load_with_their_classes_and_prompts():
    notes = DataNotes()
    docs = gtzan.load_docs({}, True, notes=notes)
    assert [d["reference"] for d in docs] == ["jazz", "classical", "metal"]
    assert {d["prompt"] for d in docs} == {"What's the music genre?"}
    assert "Free Music Archive" in notes.entries["unpublished_prompt"]["GTZAN sample"]  # no GTZAN question is behind a card
    notes = DataNotes()
    gtzan.load_docs({"prompt": "Which genre?"}, True, notes=notes)
    assert "unpublished_prompt" not in notes.entries
    docs = nsynth.load_docs("instrument", {}, True, notes=DataNotes())
    assert [d["reference"] for d in docs] == ["guitar", "bass", "organ"]
    notes = DataNotes()
    assert [d["reference"] for d in nsynth.load_docs("source", {}, True, notes=notes)] == [
        "acoustic", "synthetic", "electronic"]
    assert "NSynth source sample" in notes.entries["unpublished_prompt"]
    docs = fsd50k.load_docs({}, True, notes=DataNotes())
    assert docs[0]["labels"] == ["Bark", "Dog", "Domestic animals and pets"] and docs[0]["label_reading"] == "semicolons"
    assert {d["prompt"] for d in docs} == {"Which labels describe the sound?"}


def test_broken_copies_are_named(tmp_path, monkeypatch):
    root = _copy(nsynth.SPEC, tmp_path, monkeypatch)
    (root / "nsynth-test" / "audio" / "bass_synthetic_068-049-025.wav").unlink()
    notes = DataNotes()
    docs = nsynth.load_docs("instrument", {}, False, notes=notes)
    assert [bool(d["audio_problem"]) for d in docs] == [False, True, False] and notes.entries["unusable_audio"]
    (root / "nsynth-test" / "examples.json").unlink()
    with pytest.raises(SpeechDataError, match="examples.json does not exist.*nsynth-test.jsonwav.tar.gz"):
        nsynth.load_docs("instrument", {}, False, notes=DataNotes())
    root = _copy(fsd50k.SPEC, tmp_path, monkeypatch)
    labels = root / "labels" / "eval.csv"
    labels.write_text(labels.read_text().replace('"Rain"', '"Snow"'))
    notes = DataNotes()
    assert len(fsd50k.load_docs({}, False, notes=notes)) == 2
    assert "Snow not in labels/vocabulary.csv" in str(notes.entries["invalid_items"])
    labels.write_text("name,labels\n1,Rain\n")
    with pytest.raises(SpeechDataError, match="eval.csv lacks the column.*fname"):
        fsd50k.load_docs({}, False, notes=DataNotes())
    with pytest.raises(SpeechDataError, match="label_reading 'gpt'"):
        fsd50k.load_docs({"label_reading": "gpt"}, True, notes=DataNotes())


def test_fsd50k_vocabulary_is_read_in_the_releases_column_order(tmp_path, monkeypatch):
    """FSD50K's vocabulary.csv is index, label, AudioSet id (google-research/mseb@3b2d05f corrected its reader to
    that order): the label is the second column; a copy in another order is refused, naming the file."""
    root = _copy(fsd50k.SPEC, tmp_path, monkeypatch)
    vocabulary = root / "labels" / "vocabulary.csv"
    assert fsd50k.vocabulary(vocabulary) == {"Dog", "Bark", "Domestic_animals_and_pets", "Music", "Guitar", "Rain"}
    assert vocabulary.read_text().splitlines()[0] == "0,Dog,/m/0bt9lr"
    swapped = ["{0},{2},{1}".format(*line.split(",")) for line in vocabulary.read_text().splitlines()]
    vocabulary.write_text("\n".join(swapped) + "\n")
    with pytest.raises(SpeechDataError, match=r"vocabulary.csv is not FSD50K's vocabulary.csv \(rows of index, "
                                              r"label, AudioSet id.*a row reads \['0', '/m/0bt9lr', 'Dog'\]"):
        fsd50k.load_docs({}, False, notes=DataNotes())


@pytest.mark.parametrize("label,answer,read", [
    ("bass", " Bass guitar", True), ("synth_lead", "synth lead", False), ("guitar", "electric_guitar", True),
    ("hiphop", "hip hop", False), ("keyboard", "KEYBOARD\n", True), ("reed", "", False), ("reed", None, False)])
def test_single_target_reading_is_compute_at_acc(label, answer, read):
    assert label_in_answer(answer, label) is read


# compute_map.py's process_text on each answer (scripts/check_label_readings_against_midashenglm.py)
@pytest.mark.parametrize("answer,reading,labels", [
    ("Domestic sounds, home sounds;Music", "semicolons", ["domestic sounds and home sounds", "music"]),
    ("Dog, and cat", "semicolons", ["dog and cat"]), (" Rain ; Thunder ", "semicolons", ["rain", "thunder"]),
    ("", "semicolons", [""]), ("Domestic sounds, home sounds;Music", "qwen", ["domestic sounds, home sounds", "music"]),
    ("a_b - c", "qwen", ["a b and c"]), ("x, y", "qwen", ["x", "y"]), ("Dog;Bark", "kimi", ["dog;bark"]),
    ("a_b - c", "kimi", ["a b - c"])])
def test_multi_target_reading_is_process_text(answer, reading, labels):
    assert answer_labels(answer, reading) == labels


@pytest.mark.parametrize("predictions,expected", [  # get_mAP's values
    ([["dog"], ["music", "rain"], [], ["bark", "cat"]], 0.5625), ([[], [], [], []], 0.3125),
    ([["dog", "bark"], ["music"], ["rain"], ["dog"]], 1.0)])
def test_map_is_get_map(predictions, expected):
    references = [["dog", "bark"], ["music"], ["rain"], ["dog"]]
    assert mean_average_precision(references, predictions)[0] == pytest.approx(expected)


def test_tasks_fetch_only_what_they_read_from_the_hub_and_record_the_commit(tmp_path, monkeypatch):
    repos = {spec.repo: spec.folder / "sample_data" for spec in (gtzan.SPEC, fsd50k.SPEC)}
    with stand_in_hub(repos, tmp_path / "hub", monkeypatch, (gtzan.SPEC.variable, fsd50k.SPEC.variable)) as hub:
        notes = DataNotes()
        assert len(gtzan.load_docs({}, False, notes=notes)) == 3
        assert [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()] == [
            "data/train-00000-of-00001.parquet"]
        assert len(notes.entries["sources"]["GTZAN"]["commit"]) == 40
        docs = fsd50k.load_docs({}, False, notes=notes)
        fetched = [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()][1:]
        assert fetched == ["labels/vocabulary.csv", "labels/eval.csv"]  # the clips only when a run evaluates them
        assert [d["audio_problem"] for d in docs] == ["", "", ""]
        assert notes.entries["sources"]["FSD50K eval"]["repo_id"] == "Fhrozen/FSD50k"


def test_missing_clip_names_no_label_and_the_breakdown_has_each_label():
    docs = fsd50k.load_docs({}, True, notes=DataNotes())
    task = task_scoring("fsd50k_sample_eval")
    items = [fsd50k_scoring.process_results(d, [r])["mAP"] for d, r in
             zip(docs, ["Bark; Dog", "Music, guitar", "Thunder"])]
    value = fsd50k_scoring.mean_ap(items, task)
    per_class = task.data_notes["per_label_ap"]["fsd50k_sample_eval"]["mAP"]["class"]
    assert set(per_class) == {"bark", "dog", "domestic animals and pets", "guitar", "music", "rain"}
    assert value == pytest.approx(sum(c["ap"] for c in per_class.values()) / 6)
    assert math.isnan(fsd50k_scoring.mean_ap([], task_scoring("x")))


def check_sample_run(results: dict, logged) -> None:
    for task in ("gtzan_sample_genre", "nsynth_sample_instrument", "nsynth_sample_source"):
        samples = logged(task)
        right = [float(label_in_answer(s["filtered_resps"][0], s["doc"]["reference"])) for s in samples]
        assert results["results"][task]["acc,none"] == pytest.approx(sum(right) / len(right))
    samples = logged("fsd50k_sample_eval")
    value, _ = mean_average_precision([[x.lower() for x in s["doc"]["labels"]] for s in samples],
                                      [answer_labels(s["filtered_resps"][0]) for s in samples])
    assert results["results"]["fsd50k_sample_eval"]["mAP,none"] == pytest.approx(value)
