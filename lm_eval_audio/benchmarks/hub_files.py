"""One file of a Hub repository into the standard Hugging Face cache, and checked against the repository's metadata.

The file goes where ``hf_hub_download`` puts it (``<cache>/datasets--<owner>--<name>/blobs/<etag>``, linked from
``snapshots/<commit>/<path>``), so every other tool that reads the cache finds it. The bytes come through
``huggingface_hub``'s own ``http_get`` (its client, token, retries, progress bar), written to a partial file
whose name does not change between runs: a transfer cut or killed half-way resumes where it stopped (with a
``Range`` request) the next time, which ``hf_hub_download`` 2.x does not do (its partial files are unique to one
call and deleted). Files the Hub stores with Xet come the same way (the Hub serves them over plain HTTP too), so
every download resumes alike; hf_xet's faster transfer is not used. Only the Hub gets the token: a redirect to
a CDN or a bucket is followed without it. Every file is checked against the repository's listing (its size,
and its sha256 or git blob id) before it is used; the check is remembered per file (size, times, inode) so a
later run re-hashes only files that changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.storage.digests import file_hash, remember, sha256_of


class HubDataError(ValueError):
    """Data that cannot be fetched or used; the message names the repository and what to do."""


def size_text(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""


@dataclass(frozen=True)
class RemoteFile:
    """One file of a repository at one commit, as its listing describes it."""

    path: str
    size: int
    sha256: str | None  # LFS files: the content's sha256 (also their ETag)
    blob_id: str | None  # the git blob id (the ETag of a file kept in git)

    @property
    def etag(self) -> str:
        return self.sha256 or self.blob_id or ""


def content_matches(path: Path, remote: RemoteFile) -> bool:
    """Whether the file holds exactly the bytes the listing describes."""
    if path.stat().st_size != remote.size:
        return False
    if remote.sha256:
        digest = hashlib.sha256()
    elif remote.blob_id:
        digest = hashlib.sha1(f"blob {remote.size}\0".encode())  # git's blob id
    else:
        return True  # a listing with sizes only: the size is all there is to check
    return file_hash(path, digest).hexdigest() == (remote.sha256 or remote.blob_id)


def files_sha256(root: Path, names) -> dict[str, str]:
    """The sha256 of each file ``names`` names (paths relative to ``root``), by name in name order: what a results
    record says was read. No digest of nothing: an empty list, or a name that is no file (it cannot have been
    read), is refused (``ValueError``), so ``e3b0c442...``, the sha256 of empty input, is never recorded. A file
    is hashed once per process while its size and times stay the same (the tasks of a group read one file)."""
    names = sorted(set(names))
    if not names:
        raise ValueError("no file to digest: a digest of nothing (sha256 of empty input) would say that something "
                         "was read")
    out = {}
    for name in names:
        path = Path(root) / name
        if not path.is_file():
            raise ValueError(f"{path} is not a file: it was not read, and is not digested")
        out[name] = sha256_of(path)
    return out


def manifest_sha256(digests: dict[str, str]) -> str:
    """One sha256 for files digested by :func:`files_sha256`: that of the lines ``sha256sum`` prints for them in name
    order (``<sha256>  <name>``), so ``cd <folder> && sha256sum <names, sorted> | sha256sum`` gives it again."""
    if not digests:
        raise ValueError("no file digested: no digest of nothing")
    return hashlib.sha256("".join(f"{d}  {n}\n" for n, d in sorted(digests.items())).encode()).hexdigest()


class CheckedFiles:
    """The files already checked against the listing, by (size, modification time): a changed file is hashed again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.entries: dict[str, list] = json.loads(path.read_text())
        except (OSError, ValueError):
            self.entries = {}

    def _stamp(self, local: Path) -> list:
        stat = local.stat()
        return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]

    def is_good(self, local: Path, remote: RemoteFile) -> bool:
        """The cached file is there and is the listed one (hashed unless it was checked and has not changed)."""
        try:
            stamp = self._stamp(local)
        except OSError:
            return False
        if self.entries.get(remote.path) != stamp:
            if stamp[0] != remote.size or not content_matches(local, remote):
                return False
            self.entries[remote.path] = stamp
        self._known(local, remote)
        return True

    def mark(self, local: Path, remote: RemoteFile) -> None:
        """A file just checked (``download`` hashes what it fetched): remembered without hashing it again."""
        self.entries[remote.path] = self._stamp(local)
        self._known(local, remote)

    @staticmethod
    def _known(local: Path, remote: RemoteFile) -> None:
        """An LFS file holds the bytes its listing names by their sha256: the digest the request cache keys a clip
        by (``audio.refs.content_digest``) is known without reading the file again."""
        if remote.sha256:
            remember(local, remote.sha256)

    def forget(self, remote: RemoteFile) -> None:
        self.entries.pop(remote.path, None)

    def save(self) -> None:
        write_atomically(self.path, json.dumps(self.entries))


