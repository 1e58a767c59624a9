"""The one file-digest helper (``storage.digests``) and the one build-once helper (``storage.build_once``)."""

from __future__ import annotations

import hashlib
import multiprocessing
import time
from pathlib import Path

import pytest

from lm_eval_audio.storage import digests
from lm_eval_audio.storage.build_once import Once, build_once


@pytest.mark.parametrize("size, chunk", [(0, 1 << 20), (1, 1), (4096, 7), (4096, 1 << 20), ((1 << 20) + 3, 1000),
                                         ((1 << 20) + 3, 1 << 20), ((2 << 20) + 1, 1 << 20)])
def test_file_sha256_is_sha256sum_whatever_the_chunk(tmp_path, size, chunk):
    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(256)) * (size // 256) + bytes(size % 256))
    assert digests.file_sha256(path, chunk) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_file_hash_takes_a_primed_digest_as_gits_blob_id_is_made(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"hello\n")
    primed = hashlib.sha1(b"blob 6\0")
    assert digests.file_hash(path, primed).hexdigest() == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object


def test_a_digest_is_read_once_while_the_file_stays_the_same(tmp_path, monkeypatch):
    path = tmp_path / "clip.wav"
    path.write_bytes(b"one")
    reads = []
    real = digests.file_sha256
    monkeypatch.setattr(digests, "file_sha256", lambda p, chunk=digests.CHUNK: reads.append(p) or real(p, chunk))
    first = digests.sha256_of(path)
    assert digests.sha256_of(path) == first == hashlib.sha256(b"one").hexdigest() and len(reads) == 1
    path.write_bytes(b"two, longer")  # another size and time: read again
    assert digests.sha256_of(path) == hashlib.sha256(b"two, longer").hexdigest() and len(reads) == 2
    with pytest.raises(FileNotFoundError):
        digests.sha256_of(tmp_path / "absent.wav")


def test_a_remembered_digest_is_not_read_again(tmp_path, monkeypatch):
    """What a download's check gives (the listing's sha256 of the bytes it checked) is what ``sha256_of`` answers."""
    path = tmp_path / "clip.wav"
    path.write_bytes(b"checked bytes")
    digests.remember(path, hashlib.sha256(b"checked bytes").hexdigest())
    monkeypatch.setattr(digests, "file_sha256", lambda *a, **k: pytest.fail("the file was read again"))
    assert digests.sha256_of(path) == hashlib.sha256(b"checked bytes").hexdigest()
    digests.remember(tmp_path / "absent", "0" * 64)  # nothing to remember: no error


def _fill(log: Path, text: str = "made"):
    def fill(partial: Path) -> None:
        with open(log, "a") as f:
            f.write("built\n")
        (partial / "inside").mkdir()
        (partial / "inside" / "file.txt").write_text(text)

    return fill


def test_built_once_then_found_without_building(tmp_path):
    target, log = tmp_path / "cache" / "folder", tmp_path / "log"
    assert build_once(target, _fill(log)) == target
    assert (target / "inside" / "file.txt").read_text() == "made" and (target / ".complete").is_file()
    assert build_once(target, _fill(log, "again")) == target
    assert log.read_text() == "built\n" and (target / "inside" / "file.txt").read_text() == "made"
    assert not target.with_name("folder.partial").exists()


def test_a_killed_build_is_redone_and_never_read_half_made(tmp_path):
    target, log = tmp_path / "folder", tmp_path / "log"

    def dies(partial: Path) -> None:
        (partial / "half").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_once(target, dies)
    assert not target.exists() and not target.with_name("folder.partial").exists()
    target.mkdir()  # a folder an older protocol left without its marker: not taken as made
    (target / "stale").write_text("stale")
    build_once(target, _fill(log))
    assert sorted(p.name for p in target.iterdir()) == [".complete", "inside"] and log.read_text() == "built\n"


def test_a_marker_beside_the_folder_names_what_it_was_made_of(tmp_path):
    """``hub_data.Snapshot.built``'s way: the marker beside, its name the inputs' tag; another tag builds again."""
    target, log = tmp_path / "unpacked", tmp_path / "log"
    for tag in ("a", "a", "b"):
        with Once(target, marker=tmp_path / f"unpacked-{tag}.complete", lock=tmp_path / "unpack.lock",
                  ready=lambda: (target / "inside").is_dir()) as once:
            if not once.ready:
                for old in tmp_path.glob("unpacked-*.complete"):
                    old.unlink()
                once.build(_fill(log, tag), marker_text=f"inputs {tag}")
    assert log.read_text() == "built\nbuilt\n" and (target / "inside" / "file.txt").read_text() == "b"
    assert [p.name for p in tmp_path.glob("*.complete")] == ["unpacked-b.complete"]
    assert (tmp_path / "unpacked-b.complete").read_text() == "inputs b" and not (target / ".complete").exists()
    with pytest.raises(RuntimeError, match="inside `with Once"):
        Once(target).build(_fill(log))


def _builder(target: str, log: str, barrier) -> None:
    def slow(partial: Path) -> None:
        with open(log, "a") as f:
            f.write("built\n")
        time.sleep(0.5)  # long enough for the other builder to be waiting on the lock
        (partial / "result").write_text("whole")

    barrier.wait()
    build_once(Path(target), slow)
    assert (Path(target) / "result").read_text() == "whole"


def test_two_concurrent_builders_build_once_and_both_find_it_whole(tmp_path):
    target, log = tmp_path / "shared", tmp_path / "log"
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    workers = [context.Process(target=_builder, args=(str(target), str(log), barrier)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    assert log.read_text() == "built\n" and (target / "result").read_text() == "whole"
