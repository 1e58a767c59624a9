"""Tasks fetch their own data: the real ``huggingface_hub`` client against a local stand-in of the Hub's HTTP API
(``lm_eval_audio.testing.hub_stand_in``), serving the bundled samples laid out as the official repositories."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from conftest import REPO, results_json, run_cli, stand_in_hub

from lm_eval_audio.benchmarks import hub_data
from lm_eval_audio.storage import run_state

AIRBENCH = "qyang1021/AIR-Bench-Dataset"
SAMPLE = REPO / "tasks" / "airbench" / "sample_data"
NO_JUDGE = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
TOKEN = "hf_lm_eval_audio_test_TOKEN_never_printed"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """The stand-in Hub with AIR-Bench's sample as its repository, and this process pointed at it, online."""
    with stand_in_hub({AIRBENCH: SAMPLE}, tmp_path / "hf_cache", monkeypatch,
                      ("AIRBENCH_DATA_DIR", "AUDIOBENCH_DATA_DIR")) as stand_in:
        yield stand_in


def _env(hub, **extra) -> dict:
    return {**NO_JUDGE, "HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(hub.cache), "HF_HUB_OFFLINE": "0",
            "HF_HUB_DISABLE_XET": "1", **extra}


def _lm_eval(model, tasks: str, out: Path, *more) -> list[str]:
    return ["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={model}", "--tasks", tasks,
            "--batch_size", "8", "--gen_kwargs", "max_gen_toks=4", "--output_path", str(out), *more]


def _fetched(hub, since: int = 0) -> tuple[int, int]:
    """Files and bytes the stand-in sent since the ``since``-th log entry."""
    served = [e for e in hub.log[since:] if e["method"] == "GET" and "/resolve/" in e["path"]]
    return len(served), sum(e["sent"] for e in served)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sample_size() -> tuple[int, int]:
    files = [p for p in SAMPLE.rglob("*") if p.is_file() and p.name != "README.md"]
    return len(files), sum(p.stat().st_size for p in files)


def test_airbench_foundation_runs_with_no_variable_and_a_second_run_fetches_nothing(hub, tiny_qwen2_audio, tmp_path):
    proc = run_cli(_lm_eval(tiny_qwen2_audio, "airbench_foundation", tmp_path / "out"), env_extra=_env(hub))
    assert proc.returncode == 0, proc.stderr[-3000:]
    commit = hub.repos[AIRBENCH].commit
    # said before it was spent: the metadata, then the clips of the documents the run evaluates
    assert "fetching 1 file(s), " in proc.stderr and f"of {AIRBENCH}@{commit[:12]} into {hub.cache}" in proc.stderr
    files, size = _fetched(hub)
    foundation = [p for p in (SAMPLE / "Foundation").rglob("*") if p.is_file()]
    distinct = {p.read_bytes() for p in foundation}  # a file with the same bytes as another shares its blob
    assert (files, size) == (len(distinct), sum(map(len, distinct)))  # nothing of Chat
    snapshot = hub.cache / "datasets--qyang1021--AIR-Bench-Dataset" / "snapshots" / commit
    assert all((snapshot / p.relative_to(SAMPLE)).read_bytes() == p.read_bytes() for p in foundation)
    assert (snapshot / "Foundation" / "Foundation_meta.json").is_symlink()  # the standard cache layout
    res = results_json(tmp_path / "out")
    meta = "Foundation/Foundation_meta.json"  # the track's record: the meta file read, with its sha256
    source = res["lm_eval_audio_data"]["sources"]["AIR-Bench Foundation"]
    assert source == {"repo_id": AIRBENCH, "repo_type": "dataset", "revision": "default branch", "commit": commit,
                      "endpoint": hub.url, "metadata_files": [meta],
                      "file_sha256": {meta: hashlib.sha256((SAMPLE / meta).read_bytes()).hexdigest()}}
    assert "AIR-Bench Chat" not in res["lm_eval_audio_data"]["sources"]  # nothing of Chat read
    assert res["results"]["airbench_foundation_speaker_gender_recognition"]["audio_missing,none"] == 0

    mark = len(hub.log)
    again = run_cli(_lm_eval(tiny_qwen2_audio, "airbench_foundation", tmp_path / "again"), env_extra=_env(hub))
    assert again.returncode == 0, again.stderr[-3000:]
    assert _fetched(hub, mark) == (0, 0) and "fetching" not in again.stderr
    pinned = run_cli(_lm_eval(tiny_qwen2_audio, "airbench_foundation_speaker_gender_recognition", tmp_path / "pin",
                              "--metadata", json.dumps({"data_revision": commit})), env_extra=_env(hub))
    assert pinned.returncode == 0, pinned.stderr[-3000:]
    assert results_json(tmp_path / "pin")["lm_eval_audio_data"]["sources"]["AIR-Bench Foundation"]["revision"] == commit