def write_atomically(path: Path, text: str) -> None:
    """Write beside, then rename: another process reads the old file or the new one, never half of one."""
    import uuid

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def remove_cached(local: Path) -> None:
    """A cached file that does not match its listing: the blob and the link to it go, so it is fetched again."""
    if local.is_symlink():
        target = local.resolve()
        local.unlink()
        target.unlink(missing_ok=True)
    else:
        local.unlink(missing_ok=True)


def _link(snapshot_path: Path, blob: Path) -> None:
    snapshot_path.parent.mkdir(parents=True, exist_ok=True)
    snapshot_path.unlink(missing_ok=True)
    try:
        snapshot_path.symlink_to(os.path.relpath(blob, snapshot_path.parent))
    except OSError:  # a file system without symlinks: a copy, as huggingface_hub does there
        import shutil

        shutil.copyfile(blob, snapshot_path)


def _silent_bar(tqdm):
    """A progress bar class that shows nothing: many small files get one bar for all of them instead."""

    class SilentBar(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "disable": True})

    return SilentBar


def _same_host(a: str, b: str) -> bool:
    from urllib.parse import urlparse

    return urlparse(a).netloc == urlparse(b).netloc


def download(repo_id: str, commit: str, remote: RemoteFile, repo_cache: Path, endpoint: str | None,
             progress: bool) -> None:
    """Fetch one file into the cache at ``snapshots/<commit>/<path>``, resuming a partial one, then check it.

    One process at a time per blob (a lock beside huggingface_hub's own, in ``<repo>/.locks``): ranks of one run
    and runs that share a cache wait for each other instead of writing one partial file together."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import WeakFileLock, build_hf_headers, tqdm

    snapshot_path = repo_cache / "snapshots" / commit / remote.path
    blob = repo_cache / "blobs" / remote.etag
    lock = repo_cache / ".locks" / f"{remote.etag}.lm_eval_audio.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with WeakFileLock(lock):
        if blob.is_file() and content_matches(blob, remote):  # fetched meanwhile, or the same bytes as another path
            _link(snapshot_path, blob)
            return
        url = hf_hub_url(repo_id, remote.path, repo_type="dataset", revision=commit, endpoint=endpoint)
        metadata = get_hf_file_metadata(url, endpoint=endpoint, retry_on_errors=True)
        headers = build_hf_headers()
        if not _same_host(url, metadata.location):
            # a redirect to a CDN or a bucket: the Hub's signed URL is the credential; the token stays with the Hub
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        partial = blob.with_name(remote.etag + ".lm_eval_audio.partial")
        blob.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "ab") as out:
            if out.tell() > remote.size:  # longer than the file: not a prefix of it
                out.truncate(0)
            http_get(metadata.location, out, resume_size=out.tell(), headers=headers, expected_size=remote.size,
                     displayed_filename=remote.path, tqdm_class=None if progress else _silent_bar(tqdm))
        if not content_matches(partial, remote):
            partial.unlink()
            raise HubDataError(
                f"{repo_id}@{commit[:12]}: {remote.path} arrived with other bytes than the repository lists "
                f"({remote.size} bytes, {'sha256 ' + remote.sha256 if remote.sha256 else 'blob ' + str(remote.blob_id)}); "
                "it was deleted: run again to fetch it anew")
        os.replace(partial, blob)
        _link(snapshot_path, blob)
