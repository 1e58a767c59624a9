"""The DCASE captioning metrics (lm_eval_audio.metrics.captioning) and the three captioning folders (clotho_caption,
audiocaps_caption, musiccaps): known values restated, the loaders on their samples and broken copies, the stand-in
Hub fetch, and the sample run's numbers recomputed with pycocoevalcap directly."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import REPO, stand_in_hub

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.metrics import captioning
from lm_eval_audio.benchmarks import caption_sets
from lm_eval_audio.tasks.audiocaps_caption import data as audiocaps
from lm_eval_audio.tasks.clotho_caption import data as clotho
from lm_eval_audio.tasks.musiccaps import data as musiccaps

needs_java = pytest.mark.skipif(captioning.java_problem() != "", reason="no Java: scripts/setup.sh installs it")

# Labbeti/aac-metrics (v0.6.0, PyPI sdist) README.md:90-100: these candidates and references, PTB-tokenized, give
# corpus CIDEr-D 0.9614 and per-sentence CIDEr-D [1.3641, 0.5587].
AAC_CANDIDATES = ["a man is speaking", "rain falls"]
AAC_REFERENCES = [["a man speaks.", "someone speaks.", "a man is speaking while a bird is chirping in the background"],
                  ["rain is falling hard on a surface"]]


@needs_java
def test_cider_d_restates_aac_metrics_documented_example():
    result = captioning.corpus_scores(AAC_CANDIDATES, AAC_REFERENCES)
    assert round(result["cider_d"], 4) == 0.9614
    assert [round(x, 4) for x in result["cider_d_items"]] == [1.3641, 0.5587]
    assert 0 < result["meteor_dcase"] < 1


@needs_java
def test_every_reference_of_a_clip_counts_and_the_set_is_scored_once():
    first_reference_only = [AAC_REFERENCES[0][:1], AAC_REFERENCES[1]]
    assert round(captioning.corpus_scores(AAC_CANDIDATES, first_reference_only)["cider_d"], 4) != 0.9614
    items = [captioning.item(k, c, r) for k, (c, r) in enumerate(zip(AAC_CANDIDATES, AAC_REFERENCES))]
    first = captioning.scores(items)
    assert captioning.scores(list(reversed(items))) is first  # cached: the four metrics compute once


@needs_java
def test_spice_without_corenlp_is_refused_with_how_to_install(monkeypatch):
    monkeypatch.setattr(captioning, "CORENLP_JARS", ("no-such-corenlp.jar",))
    result = captioning.corpus_scores(AAC_CANDIDATES, AAC_REFERENCES)
    assert result["spice"] is None and result["spider"] is None
    assert "no-such-corenlp.jar" in result["refused"]["spice"] and "SPIDEr" in result["refused"]["spider"]


class _Task:
    def __init__(self):
        self.null_reasons, self.item_scores = {}, {}

    def not_a_number(self, metric, reason, said=False):
        self.null_reasons[metric] = reason
        return float("nan")

    def report_item_scores(self, metric, scores):
        self.item_scores[metric] = dict(scores)


def test_no_java_is_a_nan_with_its_reason_never_a_number(monkeypatch):
    monkeypatch.setattr(captioning.shutil, "which", lambda name: None)
    task = _Task()
    items = [captioning.item(0, "a dog barks", ["a dog is barking loudly"])]
    captioning._cached.cache_clear()
    assert math.isnan(captioning.aggregate("cider_d", items, task))
    assert "default-jre-headless" in task.null_reasons["cider_d"]


@needs_java
def test_a_line_break_inside_an_answer_does_not_shift_the_other_answers():
    """The PTB tokenizer reads a caption a line: each separator it breaks at, inside one answer, must not move the
    answers after it onto the wrong clip (all three in one call: one JVM start)."""
    separators = ["\r", "\r\n", "\u2028", "\v", "\f", "\u2029"]
    candidates = [f"a man{sep}is speaking" for sep in separators] + ["rain falls"]
    references = [["a man speaks"]] * len(separators) + [["rain is falling"]]
    shifted, gts = captioning._tokenized(candidates, references)
    plain, _ = captioning._tokenized(["a man is speaking"] * len(separators) + ["rain falls"], references)
    assert shifted == plain and shifted[len(separators)] == ["rain falls"] and len(gts) == len(references)


@needs_java
def test_the_effect_a_line_break_has_in_coco_captions_own_reading_on_the_clotho_sample(monkeypatch):
    """The figure the captioning READMEs give: one "\\r" in the first of the sample's three answers (each clip's
    first caption, scored against its other four) takes coco-caption's CIDEr-D from 1.449 to 0.007; here 1.449."""
    import glob
    import re

    rows = pq.read_table(glob.glob(str(REPO / "tasks/clotho_caption/sample_data/data/*.parquet"))[0]).to_pylist()
    answers, references = [r["raw_text"][0] for r in rows], [list(r["raw_text"][1:]) for r in rows]
    broken = [answers[0].replace(" ", "\r", 1), *answers[1:]]
    clean = captioning.corpus_scores(answers, references)["cider_d"]
    assert captioning.corpus_scores(broken, references)["cider_d"] == pytest.approx(clean) == pytest.approx(1.449, abs=1e-3)
    monkeypatch.setattr(captioning, "_LINE_BREAKS", re.compile("(?!)"))  # coco-caption's wrapper: "\\n" alone
    assert captioning.corpus_scores(broken, references)["cider_d"] == pytest.approx(0.007, abs=1e-3)


