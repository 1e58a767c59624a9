"""CochlScene, TUT Acoustic Scenes 2017 and Nonspeech7k: their loaders on the bundled samples and on broken copies,
the judge-free option reading and the two reference rules (Qwen-Audio's exact match, MiDashengLM's label search)
on edge cases, the data check where no local copy is set (no Hub copy exists), and (``check_sample_run``) their
numbers recomputed from the logged samples of the shared CLI run."""

from __future__ import annotations

import shutil

import pytest

from lm_eval_audio.benchmarks.class_reading import chosen_option, exact_match, label_in_answer
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import resolve
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.tasks.cochlscene import data as cochlscene
from lm_eval_audio.tasks.cochlscene import scoring as cochlscene_scoring
from lm_eval_audio.tasks.nonspeech7k import data as nonspeech7k
from lm_eval_audio.tasks.tut2017 import data as tut2017

SAMPLE_GROUPS = ["cochlscene_sample", "tut2017_sample", "nonspeech7k_sample"]
OPTIONS = {"cochlscene": cochlscene.OPTIONS, "tut2017": tut2017.OPTIONS, "nonspeech7k": nonspeech7k.OPTIONS}


def _copy(module, tmp_path):
    return shutil.copytree(module.SPEC.sample, tmp_path / "copy")


# --- the loaders on the samples -----------------------------------------------------------------------------------

def test_the_samples_load_in_the_official_layouts_with_the_evalkits_questions():
    notes = DataNotes()
    docs = nonspeech7k.load_docs({}, True, notes=notes)
    assert [(d["reference"], d["option"]) for d in docs] == [("cough", "Cough"), ("crying", "Cry"),
                                                              ("sneeze", "Sneeze")]
    assert docs[0]["prompt"] == nonspeech7k.PROMPT and docs[0]["prompt"].startswith("Identify the human vocal sound")
    assert notes.entries["sources"]["Nonspeech7k test sample"]["metadata_files"] == ["metadata of test set.csv"]
    docs = tut2017.load_docs({}, True, notes=DataNotes())
    assert [(d["reference"], d["option"]) for d in docs] == [("city_center", "city center"),
                                                              ("cafe/restaurant", "cafe or restaurant"), ("tram", "tram")]
    assert "(C) cafe or restaurant\n" in docs[0]["prompt"] and docs[0]["audio_path"].endswith("audio/1.wav")
    test = cochlscene.load_docs("test", {}, True, notes=DataNotes())
    val = cochlscene.load_docs("val", {}, True, notes=DataNotes())
    assert [(d["reference"], d["option"], d["split"]) for d in test] == [("Bus", "bus", "Test"),
                                                                         ("SubwayStation", "subwaystation", "Test")]
    assert [d["reference"] for d in val] == ["CrowdedIndoor", "Park"]
    assert all(not d["audio_problem"] for d in test + val)


def test_the_options_are_the_questions_in_their_order():
    for module in (cochlscene, tut2017, nonspeech7k):
        listed = [line[4:] for line in module.PROMPT.split("\n") if line[:1] == "(" and line[2:4] == ") "]
        assert listed == list(module.OPTIONS)


# --- broken copies ------------------------------------------------------------------------------------------------

def test_a_nonspeech7k_table_without_its_columns_names_the_file_and_the_fix(tmp_path):
    root = _copy(nonspeech7k, tmp_path)
    (root / "metadata of test set.csv").write_text("Filename,Class\nx.wav,cough\n")
    with pytest.raises(SpeechDataError, match=r"metadata of test set.csv lacks the column\(s\) Classname.*again"):
        nonspeech7k.load_docs({"nonspeech7k_data_dir": str(root)}, False, notes=DataNotes())


def test_the_evalkits_file_name_is_read_an_unknown_class_is_left_out_and_a_lost_clip_counted(tmp_path):
    root = _copy(nonspeech7k, tmp_path)
    text = (root / "metadata of test set.csv").read_text().replace("sneeze,", "hiccup,")
    (root / "metadata of test set.csv").unlink()
    (root / "metadata_test.csv").write_text(text)
    (root / "test" / "cough_101.wav").unlink()
    notes = DataNotes()
    docs = nonspeech7k.load_docs({"nonspeech7k_data_dir": str(root)}, False, notes=notes)
    assert [d["reference"] for d in docs] == ["cough", "crying"]
    assert "hiccup" in notes.entries["invalid_items"]["Nonspeech7k test/2"]
    assert docs[0]["audio_problem"].startswith("missing audio file") and "unusable_audio" in notes.entries


