"""Broken and hostile inputs: each is a clear error naming the file or item, or a counted skip
recorded in the results, never a bare crash or a silently wrong number.

| input | outcome |
|---|---|
| audio cut short, corrupt, zero-length, without samples, with NaN samples | that request fails, counted and named (``failed_requests``); the run goes on |
| 8 kHz, 48 kHz stereo, 10-minute clips | decoded, downmixed, resampled; long clips follow the wrapper's long-audio policy |
| meta JSON malformed or not a list | error naming the file |
| meta item missing fields, or with a path leading out of the snapshot | the item is left out, counted and named (``airbench_invalid_items``) |
| meta items under a task name AIR-Bench lacks | counted and named (``airbench_unknown_task_names``), with a warning |
| an unreadable cache file (judge, transcripts, ``--use_cache``) | moved aside with a warning and rebuilt |
| a judge replying garbage, nothing, or an HTML error page | re-asked, then a counted judge failure; never a score |
"""

from __future__ import annotations

import re
import logging
import sqlite3

import numpy as np
import pytest
import soundfile as sf
from conftest import foundation_item, results_json, run_cli, tone, write_snapshot
from scripted_judge import ScriptedJudge

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.airbench import data as airbench
from lm_eval_audio.audio import decoding as audio
from lm_eval_audio.audio.errors import AudioError
from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.judges.judge_engine import JudgeEngine, JudgeRequest

SR = 16000


