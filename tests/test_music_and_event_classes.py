"""GTZAN, NSynth and FSD50K (tasks/gtzan, tasks/nsynth, tasks/fsd50k): the loaders on the bundled samples and on
broken copies, the readings restated (GTZAN's acc: UltraEval-Audio's prefix-match, its own answers from
scripts/check_gtzan_reading_against_ultraeval.py; MiDashengLM's evaluate/compute_at_acc.py and compute_map.py, the
reference's own answers from scripts/check_label_readings_against_midashenglm.py), the Hub fetch, and the sample
run's numbers recomputed from the logged samples (tests/test_model_card_samples.py runs them)."""

from __future__ import annotations

import json
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
from lm_eval_audio.tasks.gtzan import scoring as gtzan_scoring
from lm_eval_audio.tasks.gtzan.scoring import prefix_match
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
    assert [(d["reference"], d["genre"]) for d in docs] == [("jazz", "jazz"), ("classical", "classical"),
                                                            ("metal", "metal")]
    # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/music.yaml:32, byte for byte
    assert {d["prompt"] for d in docs} == {
        "Listen to the provided music clip and identify the genre. the answer must be one of [blues,classical,"
        "country,disco,hiphop,jazz,metal,pop,reggae,rock], answer without explain"}
    assert "prefix-match" in notes.entries["scoring_rules"]["GTZAN test sample"]
    assert "unpublished_prompt" not in notes.entries
    notes = DataNotes()
    assert {d["prompt"] for d in gtzan.load_docs({"prompt": "Which genre?"}, True, notes=notes)} == {"Which genre?"}
    assert notes.entries["prompts"]["GTZAN test sample"] == "Which genre?"
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