def test_a_tut_copy_with_an_unknown_scene_or_an_escaping_path_leaves_those_lines_out(tmp_path):
    root = _copy(tut2017, tmp_path)
    meta = root / tut2017.FOLDER / "meta.txt"
    meta.write_text(meta.read_text() + "audio/9.wav\tairport\n../x.wav\tbus\n\n")
    notes = DataNotes()
    docs = tut2017.load_docs({"tut2017_data_dir": str(root)}, False, notes=notes)
    assert len(docs) == 3 and set(notes.entries["invalid_items"]) == {
        "TUT Acoustic Scenes 2017 evaluation/3", "TUT Acoustic Scenes 2017 evaluation/4"}


def test_a_cochlscene_clip_outside_a_scene_folder_is_named_and_a_missing_split_stops_the_task(tmp_path):
    root = _copy(cochlscene, tmp_path)
    shutil.copy(next((root / "CochlScene" / "Val" / "Park").glob("*.wav")), root / "CochlScene" / "Val" / "Loose.wav")
    notes = DataNotes()
    assert len(cochlscene.load_docs("val", {"cochlscene_data_dir": str(root / "CochlScene")}, False,
                                    notes=notes)) == 2
    assert "'Val'" in next(iter(notes.entries["invalid_items"].values()))
    shutil.rmtree(root / "CochlScene" / "Test")
    with pytest.raises(SpeechDataError, match=r"holds no CochlScene/Test/.*COCHLSCENE_DATA_DIR"):
        cochlscene.load_docs("test", {"cochlscene_data_dir": str(root)}, False, notes=DataNotes())


@pytest.mark.parametrize("module", [cochlscene, tut2017, nonspeech7k], ids=lambda m: m.SPEC.name)
def test_no_local_copy_says_there_is_no_hub_copy_and_how_to_download_it(module, monkeypatch):
    """No reference evaluation reads a Hub copy (they download Zenodo's files): nothing is fetched."""
    monkeypatch.delenv(module.SPEC.variable, raising=False)
    with pytest.raises(SpeechDataError) as error:
        resolve(module.SPEC, {})
    assert "not on the Hugging Face Hub" in str(error.value) and "zenodo.org/records/" in str(error.value)
    assert module.SPEC.variable in str(error.value) and module.SPEC.sample_group in str(error.value)


# --- the readings on edge cases -----------------------------------------------------------------------------------

@pytest.mark.parametrize("response, options, picked", [
    ("A", "cochlscene", "bus"), ("(b)", "cochlscene", "cafe"), (" d ", "cochlscene", "crowdedindoor"),
    ("C.", "cochlscene", "car"), ("**M**", "cochlscene", "subwaystation"), ("(L) subway", "cochlscene", "subway"),
    ("B. cafe", "cochlscene", "cafe"), ("subwaystation", "cochlscene", "subwaystation"),
    ("Subway station", "cochlscene", "subway"),  # the option "subwaystation" is one word: "subway" is named
    ("A bus passing by.", "cochlscene", "bus"),  # "A" followed by a word is the article, not the letter
    ("I hear a car and a bus", "cochlscene", None), ("The scene is a park.", "cochlscene", "park"),
    ("Z", "cochlscene", None), ("", "cochlscene", None), (None, "cochlscene", None),
    ("cafe or restaurant", "tut2017", "cafe or restaurant"),
    ("E", "tut2017", "city center"), ("city_center", "tut2017", None), ("a train station", "tut2017", "train"),
    ("O", "tut2017", "tram"), ("G", "nonspeech7k", "Yawn"), ("The person is crying.", "nonspeech7k", None),
    ("cry", "nonspeech7k", "Cry"), ("(D) Laugh", "nonspeech7k", "Laugh"), ("H", "nonspeech7k", None),
])
def test_the_judge_free_option_reading(response, options, picked):
    assert chosen_option(response, OPTIONS[options]) == picked


@pytest.mark.parametrize("response, scene, right, unread", [
    ("Subway station", "SubwayStation", 1.0, 0.0), ("subway-station", "SubwayStation", 1.0, 0.0),
    ("Subway station", "Subway", 0.0, 0.0),  # read as the other scene, not as the option "subway"
    ("Crowded indoor space", "CrowdedIndoor", 1.0, 0.0), ("residential_area", "ResidentialArea", 1.0, 0.0),
    ("a subway and a subway station", "Subway", 0.0, 1.0), ("(L) subway station", "Subway", 1.0, 0.0),
    ("subway", "Subway", 1.0, 0.0), (None, "Bus", 0.0, 1.0)])