def test_limit_fetches_only_the_clips_of_the_first_items(hub, tiny_qwen2_audio, tmp_path):
    task = "airbench_foundation_speaker_gender_recognition"
    proc = run_cli(_lm_eval(tiny_qwen2_audio, task, tmp_path / "out", "--limit", "1"), env_extra=_env(hub))
    assert proc.returncode == 0, proc.stderr[-3000:]
    paths = [e["path"].split("/resolve/")[1].split("/", 1)[1] for e in hub.log
             if e["method"] == "GET" and "/resolve/" in e["path"]]
    assert paths[0] == "Foundation/Foundation_meta.json" and len(paths) == 2
    assert paths[1].startswith("Foundation/Speaker_Gender_Recognition_")
    assert "Chat/Chat_meta.json" not in paths


@pytest.mark.slow  # lm_eval processes, offline: about 25 s
def test_offline_runs_from_the_cache_and_fails_in_one_line_without_it(hub, tiny_qwen2_audio, tmp_path):
    task = "airbench_foundation_speaker_gender_recognition"
    offline = _env(hub, HF_HUB_OFFLINE="1")
    missing = run_cli(_lm_eval(tiny_qwen2_audio, task, tmp_path / "none"), env_extra=offline, in_process=False)
    assert missing.returncode == 2
    line = missing.stderr.strip().splitlines()[0]
    assert line.startswith("lm_eval: error: AIR-Bench: HF_HUB_OFFLINE=1 forbids the Hub and qyang1021/AIR-Bench-Dataset "
                           "is not in")
    # what to do: exactly the task named, fetched ahead; a mirror; the local folder
    assert f"`lm-eval-audio download --tasks {task}`" in line and "AIRBENCH_DATA_DIR" in line and "HF_ENDPOINT" in line
    assert hub.log == []  # offline: nothing asked of the Hub

    fetched = run_cli(["lm-eval-audio", "download", "--tasks", task], env_extra=_env(hub))
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    mark = len(hub.log)
    proc = run_cli(_lm_eval(tiny_qwen2_audio, task, tmp_path / "out"), env_extra=offline, in_process=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(hub.log) == mark
    assert results_json(tmp_path / "out")["lm_eval_audio_data"]["sources"]["AIR-Bench Foundation"]["commit"] == \
        hub.repos[AIRBENCH].commit


def test_a_gated_repository_stops_in_one_line_and_the_token_stays_secret(hub, tiny_qwen2_audio, tmp_path):
    hub.refused.add(AIRBENCH)
    proc = run_cli(_lm_eval(tiny_qwen2_audio, "airbench_foundation", tmp_path / "out"),
                   env_extra=_env(hub, HF_TOKEN=TOKEN), in_process=False)
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[0]
    assert "the Hub refused qyang1021/AIR-Bench-Dataset (HTTP 401)" in line and "set HF_TOKEN" in line
    assert "Accept its terms" in line
    assert TOKEN not in proc.stderr + proc.stdout
    assert not (tmp_path / "out").exists()


CHUNK = 8192  # the client's read size, from its 10 MiB: so that a clip of the sample is "large"


def test_a_cut_transfer_resumes_and_a_killed_one_resumes_where_it_stopped(hub, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", CHUNK)
    snapshot = hub_data.open_snapshot(AIRBENCH, None, "AIR-Bench", "x")
    clip = next(f for f in snapshot.files.values() if f.path.endswith(".wav") and f.size > 20000)
    # cut mid-file: huggingface_hub's own retry asks for the rest, from the last whole chunk it wrote
    hub.cut_after[clip.path] = 3 * CHUNK + 100
    snapshot.fetch([clip], "test")
    gets = [e for e in hub.downloads() if e["path"].endswith(clip.path)]
    assert [e["range"] for e in gets] == [None, f"bytes={3 * CHUNK}-"]
    assert gets[1]["sent"] == clip.size - 3 * CHUNK
    assert (snapshot.root / clip.path).read_bytes() == (SAMPLE / clip.path).read_bytes()

    # killed mid-file: the next run asks for the rest only
    other = next(f for f in snapshot.files.values() if f.path.endswith(".wav") and f.size > 20000 and f != clip)
    hub.stall_after[other.path] = 2 * CHUNK + 100
    script = ("import sys; from huggingface_hub import constants; constants.DOWNLOAD_CHUNK_SIZE = 8192; "
              "from lm_eval_audio.benchmarks import hub_data as h; s = h.open_snapshot(sys.argv[1], None, "
              "'AIR-Bench', 'x'); s.fetch([s.files[sys.argv[2]]], 'test')")
    env = {**os.environ, **_env(hub)}
    proc = subprocess.Popen([sys.executable, "-c", script, AIRBENCH, other.path], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # killed once its partial file holds the two whole chunks the stand-in sent (a fixed wait raced a busy machine)
    partial = snapshot.repo_cache / "blobs" / f"{other.etag}.lm_eval_audio.partial"
    deadline = time.time() + 60
    while not (partial.is_file() and partial.stat().st_size >= 2 * CHUNK) and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (snapshot.root / other.path).exists()
    del hub.stall_after[other.path]
    snapshot.fetch([other], "test")
    gets = [e for e in hub.downloads() if e["path"].endswith(other.path)]
    assert gets[-1]["range"] == f"bytes={2 * CHUNK}-" and gets[-1]["sent"] == other.size - 2 * CHUNK
    assert (snapshot.root / other.path).read_bytes() == (SAMPLE / other.path).read_bytes()


def test_the_token_goes_to_the_hub_and_not_to_the_cdn_it_redirects_to(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.cdn = True
    snapshot = hub_data.open_snapshot(AIRBENCH, None, "AIR-Bench", "x")
    clip = next(f for f in snapshot.files.values() if f.path.endswith(".wav"))
    snapshot.fetch([clip], "test")
    resolve = [e for e in hub.log if "/resolve/" in e["path"]]
    cdn = [e for e in hub.log if e["path"].startswith("/cdn/")]
    assert [(e["method"], e["status"], e["auth"]) for e in resolve] == [("HEAD", 302, True)]
    assert [(e["method"], e["status"], e["auth"]) for e in cdn] == [("GET", 200, False)]
    assert (snapshot.root / clip.path).read_bytes() == (SAMPLE / clip.path).read_bytes()


def test_a_truncated_or_corrupted_cached_file_is_fetched_again(hub):
    snapshot = hub_data.open_snapshot(AIRBENCH, None, "AIR-Bench", "x")
    meta = snapshot.files["Foundation/Foundation_meta.json"]
    clip = next(f for f in snapshot.files.values() if f.path.endswith(".wav"))
    snapshot.fetch([meta, clip], "test")
    assert _fetched(hub)[0] == 2
    local_clip = snapshot.root / clip.path
    with open(local_clip.resolve(), "r+b") as f:  # same size, other bytes
        f.seek(100)
        f.write(b"\xff" * 16)
    local_meta = snapshot.root / meta.path
    with open(local_meta.resolve(), "r+b") as f:  # truncated
        f.truncate(meta.size // 2)
    mark = len(hub.log)
    snapshot.fetch([meta, clip], "test")
    assert _fetched(hub, mark) == (2, meta.size + clip.size)
    assert local_clip.read_bytes() == (SAMPLE / clip.path).read_bytes()
    assert local_meta.read_bytes() == (SAMPLE / meta.path).read_bytes()


def test_download_dry_run_lists_files_and_sizes_and_fetches_only_metadata(hub):
    proc = run_cli(["lm-eval-audio", "download", "--tasks", "airbench_chat", "--dry_run"], env_extra=_env(hub))
    assert proc.returncode == 0, proc.stderr[-3000:]
    chat = [p for p in (SAMPLE / "Chat").rglob("*.wav")]
    assert f"total: {len(chat)} file(s)" in proc.stdout
    for clip in chat[:3]:
        assert f"  {clip.relative_to(SAMPLE).as_posix()}\t{clip.stat().st_size}" in proc.stdout
    served = [e["path"] for e in hub.downloads()]
    assert len(served) == 1 and served[0].endswith("Chat/Chat_meta.json")


def test_a_download_that_would_not_fit_stops_before_it_starts(hub, monkeypatch):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 1000, 1000))
    snapshot = hub_data.open_snapshot(AIRBENCH, None, "AIR-Bench", "x")
    with pytest.raises(hub_data.HubDataError, match=r"would not fit in .*hf_cache \(1\.0 KB free\)"):
        snapshot.fetch([snapshot.files["Foundation/Foundation_meta.json"]], "test")
    assert hub.downloads() == []


def test_audiobench_dataset_runs_from_the_hub_and_mmar_unpacks_its_archive_once(hub, tiny_qwen2_audio, tmp_path):
    from conftest import write_audiobench
    from test_audiobench_data import _rows

    repo_folder = tmp_path / "repo"
    write_audiobench(repo_folder, "librispeech_test_clean", _rows(3))
    hub.add_folder("AudioLLMs/librispeech_test_clean", repo_folder / "librispeech_test_clean")
    proc = run_cli(_lm_eval(tiny_qwen2_audio, "audiobench_librispeech_test_clean", tmp_path / "out"), env_extra=_env(hub))
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_json(tmp_path / "out")
    assert res["n-samples"]["audiobench_librispeech_test_clean"]["effective"] == 3
    source = res["lm_eval_audio_data"]["sources"]["AudioBench AudioLLMs/librispeech_test_clean"]
    assert source["commit"] == hub.repos["AudioLLMs/librispeech_test_clean"].commit
    shard = "data/test-00000-of-00001.parquet"
    assert source["file_sha256"] == {shard: _sha256(repo_folder / "librispeech_test_clean" / shard)}

    # MMAR: MMAR-meta.json beside mmar-audio.tar.gz, as BoJack/MMAR publishes them
    mmar = REPO / "tasks" / "mmar" / "sample_data"
    published = tmp_path / "mmar_repo"
    published.mkdir()
    (published / "MMAR-meta.json").write_bytes((mmar / "MMAR-meta.json").read_bytes())
    with tarfile.open(published / "mmar-audio.tar.gz", "w:gz") as tar:
        tar.add(mmar / "audio", arcname="audio")
    hub.add_folder("BoJack/MMAR", published)
    for run in ("first", "second"):
        proc = run_cli(_lm_eval(tiny_qwen2_audio, "mmar_sound", tmp_path / run), env_extra=_env(hub))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert ("unpacking mmar-audio.tar.gz" in proc.stderr) == (run == "first")
    source = results_json(tmp_path / "second")["lm_eval_audio_data"]["sources"]["MMAR"]
    assert source["repo_id"] == "BoJack/MMAR"
    assert source["file_sha256"] == {n: _sha256(published / n) for n in ("MMAR-meta.json", "mmar-audio.tar.gz")}


MMAU_REPO = "gamma-lab-umd/MMAU-test-mini"


def _clip(seconds: float = 0.05, fmt: str = "WAV") -> bytes:
    import io

    import numpy as np
    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(buffer, (0.1 * np.sin(np.arange(int(16000 * seconds)) / 5)).astype(np.float32), 16000, format=fmt)
    return buffer.getvalue()


def _mmau_repo(folder: Path, edit=lambda item, row: row) -> Path:
    """MMAU test-mini as its authors publish it on the Hub: parquet rows instruction, choices and answer lettered
    "(A) ...", other_attributes a JSON string, context the encoded clip; one row per item of the official JSON
    (here with a short synthetic clip each). ``edit`` changes a row, or drops it by returning None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lm_eval_audio.tasks.mmau import hub_audio

    rows = []
    for item in json.loads(hub_audio.METADATA.read_text()):
        letters = [f"({chr(65 + i)}) {c}" for i, c in enumerate(item["choices"])]
        row = edit(item, {
            "instruction": item["question"], "choices": letters,
            "answer": letters[item["choices"].index(item["answer"])],
            "other_attributes": json.dumps({k: item[k] for k in ("id", "dataset", "task", "split", "category",
                                                                  "sub-category", "difficulty")}),
            "context": {"bytes": _clip(), "path": None}})
        if row is not None:
            rows.append(row)
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "test_mini.parquet", row_group_size=100)
    return folder


def test_mmau_test_mini_runs_on_the_hubs_clips_and_the_official_questions(hub, tiny_qwen2_audio, tmp_path,
                                                                          monkeypatch, capsys):
    from huggingface_hub import constants

    from lm_eval_audio.benchmarks import choice_layout
    from lm_eval_audio.tasks.mmau import data, hub_audio

    items = json.loads(hub_audio.METADATA.read_text())
    mp3 = next(i["id"] for i in items if i["task"] == "sound")  # some Hub rows hold MP3 bytes; they are kept as they are

    def edit(item, row):
        if item["id"] == mp3:
            row["context"] = {"bytes": _clip(0.5, "MP3"), "path": None}
        return row

    hub.add_folder(MMAU_REPO, _mmau_repo(tmp_path / "mmau_repo", edit))
    proc = run_cli(_lm_eval(tiny_qwen2_audio, "mmau_test_mini_sound", tmp_path / "out", "--limit", "2"),
                   env_extra=_env(hub, MMAU_DATA_DIR=""))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "writing the clips of test_mini.parquet" in proc.stderr
    res = results_json(tmp_path / "out")
    assert res["n-samples"]["mmau_test_mini_sound"]["effective"] == 2
    source = res["lm_eval_audio_data"]["sources"]["MMAU test-mini"]
    assert (source["repo_id"], source["commit"]) == (MMAU_REPO, hub.repos[MMAU_REPO].commit)
    assert source["metadata"]["commit"] == hub_audio.METADATA_COMMIT
    assert source["metadata"]["sha256"] == hub_audio.metadata_sha256()
    assert source["file_sha256"] == {"test_mini.parquet": _sha256(tmp_path / "mmau_repo" / "test_mini.parquet")}
    assert source["hub_rows_against_metadata"] == {"metadata_items": 1000, "hub_rows": 1000, "clips_written": 1000,
                                                   "differing": 0, "items_without_a_row": 0, "rows_without_an_item": 0,
                                                   "repeated_rows": 0, "rows_without_audio": 0}
    assert res["results"]["mmau_test_mini_sound"]["audio_missing,none"] == 0

    # the made folder is the official layout: the JSON as published, each clip the row's bytes as they are
    mark = len(hub.log)
    folder = choice_layout.data_root(data.TEST_MINI, {})
    assert _fetched(hub, mark) == (0, 0) and "writing" not in capsys.readouterr().err  # nothing again
    assert (folder / "mmau-test-mini.json").read_bytes() == hub_audio.METADATA.read_bytes()
    assert (folder / next(i["audio_id"] for i in items if i["id"] != mp3)).read_bytes() == _clip()
    # offline with another cache: the line names the tasks the command named, a mirror and the local folder
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty_cache"))
    started = run_state.started(run_state.Run(asked=("mmau_test_mini_sound",)))
    try:
        with pytest.raises(hub_data.HubDataError, match="`lm-eval-audio download --tasks mmau_test_mini_sound`.*"
                                                        "HF_ENDPOINT.*MMAU_DATA_DIR"):
            choice_layout.data_root(data.TEST_MINI, {})
    finally:
        run_state.ended(started)
    assert (folder / next(i["audio_id"] for i in items if i["id"] == mp3)).read_bytes() == _clip(0.5, "MP3")


def test_mmau_hub_rows_that_differ_from_the_official_questions_are_recorded(hub, tmp_path, caplog):
    """The JSON is what is scored: a row with other text is recorded, an item with no row keeps its place and is
    scored wrong (audio_missing), a row of no item is counted."""
    from lm_eval_audio.benchmarks import choice_layout
    from lm_eval_audio.benchmarks.data_notes import DataNotes
    from lm_eval_audio.tasks.mmau import data

    items = json.loads((REPO / "tasks/mmau/official/mmau-test-mini.json").read_text())
    changed, dropped = items[0]["id"], items[1]["id"]

    def edit(item, row):
        if item["id"] == dropped:  # its row names an id the JSON does not have
            row["other_attributes"] = json.dumps({**json.loads(row["other_attributes"]), "id": "not-an-item"})
        if item["id"] == changed:
            row["choices"] = [*row["choices"][:-1], "(D) something else"]
        return row

    hub.add_folder(MMAU_REPO, _mmau_repo(tmp_path / "mmau_repo", edit))
    notes = DataNotes()
    docs = choice_layout.load_docs(data.TEST_MINI, {"task": items[1]["task"]}, False, {}, notes=notes)
    record = notes.entries["sources"]["MMAU test-mini"]["hub_rows_against_metadata"]
    assert (record["differing"], record["differing_first"], record["items_without_a_row"],
            record["items_without_a_row_first"], record["rows_without_an_item_first"], record["clips_written"]) == \
        (1, [changed], 1, [dropped], ["not-an-item"], 999)
    assert "1 row(s) with other text, 1 item(s) with no row" in caplog.text
    assert notes.entries["sources"]["MMAU test-mini"]["differences_from_metadata"] == {"differing": 1,
                                                                                        "items_without_a_row": 1}
    doc = next(d for d in docs if d["uniq_id"] == dropped)
    assert doc["audio_problem"].startswith("missing audio file")


def test_mmau_hub_rows_that_give_no_clip_stop_the_run(tmp_path):
    from lm_eval_audio.tasks.mmau import hub_audio

    def other_ids(item, row):
        row["other_attributes"] = json.dumps({**json.loads(row["other_attributes"]), "id": "x-" + item["id"]})
        return row

    repo = _mmau_repo(tmp_path / "repo", other_ids)
    (tmp_path / "made").mkdir()
    with pytest.raises(hub_data.HubDataError, match=r"test_mini.parquet: none of its 1000 row\(s\) gives a clip for an "
                       r"item of the official mmau-test-mini.json \(ids such as \['x-.*MMAU_DATA_DIR"):
        hub_audio.write_layout([repo / "test_mini.parquet"], tmp_path / "made")


def test_mmau_test_is_not_fetched_and_says_where_to_get_it(hub, tmp_path, monkeypatch):
    monkeypatch.delenv("MMAU_DATA_DIR", raising=False)
    proc = run_cli(["lm-eval-audio", "download", "--tasks", "mmau_test"], env_extra=_env(hub))
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[-1]
    assert "MMAU test is not on the Hugging Face Hub in the layout its official evaluation reads" in line
    assert "mmau-test.json from github.com/Sakshi113/MMAU" in line and "MMAU_DATA_DIR" in line


def test_offline_reads_a_snapshot_another_tool_fetched(hub, monkeypatch):
    """A cache filled by huggingface_hub itself (as `hf download` fills it) serves an offline run: its blobs,
    named by sha256 or git blob id, are the listing the files are checked against."""
    from huggingface_hub import constants, hf_hub_download

    meta = "Foundation/Foundation_meta.json"
    hf_hub_download(AIRBENCH, meta, repo_type="dataset", cache_dir=hub.cache, endpoint=hub.url)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    mark = len(hub.log)
    snapshot = hub_data.open_snapshot(AIRBENCH, None, "AIR-Bench", "x")
    assert snapshot.commit == hub.repos[AIRBENCH].commit and set(snapshot.files) == {meta}
    assert snapshot.fetch([snapshot.files[meta]], "test").files == ()
    assert len(hub.log) == mark


def test_an_error_while_fetching_several_files_names_what_the_command_asked_and_the_local_folder(tmp_path,
                                                                                                 monkeypatch):
    """The download threads do not hold the command's context: the error is said by the calling thread, which
    does; inside `download` it never suggests `download`, and it names the benchmark's local folder variable."""
    from lm_eval_audio.benchmarks.hub_files import RemoteFile

    def refused(*args, **kwargs):
        raise ConnectionError("no route to the Hub")

    monkeypatch.setattr(hub_data, "download", refused)
    files = {p: RemoteFile(p, 10, None, f"blob{i}") for i, p in enumerate(("a.wav", "b.wav"))}
    snapshot = hub_data.Snapshot("org/bench", None, "c0ffee", files, tmp_path, "Bench", "BENCH_DATA_DIR")
    for downloading, said in ((True, "run it where there is internet"),
                              (False, "`lm-eval-audio download --tasks bench_task`")):
        started = run_state.started(run_state.Run(asked=("bench_task",), downloading=downloading))
        try:
            with pytest.raises(hub_data.HubDataError) as error:
                snapshot._download(tuple(files.values()))
        finally:
            run_state.ended(started)
        assert said in str(error.value) and "BENCH_DATA_DIR" in str(error.value), str(error.value)
        assert downloading is ("lm-eval-audio download" not in str(error.value)), str(error.value)


def test_a_clips_snapshot_keeps_the_benchmark_and_local_folder_its_repository_was_opened_with(tmp_path, monkeypatch):
    """A clip keeps the snapshot its document was built from (``Snapshot.problem`` notes it on the loader's notes;
    ``clips_of`` reads them, never parsing the path back): its errors name what the benchmark named."""
    from lm_eval_audio.benchmarks.data_notes import DataNotes

    from huggingface_hub import constants

    commit = "a" * 40
    listing = tmp_path / hub_data.WORK_FOLDER / "datasets--org--bench" / commit / "listing.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps([{"path": "clips/x.wav", "size": 4, "sha256": None, "blob_id": "b"}]))
    (tmp_path / "datasets--org--bench" / "refs").mkdir(parents=True)
    (tmp_path / "datasets--org--bench" / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    snapshot = hub_data.open_snapshot("org/bench", None, "Bench", "BENCH_DATA_DIR")
    clip = str(tmp_path / "datasets--org--bench" / "snapshots" / commit / "clips" / "x.wav")
    notes = DataNotes()
    assert hub_data.clips_of([clip], notes) == {}  # no document named it yet: a path alone says nothing
    assert snapshot.problem(clip, notes) == ""  # as a loader checks each clip it puts in a document
    assert hub_data.clips_of([clip], DataNotes()) == {}  # another load's notes: nothing of this one's
    found = hub_data.clips_of([clip, {"path": clip, "unavailable": "missing"}, str(tmp_path / "local.wav")], notes)
    assert list(found) == [snapshot] and [f.path for f in found[snapshot]] == ["clips/x.wav"]
    assert (snapshot.benchmark, snapshot.local_folder) == ("Bench", "BENCH_DATA_DIR")
