"""What the results say of the data a run read (``lm_eval_audio_data.sources``): one record per set of files read,
naming those files with their sha256, and no digest of nothing (``e3b0c442...``, the sha256 of empty input)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import REPO, results_json, run_cli, stand_in_hub

from lm_eval_audio.benchmarks import data_notes
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.hub_data import DataSource

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
NO_JUDGE = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
AIRBENCH_SAMPLE = REPO / "tasks" / "airbench" / "sample_data"
# Where a benchmark's sample tasks take their data from, left unset so that the bundled samples are read.
DATA_DIRS = ("AIRBENCH_DATA_DIR", "AUDIOBENCH_DATA_DIR", "MMAU_DATA_DIR", "MMAR_DATA_DIR", "MMAU_PRO_DATA_DIR",
             "MMSU_DATA_DIR", "VOICEBENCH_DATA_DIR", "BIGBENCH_AUDIO_DATA_DIR")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_local_record(record: dict) -> None:
    """A local folder's record names the files read, each with its sha256, and one digest of them all that
    ``sha256sum <files> | sha256sum`` gives again; it digests nothing else, and never empty input."""
    root = Path(record["local_folder"])
    files = record["metadata_files"]
    assert files, f"{record}: no file named as read"
    assert record["file_sha256"] == {name: _sha256(root / name) for name in files}
    manifest = "".join(f"{_sha256(root / name)}  {name}\n" for name in sorted(files))
    assert record["metadata_sha256"] == hashlib.sha256(manifest.encode()).hexdigest()
    assert EMPTY_SHA256 not in json.dumps(record)


# --- the shared helper -----------------------------------------------------------------------------------------


def test_no_digest_is_ever_made_of_nothing(tmp_path):
    from lm_eval_audio.benchmarks.hub_data import files_sha256

    with pytest.raises(ValueError, match="digest of nothing"):
        files_sha256(tmp_path, [])
    with pytest.raises(ValueError, match="not a file"):
        files_sha256(tmp_path, ["absent.json"])  # a file that is not there was not read
    record = DataSource(tmp_path).record()  # nothing read: the folder, and no digest at all
    assert record == {"local_folder": str(tmp_path), "metadata_files": []}
    (tmp_path / "meta.json").write_text("[]")
    check_local_record(DataSource(tmp_path, None, ("meta.json",)).record())


def test_a_snapshots_record_takes_lfs_digests_from_the_listing_and_hashes_the_cached_git_files(tmp_path):
    from lm_eval_audio.benchmarks.hub_data import RemoteFile, Snapshot

    files = {"a.parquet": RemoteFile("a.parquet", 3, "ab" * 32, None),  # LFS: its sha256 is listed
             "meta.json": RemoteFile("meta.json", 2, None, "cd" * 20),  # in git, cached
             "gone.json": RemoteFile("gone.json", 2, None, "ef" * 20)}  # in git, no longer cached
    snapshot = Snapshot("owner/name", None, "0" * 40, files, tmp_path, "Bench", "lm-eval-audio download")
    snapshot.root.mkdir(parents=True)
    (snapshot.root / "meta.json").write_text("[]")
    record = DataSource(snapshot.root, snapshot, ("meta.json", "a.parquet", "gone.json")).record()
    assert record["metadata_files"] == ["a.parquet", "gone.json", "meta.json"]
    assert record["file_sha256"] == {"a.parquet": "ab" * 32, "meta.json": hashlib.sha256(b"[]").hexdigest()}
    assert record["file_git_blob_id"] == {"gone.json": "ef" * 20}
    nothing = DataSource(snapshot.root, snapshot).record()  # nothing read: the commit, and no digest
    assert nothing["commit"] == "0" * 40
    assert not any(k.startswith("file_") or k == "metadata_files" for k in nothing)
    with pytest.raises(ValueError, match="digest of nothing"):
        snapshot.digests([])


def test_report_prints_a_record_without_a_digest_as_nothing_read():
    from lm_eval_audio.analysis.report import data_source_text

    assert data_source_text({"local_folder": "/data/x", "metadata_files": []}) == "/data/x (no file read)"
    assert data_source_text({"local_folder": "/data/x", "metadata_sha256": "ab" * 32}) == \
        "/data/x (metadata sha256 abababababababab)"


# --- every benchmark's bundled sample, through its real loader ------------------------------------------------


def _sample_tasks() -> list[tuple[Path, dict]]:
    """Every sample task's YAML (a leaf: it names the loader its documents come from)."""
    from lm_eval.tasks._yaml_loader import load_yaml  # how lm-eval 0.4.13 reads a task's YAML (includes, !function)

    found = []
    for path in sorted((REPO / "tasks").glob("*/*_sample*.yaml")):
        config = load_yaml(path)
        if callable(config.get("custom_dataset")):
            found.append((path, config))
    return found