def _broken_clips(folder) -> dict[str, str]:
    """name -> the reason its decoding must give."""
    folder.mkdir(parents=True, exist_ok=True)
    sf.write(folder / "whole.wav", tone(1.0), SR, subtype="PCM_16")
    data = (folder / "whole.wav").read_bytes()
    (folder / "cut.wav").write_bytes(data[: len(data) // 2])
    sf.write(folder / "whole.flac", tone(3.0), SR)
    data = (folder / "whole.flac").read_bytes()
    (folder / "cut.flac").write_bytes(data[: len(data) // 3])
    (folder / "corrupt.wav").write_bytes(b"RIFF" + bytes(range(256)) * 8)
    (folder / "empty.wav").write_bytes(b"")
    sf.write(folder / "no_samples.wav", np.zeros(0, dtype=np.float32), SR)
    nan = tone(1.0)
    nan[100:200] = np.nan
    sf.write(folder / "nan.wav", nan, SR, subtype="FLOAT")
    return {"cut.wav": "truncated file: its header declares 1.00 s, it holds 0.50 s",
            "cut.flac": "truncated file: its header declares 3.00 s",
            "corrupt.wav": "cannot decode audio", "empty.wav": "audio file is empty (0 bytes)",
            "no_samples.wav": "audio has zero samples", "nan.wav": "audio contains NaN or infinite samples"}


def test_broken_audio_is_an_error_naming_the_file_and_why(tmp_path):
    for name, reason in _broken_clips(tmp_path).items():
        with pytest.raises(AudioError) as error:
            audio.load(str(tmp_path / name), SR)
        assert name in str(error.value) and reason in str(error.value), name


def test_other_rates_channels_and_long_clips_are_decoded_to_the_models_rate(tmp_path):
    sf.write(tmp_path / "8k.wav", tone(1.0, sr=8000), 8000)
    sf.write(tmp_path / "48k_stereo.wav", np.stack([tone(1.0, sr=48000), tone(1.0, freq=220, sr=48000)], 1), 48000)
    sf.write(tmp_path / "ten_minutes.flac", np.zeros(600 * SR, dtype=np.float32), SR)
    assert audio.load(str(tmp_path / "8k.wav"), SR).shape == (SR,)
    stereo = audio.load(str(tmp_path / "48k_stereo.wav"), SR)
    assert stereo.shape == (SR,) and np.isfinite(stereo).all()
    assert audio.duration_seconds(str(tmp_path / "ten_minutes.flac")) == 600.0
    assert audio.load(str(tmp_path / "ten_minutes.flac"), SR).shape == (600 * SR,)


def test_a_hostile_snapshot_runs_to_the_end_with_every_problem_counted(tiny_qwen2_audio, tmp_path):
    task, dataset = "Speaker_Gender_Recognition", "ds"
    items = [foundation_item(i, task, dataset) for i in range(12)]
    items += [
        foundation_item(12, task, dataset, path="../../../../etc/passwd"),
        foundation_item(13, task, dataset, path="/etc/passwd"),
        foundation_item(14, "Made_Up_Task", dataset),
        {k: v for k, v in foundation_item(15, task, dataset).items() if k != "question"},
    ]
    root = write_snapshot(tmp_path / "snapshot", items, skip_files={12, 13})
    folder = root / "Foundation" / f"{task}_{dataset}"
    broken = _broken_clips(tmp_path / "broken")
    for i, name in enumerate(broken):  # items 0-5 get the broken clips, 6 and 7 odd rates, 8 ten minutes
        (folder / f"clip_{i}.wav").write_bytes((tmp_path / "broken" / name).read_bytes())
    sf.write(folder / "clip_6.wav", tone(1.0, sr=8000), 8000)
    sf.write(folder / "clip_7.wav", np.stack([tone(1.0, sr=48000)] * 2, 1), 48000)
    sf.write(folder / "clip_8.wav", np.zeros(600 * SR, dtype=np.float32), SR)

    out = tmp_path / "out"
    proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio},max_new_tokens=4",
                    "--tasks", "airbench_foundation", "--batch_size", "4", "--output_path", str(out), "--log_samples"],
                   env_extra={"AIRBENCH_DATA_DIR": str(root), "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = results_json(out)
    notes = res["lm_eval_audio_data"]
    key = "airbench_foundation_speaker_gender_recognition"
    assert res["n-samples"][key]["effective"] == 12  # the four bad items left out, each named below
    failed = notes["failed_requests"]
    assert notes["failed_request_counts"] == {key: 5}  # the empty file is the loader's: audio_missing
    for doc_id, name in enumerate(broken):
        if name != "empty.wav":
            assert broken[name] in failed[f"{key}/doc {doc_id}"][0], name
    unusable = notes["airbench_unusable_audio"]
    assert list(unusable) == [f"Foundation/{task}/3"] and unusable[f"Foundation/{task}/3"].startswith("empty audio file")
    invalid = notes["airbench_invalid_items"]
    assert "leads outside the snapshot folder" in invalid["Foundation/12"]
    assert "leads outside the snapshot folder" in invalid["Foundation/13"]
    assert invalid["Foundation/15"] == "lacks question"
    assert notes["airbench_unknown_task_names"]["Foundation/Made_Up_Task"]["items"] == 1
    metrics = res["results"][key]
    assert metrics["audio_missing,none"] == 1
    # the printed counts are items, in a table of their own: 5 failed requests are 5 items, the empty file 1
    assert "|Task|audio_missing|failed_items|" in proc.stdout
    assert "|airbench_foundation_speaker_gender_recognition|1|5|" in proc.stdout, proc.stdout
    rows = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert any(re.search(r"\|exact_match_rule_parsed *\| +\|0\.\d{4} \(parse rate\)", r) for r in rows), proc.stdout
    scores = proc.stdout.split("Counts per task")[0]
    assert "Value" in scores and not re.search(r"\|(audio_missing|failed_items) *\|", scores)  # not among scores
    assert "5 item(s) failed for good (5 of " in proc.stderr
    assert "failed for good" in proc.stderr and "name a task AIR-Bench does not have" in proc.stderr
    assert "1 clip(s) longer than 30 s were truncated" in proc.stderr  # the ten-minute clip
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("problem, write", [
    ("malformed", lambda p: p.write_text('[{"path": "a.wav",')),
    ("not a list", lambda p: p.write_text('{"path": "a.wav"}')),
])
def test_broken_metadata_is_an_error_naming_the_file(tmp_path, problem, write):
    (tmp_path / "Foundation").mkdir()
    meta = tmp_path / "Foundation" / "Foundation_meta.json"
    write(meta)
    with pytest.raises(airbench.AirBenchDataError) as error:
        airbench.load_items(tmp_path, "Foundation", ["Speaker_Gender_Recognition"], "t", notes=DataNotes())
    assert str(meta) in str(error.value)


def test_an_audiobench_cell_path_leading_out_of_its_folder_is_refused(tmp_path):
    """A parquet audio cell holding a path instead of bytes may name a file beside its table,
    never one outside it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "dataset" / "data"
    data.mkdir(parents=True)
    sf.write(data / "inside.wav", tone(0.5), SR)
    sf.write(tmp_path / "outside.wav", tone(0.5), SR)
    paths = ["inside.wav", "../../outside.wav", str(tmp_path / "outside.wav")]
    cells = pa.array([{"bytes": None, "path": p} for p in paths],
                     type=pa.struct([("bytes", pa.binary()), ("path", pa.string())]))
    table = data / "test-00000-of-00001.parquet"
    pq.write_table(pa.table({"context": cells}), table)
    assert len(audio.load({"table": str(table), "row": 0}, SR)) == SR // 2
    for row, path in ((1, "../../outside.wav"), (2, str(tmp_path / "outside.wav"))):
        with pytest.raises(AudioError, match=f"row {row}: the audio cell's path '{path}' leads outside the folder"):
            audio.load({"table": str(table), "row": row}, SR)


def test_unreadable_caches_are_moved_aside_and_rebuilt(tmp_path, caplog):
    from lm_eval.api.model import CachingLM, LM

    from lm_eval_audio.judges.judge_cache import JudgeCache
    from lm_eval_audio.model_wrappers.transcription import Transcriber, TranscriptCache

    class Echo(LM):
        def generate_until(self, requests):
            return [r.args[0] for r in requests]

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

    class OurEcho(Echo):
        """Stands in for one of the plugin's wrappers: only their --use_cache databases are set aside."""

    OurEcho.__module__ = "lm_eval_audio.model_wrappers.echo"

    garbage = tmp_path / "judge.sqlite"
    garbage.write_bytes(b"not a database " * 100)
    cut = tmp_path / "cut.sqlite"
    cache = JudgeCache(str(cut))
    for i in range(2000):
        cache.put(str(i), "m", "reply " * 40)
    cache.close()
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    requests_db = tmp_path / "requests_rank0.db"
    requests_db.write_bytes(b"\x00garbage" * 64)
    transcripts = tmp_path / "transcripts.sqlite"
    transcripts.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)

    class Counting(Transcriber):
        backend, model, options = "test", "counting", {}

        def transcribe(self, clips):
            return [f"{len(c)} samples" for c in clips]

    with caplog.at_level(logging.WARNING, logger="lm_eval.audio"):
        for path in (garbage, cut):
            cache = JudgeCache(str(path))
            assert cache.get("1") is None
            cache.put("k", "m", "v")
            assert cache.get("k") == "v"
            cache.close()
        with pytest.raises(sqlite3.DatabaseError):  # lm-eval's own models: lm-eval's own behaviour
            CachingLM(Echo(), str(requests_db))
        cached = CachingLM(OurEcho(), str(requests_db))
        assert len(cached.dbdict) == 0
        three = lambda ref: np.zeros(3)  # noqa: E731
        texts, transcribed, errors = TranscriptCache(Counting(), str(transcripts)).get_all({"d": "clip"}, three)
        assert texts == {"d": "3 samples"} and transcribed == 1 and not errors
        assert TranscriptCache(Counting(), str(transcripts)).get_all({"d": "clip"}, three)[:2] == (texts, 0)
    assert caplog.text.count("is unreadable") == 4 and "moved to" in caplog.text
    assert len(list(tmp_path.glob("*.unreadable-*"))) >= 4
    with sqlite3.connect(requests_db) as db:
        assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"


HTML_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"


@pytest.mark.parametrize("reply", ["garbage: the judge rambles about the weather", "", HTML_PAGE])
def test_a_judge_reply_that_is_no_verdict_is_a_counted_failure(tmp_path, reply):
    from lm_eval_audio.tasks.airbench.judges import parse_pair_scores

    with ScriptedJudge(reply=lambda prompt: reply) as judge:
        config = JudgeConfig(base_url=judge.base_url, model="judge-x", cache_path=str(tmp_path / "c.sqlite"),
                             retry_base_seconds=0.01, max_parse_attempts=2)
        outcomes, stats = JudgeEngine(config).run(
            [JudgeRequest(str(i), [{"role": "user", "content": f"judge {i}"}]) for i in range(3)], parse_pair_scores)
    assert stats.failures == 3 and all(o.parsed is None for o in outcomes)
    assert all(o.error == "unparsable judge reply after 2 attempt(s)" for o in outcomes)
    assert len(judge.requests) == 6  # each asked twice, then given up


def test_an_html_error_page_with_status_200_is_a_counted_failure(tmp_path):
    """A proxy that answers 200 with a web page instead of JSON."""
    import http.server
    import threading

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = HTML_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = JudgeConfig(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", model="judge-x",
                             cache_path=str(tmp_path / "c.sqlite"), retry_base_seconds=0.01, max_retries=1)
        outcomes, stats = JudgeEngine(config).run([JudgeRequest("0", [{"role": "user", "content": "judge"}])],
                                                  lambda r: r)
    finally:
        server.shutdown()
    assert stats.failures == 1 and outcomes[0].parsed is None and outcomes[0].error
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 0


@pytest.mark.slow  # lm_eval processes: about 20 s
def test_a_plugin_error_is_one_message_and_status_2_without_a_traceback(tiny_qwen2_audio, tmp_path):
    (tmp_path / "Foundation").mkdir()
    (tmp_path / "Foundation" / "Foundation_meta.json").write_text("[{")
    args = ["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}", "--tasks",
            "airbench_foundation_speaker_gender_recognition"]
    proc = run_cli(args, env_extra={"AIRBENCH_DATA_DIR": str(tmp_path)}, in_process=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"lm_eval: error: {tmp_path}/Foundation/Foundation_meta.json is not valid JSON" in proc.stderr
    traced = run_cli(args, env_extra={"AIRBENCH_DATA_DIR": str(tmp_path), "LM_EVAL_AUDIO_TRACEBACK": "1"})
    assert traced.returncode == 1 and "Traceback" in traced.stderr and "AirBenchDataError" in traced.stderr


def test_a_wav_streamed_to_a_pipe_is_not_taken_for_a_truncated_one(tmp_path):
    """espeak-ng --stdout cannot seek back to fill in the sizes, so its header claims ~2 GiB."""
    import subprocess

    wav = subprocess.run(["espeak-ng", "--stdout", "a clip from a pipe"], capture_output=True, check=True).stdout
    (tmp_path / "piped.wav").write_bytes(wav)
    assert audio.declared_seconds(wav[:4096]) is None
    assert len(audio.load(str(tmp_path / "piped.wav"), SR)) > SR // 2