def test_a_scorer_that_fails_on_the_machine_is_a_nan_with_its_reason(monkeypatch):
    """coco-caption writes into its package folder and SPICE asks Java for 8 GB: their failure after the answers is a
    NaN with why, never an error that loses the run."""
    from lm_eval_audio.metrics.task_scoring import TaskScoring

    def read_only(items):
        raise PermissionError(13, "Permission denied", "/usr/lib/python3/site-packages/pycocoevalcap/tokenizer/tmp")

    monkeypatch.setattr(captioning, "scores", read_only)
    task = TaskScoring("clotho_caption_test")
    assert math.isnan(captioning.aggregate("cider_d", [captioning.item(0, "rain", ["rain falls"])], task))
    assert task.null_reasons["cider_d"].startswith("coco-caption's scorer failed: [Errno 13] Permission denied")


@needs_java
def test_a_dead_meteor_process_leaves_cider_d_and_is_nan_with_why(monkeypatch):
    class Dead:
        def compute_score(self, gts, res):
            raise ValueError("could not convert string to float: ''")  # what pycocoevalcap reads off a dead process

    monkeypatch.setattr(captioning, "meteor_scorer", lambda: Dead())
    monkeypatch.setattr(captioning.meteor_scorer, "cache_clear", lambda: None, raising=False)
    result = captioning.corpus_scores(["rain falls"], [["rain is falling"]])
    assert result["cider_d"] >= 0 and result["meteor_dcase"] is None
    assert result["refused"]["meteor_dcase"].startswith("coco-caption's METEOR (Java) failed: ValueError")


def test_a_mismatched_or_empty_reference_list_is_an_error():
    with pytest.raises(ValueError, match="2 candidates for 1"):
        captioning.corpus_scores(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="at least one reference"):
        captioning.corpus_scores(["a"], [[]])


# AudioCaps: TwinkStart/AudioCaps holds one caption a row (a string), each row an item as UltraEval-Audio scores it
@pytest.mark.parametrize("module,refs", [(clotho, 5), (audiocaps, 1), (musiccaps, 1)])
def test_the_samples_load_with_every_reference(module, refs):
    notes = DataNotes()
    docs = module.load_docs({}, True, notes=notes)
    assert len(docs) == 3 and all(len(d["references"]) == refs for d in docs)
    assert all(d["prompt"] == "describe the audio:" and not d["audio_problem"] for d in docs)


@pytest.mark.parametrize("value,expected", [
    ("one caption", ["one caption"]), (["a", "b"], ["a", "b"]), ([], None), (["a", ""], None), (None, None),
    (3, None)])
def test_a_reference_cell_is_a_list_of_captions_or_one_caption(value, expected):
    assert caption_sets.references(value) == expected


def _copy(module, tmp_path: Path, table=None) -> Path:
    root = tmp_path / module.SPEC.name.replace(" ", "_")
    shutil.copytree(module.SPEC.folder / "sample_data", root)
    if table is not None:
        pq.write_table(table, root / "data" / "test-00000-of-00001.parquet")
    return root