@pytest.fixture(scope="module")
def sample_records():
    """Each sample task loaded by the loader its YAML names, as lm-eval calls it: every record it noted under
    ``sources`` (key, record, task), in order."""
    import os

    saved = {name: os.environ.pop(name) for name in DATA_DIRS if name in os.environ}
    noted, original = [], DataNotes.note

    def note(self, kind, key, value):
        if kind == "sources":
            noted.append((key, value, task))
        original(self, kind, key, value)

    DataNotes.note = note
    try:
        tasks = _sample_tasks()
        for _path, config in tasks:
            task = config["task"]
            dataset = config["custom_dataset"](**(config.get("metadata") or {}), **(config.get("dataset_kwargs") or {}))
            assert "sources" in data_notes.of(dataset).entries, f"{task} recorded no source"
    finally:
        DataNotes.note = original
        os.environ.update(saved)
    assert len(tasks) > 40  # the samples of every benchmark that bundles one
    return noted


def test_every_samples_record_names_the_files_read_with_their_digests(sample_records):
    assert {key for key, _, _ in sample_records} >= {"AIR-Bench Foundation sample", "AIR-Bench Chat sample"}
    for key, record, task in sample_records:
        assert "local_folder" in record, (key, task)
        check_local_record(record)


def test_a_records_key_names_one_set_of_files_whatever_task_writes_it(sample_records):
    """The tasks of a group write into one ``sources``: a key that two tasks reading different files shared would
    keep only the last task's files."""
    by_key: dict[str, dict] = {}
    for key, record, task in sample_records:
        first = by_key.setdefault(key, {"record": record, "task": task})
        assert record == first["record"], f"{key}: {task} and {first['task']} read different files"


def test_the_voicebench_sample_has_a_record_per_split_read(sample_records):
    from lm_eval_audio.tasks.voicebench import data

    expected = {f"VoiceBench {p.parent.name}/{p.name.split('-')[0]} sample": f"{p.parent.name}/{p.name}"
                for p in data.sample_root().glob("*/*.parquet")}
    found = {key: record for key, record, _ in sample_records if key.startswith("VoiceBench")}
    assert len(expected) == 10 and set(found) == set(expected)  # nine subsets, MMSU's two domains apart
    for key, record in found.items():
        assert record["metadata_files"] == [expected[key]]
        assert record["file_sha256"] == {expected[key]: _sha256(data.sample_root() / expected[key])}


@pytest.mark.parametrize("layout,shards,read", [
    ("parquet", 2, ["data/test-00000-of-00002.parquet", "data/test-00001-of-00002.parquet"]),
    ("arrow", 1, ["test/data-00000-of-00001.arrow"]),
])
def test_an_audiobench_folder_records_the_tables_it_reads(tmp_path, layout, shards, read):
    """Not its README.md or dataset_info.json (a folder may hold neither, and they are not what is scored)."""
    from conftest import tone, write_audiobench

    from lm_eval_audio.tasks.audiobench import data as audiobench

    rows = [{"audio": tone(0.5, seed=i), "instruction": f"q {i}", "answer": f"a {i}"} for i in range(3)]
    folder = write_audiobench(tmp_path, "clotho_aqa_test", rows, layout=layout, shards=shards)
    notes = DataNotes()
    audiobench.load_docs("clotho_aqa_test", {"audiobench_data_dir": str(tmp_path)}, notes=notes)
    record = notes.entries["sources"]["AudioBench AudioLLMs/clotho_aqa_test"]
    assert record["local_folder"] == str(folder) and record["metadata_files"] == read
    check_local_record(record)


