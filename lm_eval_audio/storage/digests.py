"""The sha256 of a file: one reading loop for the whole package, and one per-process memory of what was digested.

:func:`file_sha256` reads a file in ``chunk``-sized blocks (1 MiB) and returns its hex digest, the same as
``sha256sum`` prints. :func:`sha256_of` remembers each digest while the file stays the same (its resolved path,
size, modification and change times and inode): the tasks of a group read one metadata file, a clip heard under
several prompts is one file, and a clip fetched from the Hub is digested by its download's check already
(:func:`remember`: the repository's listing gives an LFS file's sha256, and the cached copy was checked against
it), so the request cache's key reads nothing more. The memory is a cache, not run state.
"""

from __future__ import annotations

import hashlib
import os

CHUNK = 1 << 20
_KEPT = 1 << 17  # digests remembered at most (the oldest forgotten first)
_MEMORY: dict[tuple, str] = {}


def file_hash(path, digest, chunk: int = CHUNK):
    """``digest`` (a ``hashlib`` object, perhaps fed a prefix already, as git's blob id is) updated with the file's
    bytes, read in blocks of ``chunk``; returned for its ``hexdigest()``."""
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            digest.update(block)
    return digest


def file_sha256(path, chunk: int = CHUNK) -> str:
    """The hex sha256 of the file's bytes (``sha256sum``'s), read now."""
    return file_hash(path, hashlib.sha256(), chunk).hexdigest()


def _key(path) -> tuple:
    """What identifies the file's current content, short of reading it (``OSError`` where it cannot be stat'ed)."""
    stat = os.stat(path)
    return (os.path.realpath(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


def sha256_of(path) -> str:
    """The file's sha256, read once per process while the file stays the same (``FileNotFoundError`` and other
    ``OSError`` as ``open`` raises them)."""
    key = _key(path)
    digest = _MEMORY.get(key)
    if digest is None:
        digest = file_sha256(path)
        _keep(key, digest)
    return digest


def remember(path, sha256: str) -> None:
    """The sha256 of the file as it is now, known without reading it (checked against a listing that gives it)."""
    try:
        _keep(_key(path), sha256)
    except OSError:
        pass


def _keep(key: tuple, digest: str) -> None:
    if len(_MEMORY) >= _KEPT and key not in _MEMORY:
        _MEMORY.pop(next(iter(_MEMORY)))
    _MEMORY[key] = digest