def _sample_table(module) -> pa.Table:
    return pq.read_table(module.SPEC.folder / "sample_data" / "data" / "test-00000-of-00001.parquet")


def test_a_copy_without_the_reference_column_names_the_file_and_the_fix(tmp_path, monkeypatch):
    table = _sample_table(clotho).drop([clotho.REFERENCES])
    monkeypatch.setenv(clotho.SPEC.variable, str(_copy(clotho, tmp_path, table)))
    with pytest.raises(SpeechDataError, match=r"test-00000-of-00001\.parquet lacks the column\(s\) raw_text.*again"):
        clotho.load_docs({}, False, notes=DataNotes())


def test_a_row_without_references_is_left_out_and_named(tmp_path, monkeypatch):
    table = _sample_table(audiocaps)
    captions = table.column(audiocaps.REFERENCES).to_pylist()
    captions[1] = " "
    table = table.set_column(table.schema.get_field_index(audiocaps.REFERENCES), audiocaps.REFERENCES,
                             pa.array(captions, type=table.schema.field(audiocaps.REFERENCES).type))
    monkeypatch.setenv(audiocaps.SPEC.variable, str(_copy(audiocaps, tmp_path, table)))
    notes = DataNotes()
    docs = audiocaps.load_docs({}, False, notes=notes)
    assert len(docs) == 2
    assert notes.entries["invalid_items"] == {
        "AudioCaps captioning test/1": "caption holds no reference caption (' '): download the file again"}


def test_an_empty_folder_is_refused_with_the_variable(tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv(musiccaps.SPEC.variable, str(tmp_path / "empty"))
    with pytest.raises(SpeechDataError, match=r"data/test-\*\.parquet.*MUSICCAPS_DATA_DIR"):
        musiccaps.load_docs({}, False, notes=DataNotes())


def test_tasks_fetch_only_their_parquet_from_the_hub_and_record_the_commit(tmp_path, monkeypatch):
    modules = (clotho, audiocaps, musiccaps)
    repos = {m.SPEC.repo: m.SPEC.folder / "sample_data" for m in modules}
    with stand_in_hub(repos, tmp_path / "hub_cache", monkeypatch, tuple(m.SPEC.variable for m in modules)) as hub:
        for module in modules:
            notes = DataNotes()
            before = len(hub.downloads())
            assert len(module.load_docs({}, False, notes=notes)) == 3
            served = [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()[before:]]
            assert served == ["data/test-00000-of-00001.parquet"]
            (record,) = notes.entries["sources"].values()
            assert record["repo_id"] == module.SPEC.repo and len(record["commit"]) == 40


SAMPLE_GROUPS = ["clotho_caption_sample", "audiocaps_caption_sample", "musiccaps_sample"]


def check_sample_run(results: dict, logged) -> None:
    """Each task's CIDEr-D and METEOR recomputed from its logged answers and references with pycocoevalcap directly
    (PTBTokenizer, Cider, Meteor); SPICE and SPIDEr null with their reason where CoreNLP 3.6.0 is absent."""
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    meteor = Meteor()  # one jar for the three sets (starting it takes seconds); each call scores its own set
    for group in SAMPLE_GROUPS:
        task = f"{group}_test"
        samples = sorted(logged(task), key=lambda s: s["doc_id"])
        assert samples and all(len(s["doc"]["references"]) in (1, 5) for s in samples)
        answers = ["" if s["doc"]["audio_problem"] else s["filtered_resps"][0] for s in samples]
        tokenizer = PTBTokenizer()
        res = tokenizer.tokenize({k: [{"caption": a}] for k, a in enumerate(answers)})
        gts = tokenizer.tokenize({k: [{"caption": r} for r in s["doc"]["references"]] for k, s in enumerate(samples)})
        got = results["results"][task]
        assert got["cider_d,none"] == pytest.approx(Cider().compute_score(gts, res)[0], abs=1e-9)
        assert got["meteor_dcase,none"] == pytest.approx(meteor.compute_score(gts, res)[0], abs=1e-9)
        if captioning.spice_problem():
            assert got.get("spice,none") is None and got.get("spider,none") is None