def test_a_folder_with_both_of_mmars_meta_files_records_the_one_read(tmp_path):
    import shutil

    from lm_eval_audio.benchmarks import choice_layout
    from lm_eval_audio.tasks.mmar import data as mmar

    root = tmp_path / "mmar"
    shutil.copytree(choice_layout.sample_root(mmar.LAYOUT), root)
    items = json.loads((root / "MMAR-meta.json").read_text())
    (root / "MMAR-meta.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items))  # GitHub's, read first
    notes = DataNotes()
    choice_layout.load_docs(mmar.LAYOUT, {"modality": "sound"}, False, {"mmar_data_dir": str(root)}, notes=notes)
    record = notes.entries["sources"]["MMAR"]
    assert record["metadata_files"] == ["MMAR-meta.jsonl"] == [Path(notes.entries["meta_files"][k]).name
                                                                for k in notes.entries["meta_files"]]
    check_local_record(record)


# --- the results JSON of a run ---------------------------------------------------------------------------------


def test_the_airbench_sample_run_records_each_meta_file_read_and_report_prints_them(tmp_path):
    out = tmp_path / "out"
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", "airbench_sample", "--limit", "1",
                    "--batch_size", "8", "--gen_kwargs", "max_gen_toks=8", "--output_path", str(out),
                    "--log_samples", "--predict_only"],
                   env_extra={**NO_JUDGE, "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    sources = results_json(out)["lm_eval_audio_data"]["sources"]
    assert set(sources) == {"AIR-Bench Foundation sample", "AIR-Bench Chat sample"}
    for track in ("Foundation", "Chat"):
        record = sources[f"AIR-Bench {track} sample"]
        meta = f"{track}/{track}_meta.json"
        assert record["local_folder"] == str(AIRBENCH_SAMPLE) and record["metadata_files"] == [meta]
        assert record["file_sha256"] == {meta: _sha256(AIRBENCH_SAMPLE / meta)}
        check_local_record(record)
    report = run_cli(["lm-eval-audio", "report", str(out), "--output", str(tmp_path / "report")])
    assert report.returncode == 0, report.stderr[-4000:]
    for track in ("Foundation", "Chat"):
        digest = sources[f"AIR-Bench {track} sample"]["metadata_sha256"]
        assert f"| AIR-Bench {track} sample | {AIRBENCH_SAMPLE} (metadata sha256 {digest[:16]}) |" in report.stdout


def test_the_hubs_records_name_each_subsets_files_with_the_listings_digests(tmp_path, monkeypatch):
    """VoiceBench from the Hub (the stand-in serving its sample): each split read has its own record, naming its
    parquet files with their sha256; AIR-Bench's two tracks, each its meta file (kept in git, hashed from the
    cache: the listing gives a git blob id for it)."""
    from lm_eval_audio.tasks.airbench import data as airbench
    from lm_eval_audio.tasks.airbench import utils as airbench_utils
    from lm_eval_audio.tasks.voicebench import data as voicebench

    repos = {voicebench.REPO: voicebench.sample_root(), airbench.REPO: AIRBENCH_SAMPLE}
    with stand_in_hub(repos, tmp_path / "hf_cache", monkeypatch, DATA_DIRS) as hub:
        notes = DataNotes()
        voicebench.load_docs("mmsu", ["law", "biology"], {}, False, notes=notes)
        voicebench.load_docs("bbh", "test", {}, False, notes=notes)
        sources = notes.entries["sources"]
        assert set(sources) == {"VoiceBench mmsu/law", "VoiceBench mmsu/biology", "VoiceBench bbh/test"}
        for key, record in sources.items():
            config, split = key.split(" ")[1].split("/")
            (name,) = [f"{config}/{p.name}" for p in (voicebench.sample_root() / config).glob(f"{split}-*.parquet")]
            assert record["commit"] == hub.repos[voicebench.REPO].commit and record["metadata_files"] == [name]
            assert record["file_sha256"] == {name: _sha256(voicebench.sample_root() / name)}
        for track, load in (("Foundation", airbench_utils.load_foundation), ("Chat", airbench_utils.load_chat)):
            record = data_notes.of(load()).entries["sources"][f"AIR-Bench {track}"]
            meta = f"{track}/{track}_meta.json"
            assert record["repo_id"] == airbench.REPO and record["commit"] == hub.repos[airbench.REPO].commit
            assert record["metadata_files"] == [meta]
            assert record["file_sha256"] == {meta: _sha256(AIRBENCH_SAMPLE / meta)}