def _write_gtzan(root, labels, class_names=None, columns=("audio", "label")):
    """GTZAN's shard rewritten with ``labels`` (and, as ``datasets`` writes them, ClassLabel names)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shard = root / "data" / "test-00000-of-00001.parquet"
    audio = pq.read_table(shard).column("audio").to_pylist()
    table = pa.Table.from_pylist([dict(zip(columns, row)) for row in zip(audio, labels)])
    if class_names:
        meta = {"info": {"features": {"label": {"names": class_names, "_type": "ClassLabel"}}}}
        table = table.replace_schema_metadata({b"huggingface": json.dumps(meta).encode()})
    pq.write_table(table, shard)
    return shard


def test_gtzan_broken_copies_and_integer_labels(tmp_path, monkeypatch):
    root = _copy(gtzan.SPEC, tmp_path, monkeypatch)
    shard = _write_gtzan(root, ["Jazz", "polka", None])
    notes = DataNotes()
    docs = gtzan.load_docs({}, False, notes=notes)  # a label is read in any case, as UltraEval-Audio reads it
    assert [(d["reference"], d["genre"]) for d in docs] == [("Jazz", "jazz")]
    assert "'polka' is none of GTZAN's ten genres" in str(notes.entries["invalid_items"])
    assert "None is none" in str(notes.entries["invalid_items"])
    # a ClassLabel index: read through the names the shard itself records, and said so
    _write_gtzan(root, [5, 1, 6], list(gtzan.GENRES))
    notes = DataNotes()
    assert [d["reference"] for d in gtzan.load_docs({}, False, notes=notes)] == ["jazz", "classical", "metal"]
    assert "compare the number itself" in notes.entries["label_from_class_names"]["GTZAN test"]
    # indexes with no names to read them by: refused, naming the file, not guessed
    _write_gtzan(root, [5, 1, 6])
    with pytest.raises(SpeechDataError, match=r"test-00000-of-00001.parquet: its 'label' column holds integers.*"
                                              r"no ClassLabel order"):
        gtzan.load_docs({}, False, notes=DataNotes())
    _write_gtzan(root, ["jazz"] * 3, columns=("audio", "genre"))
    with pytest.raises(SpeechDataError, match=r"test-00000-of-00001.parquet lacks the column\(s\) label of "
                                              r"TwinkStart/GTZAN's layout"):
        gtzan.load_docs({}, False, notes=DataNotes())
    shard.unlink()
    with pytest.raises(SpeechDataError, match=r"holds no data/test-\*.parquet"):
        gtzan.load_docs({}, False, notes=DataNotes())


def test_gtzan_missing_clip_is_wrong_in_both_readings_and_counted(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = _copy(gtzan.SPEC, tmp_path, monkeypatch)
    shard = root / "data" / "test-00000-of-00001.parquet"
    rows = pq.read_table(shard).to_pylist()
    rows[1]["audio"] = None
    pq.write_table(pa.Table.from_pylist(rows), shard)
    notes = DataNotes()
    docs = gtzan.load_docs({}, False, notes=notes)
    assert [bool(d["audio_problem"]) for d in docs] == [False, True, False] and notes.entries["unusable_audio"]
    entries = gtzan_scoring.process_results(docs[1], ["classical"])
    assert (entries["acc"]["score"], entries["label_in_answer"]["score"], entries["audio_missing"]) == (0.0, 0.0, 1.0)
    task = task_scoring("gtzan_genre")
    items = [gtzan_scoring.process_results(d, [r])["acc"] for d, r in zip(docs, ["Jazz.", "classical", "Metal"])]
    assert gtzan_scoring.acc(items, task) == pytest.approx(2 / 3)
    breakdown = task.data_notes["official_breakdown"]["gtzan_genre"]["acc"]["class"]
    assert breakdown["classical"] == {"items": 1, "accuracy": 0.0} and breakdown["jazz"]["accuracy"] == 1.0


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


# UltraEval-Audio's PrefixMatch on each pair (its "match"; scripts/check_gtzan_reading_against_ultraeval.py), and
# MiDashengLM's compute_at_acc.py rule beside it
@pytest.mark.parametrize("label,answer,acc,in_answer", [
    ("jazz", "jazz", True, True), ("jazz", " JAZZ.\n", True, True), ("jazz", "jazzy", True, True),
    ("jazz", "The genre is jazz.", False, True), ("jazz", "**Jazz**", False, True), ("jazz", "jaz", False, False),
    ("jazz", "", False, False), ("hiphop", "hip hop", False, False), ("hiphop", "HipHop music", True, True),
    ("pop", "popular", True, True), ("pop", "K-pop", False, True), ("metal", "Heavy metal", False, True),
    ("country", "\u00a0country", True, True), ("classical", "classic", False, False), ("Jazz", "jazz", True, True),
    ("hip hop", "hiphop", True, False), ("hip hop", "HIPHOP!", False, False), ("hip hop", "hiphop music", False, False),
    ("jazz", None, False, False)])
def test_gtzan_readings_are_prefix_match_and_compute_at_acc(label, answer, acc, in_answer):
    assert prefix_match(answer, label) is acc
    assert label_in_answer(answer, label) is in_answer


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
            "data/test-00000-of-00001.parquet"]  # not the README beside it
        record = notes.entries["sources"]["GTZAN test"]
        assert record["repo_id"] == "TwinkStart/GTZAN" and len(record["commit"]) == 40
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
    samples = logged("gtzan_sample_genre")
    for metric, reading in (("acc", prefix_match), ("label_in_answer", label_in_answer)):
        right = [float(not s["doc"]["audio_problem"] and reading(s["filtered_resps"][0], s["doc"]["reference"]))
                 for s in samples]
        assert results["results"]["gtzan_sample_genre"][f"{metric},none"] == pytest.approx(sum(right) / len(right))
    for task in ("nsynth_sample_instrument", "nsynth_sample_source"):
        samples = logged(task)
        right = [float(label_in_answer(s["filtered_resps"][0], s["doc"]["reference"])) for s in samples]
        assert results["results"][task]["acc,none"] == pytest.approx(sum(right) / len(right))
    samples = logged("fsd50k_sample_eval")
    value, _ = mean_average_precision([[x.lower() for x in s["doc"]["labels"]] for s in samples],
                                      [answer_labels(s["filtered_resps"][0]) for s in samples])
    assert results["results"]["fsd50k_sample_eval"]["mAP,none"] == pytest.approx(value)