def test_cochlscene_reads_a_spaced_compound_scene_as_that_scene(response, scene, right, unread):
    doc = {"doc_id": 0, "audio_problem": "", "reference": scene, "option": cochlscene.SCENES[scene]}
    entries = cochlscene_scoring.process_results(doc, [response])
    assert (entries["acc"]["score"], entries["answer_unread"]) == (right, unread)


@pytest.mark.parametrize("module", [cochlscene, tut2017, nonspeech7k], ids=lambda m: m.SPEC.name)
def test_the_results_say_acc_is_not_the_cards_judged_number(module):
    """Kimi-Audio-Evalkit judges these answers with gpt-4o-mini; the results and the printed table must say that
    ``acc`` is the judge-free reading, not that number."""
    from lm_eval_audio.benchmarks import registry

    notes = DataNotes()
    if module is cochlscene:
        module.load_docs("test", {}, True, notes=notes)
    else:
        module.load_docs({}, True, notes=notes)
    (rule,) = notes.entries["scoring_rules"].values()
    assert "acc: the option read WITHOUT an LLM judge" in rule and "NOT the number Kimi-Audio's card" in rule
    table_note = registry.load(str(module.SPEC.sample.parent / "benchmark.py")).table_note
    assert "without an LLM judge" in table_note and "gpt-4o-mini" in table_note


@pytest.mark.parametrize("response, label, qwen_audio, midashenglm", [
    ("Bus", "Bus", True, True), (" Bus\n", "Bus", True, True), ("bus", "Bus", False, True),
    ("A bus.", "Bus", False, True), ("crowded indoor", "CrowdedIndoor", False, False),
    ("CrowdedIndoor", "CrowdedIndoor", True, True), ("omnibus", "Bus", False, True),  # a substring, as written
    ("city_center", "city_center", True, True), ("city center", "city_center", False, False), ("", "Bus", False, False),
    # accuracy_score's numpy arrays drop trailing NULs (after the strip); a leading one stays
    ("Bus\x00\x00", "Bus", True, True), ("Bus\x00 ", "Bus", True, True), ("\x00Bus", "Bus", False, True),
])
def test_qwen_audios_exact_match_and_midashenglms_label_search(response, label, qwen_audio, midashenglm):
    """Qwen-Audio's evaluate_scene.py: accuracy_score of stripped answers; MiDashengLM's compute_at_acc.py:
    ``ref.lower().strip() in hyp.lower().strip()``."""
    assert exact_match(response, label) is qwen_audio and label_in_answer(response, label) is midashenglm


# --- the shared CLI run of the samples ----------------------------------------------------------------------------

def _expected(sample: dict, options) -> dict:
    doc, response = sample["doc"], sample["filtered_resps"][0]
    response = "" if doc["audio_problem"] else response
    read = cochlscene_scoring.joined(response) if options is cochlscene.OPTIONS else response
    picked = None if doc["audio_problem"] else chosen_option(read, options)
    return {"acc": float(picked == doc["option"]), "exact_match": float(exact_match(response, doc["reference"])),
            "label_in_answer": float(label_in_answer(response, doc["reference"])),
            "answer_unread": float(not doc["audio_problem"] and picked is None)}


def check_sample_run(results: dict, logged) -> None:
    tasks = {"cochlscene_sample_test": ("cochlscene", ("acc", "exact_match", "label_in_answer")),
             "cochlscene_sample_val": ("cochlscene", ("acc", "exact_match", "label_in_answer")),
             "tut2017_sample_test": ("tut2017", ("acc", "exact_match")), "nonspeech7k_sample_test": ("nonspeech7k", ("acc",))}
    for task, (folder, metrics) in tasks.items():
        samples = logged(task)
        assert samples, task
        expected = [_expected(s, OPTIONS[folder]) for s in samples]
        reported = results["results"][task]
        for metric in metrics:
            assert reported[f"{metric},none"] == pytest.approx(sum(e[metric] for e in expected) / len(expected)), (
                task, metric)
        assert reported["answer_unread,none"] == sum(e["answer_unread"] for e in expected)
        assert reported["audio_missing,none"] == 0
        breakdown = results["lm_eval_audio_data"]["official_breakdown"][task]["acc"]["class"]
        assert sum(v["items"] for v in breakdown.values()) == len(samples)
        rules = results["lm_eval_audio_data"]["scoring_rules"]
        assert any("WITHOUT an LLM judge" in rule for key, rule in rules.items() if key.startswith(
            {"cochlscene": "CochlScene", "tut2017": "TUT", "nonspeech7k": "Nonspeech7k"}[folder])), task
