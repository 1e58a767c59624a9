"""A benchmark's data from its official Hugging Face Hub repository, fetched as a run needs it.

A task with no local folder set reads its benchmark's repository at one commit (``revision=`` in the task's
metadata or ``--metadata`` pins it; else the default branch, resolved to its commit once per run). The
repository's listing (paths, sizes, sha256 or git blob ids) is read once through ``HfApi.dataset_info`` and
kept beside the cache, so what is missing, truncated or corrupted is known before anything is read, and an
offline run (``HF_HUB_OFFLINE=1``) works from the cache. Files go into the standard Hugging Face cache
(``HF_HUB_CACHE``, or ``HF_HOME``/hub), where ``hf_hub_download`` would put them (``hub_files``); archives are
unpacked once beside it, under ``<cache>/lm_eval_audio/``. Before a download one line says what comes and how
big it is, and a download that would not fit the free space stops before it starts. ``HF_ENDPOINT`` (a mirror)
and ``HF_TOKEN`` are read as every ``huggingface_hub`` user's are; the token is never logged or recorded.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import json
import logging
import os
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from lm_eval_audio.benchmarks.hub_files import (
    CheckedFiles,
    HubDataError,
    RemoteFile,
    download,
    files_sha256,
    manifest_sha256,
    remove_cached,
    size_text,
    write_atomically,
)
from lm_eval_audio.benchmarks.hub_access import (
    cache_root,
    endpoint,
    hub_error,
    offline,
    without_the_hub,
)
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.storage import run_state
from lm_eval_audio.storage.build_once import Once
from lm_eval_audio.storage.data_paths import audio_file_problem

log = logging.getLogger("lm_eval.audio")

WORK_FOLDER = "lm_eval_audio"  # beside the repositories in the cache: listings, checks, unpacked archives
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
LISTING_CAP = 100_000  # files the Hub's repository API lists at most (huggingface_hub issue 3059)


class PlannedOnly(HubDataError):
    """In a dry run: what comes next needs files the plan lists and does not fetch."""


def revision_for(repo_id: str, metadata: dict) -> str | None:
    """The revision a run pins for ``repo_id``: ``data_revisions: {repo: rev}``, else ``data_revision``. Not
    ``revision``: lm-eval merges ``--model_args`` into every task's metadata, and a model's ``revision=`` would
    pin the dataset to the model's commit."""
    revisions = metadata.get("data_revisions")
    if isinstance(revisions, dict) and revisions.get(repo_id):
        return str(revisions[repo_id])
    return str(metadata["data_revision"]) if metadata.get("data_revision") else None


def say(message: str) -> None:
    """A line the user must see before a download (lm-eval's logging may not be set up yet)."""
    print(f"lm-eval-audio: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Fetch:
    """What one repository needs fetched for a run, for ``download --dry_run`` and the line before a download."""

    snapshot: Snapshot
    files: tuple[RemoteFile, ...]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


@contextlib.contextmanager
def planning(dry_run: bool):
    """Within it, with ``dry_run``, ``Snapshot.fetch`` lists what it would fetch (the list yielded) and fetches
    only the small metadata files a plan needs read (``needed_to_plan``). The plan is the command's
    (``storage.run_state``: ``download --dry_run``'s; a run never sets it)."""
    run = run_state.current()
    run.plan = [] if dry_run else None
    try:
        yield run.plan
    finally:
        run.plan = None


class Snapshot:
    """One repository at one commit: its listing, and its files in the cache."""

    def __init__(self, repo_id: str, revision: str | None, commit: str, files: dict[str, RemoteFile],
                 cache: Path, benchmark: str, local_folder: str | None) -> None:
        from huggingface_hub.file_download import repo_folder_name

        self.repo_id, self.revision, self.commit, self.files = repo_id, revision, commit, files
        self.benchmark, self.local_folder = benchmark, local_folder
        self.repo_cache = cache / repo_folder_name(repo_id=repo_id, repo_type="dataset")
        self.root = self.repo_cache / "snapshots" / commit
        self.work = cache / WORK_FOLDER / self.repo_cache.name / commit

    @property
    def label(self) -> str:
        return f"{self.repo_id}@{self.commit[:12]}"

    def record(self) -> dict:
        """Where the data came from, for the results' ``lm_eval_audio_data.sources``."""
        rec = {"repo_id": self.repo_id, "repo_type": "dataset", "revision": self.revision or "default branch",
               "commit": self.commit}
        if endpoint():
            rec["endpoint"] = endpoint()
        return rec

    def digests(self, paths) -> dict:
        """What the results say of the repository's files ``paths``: each one's sha256 (``file_sha256``), the
        listing's for an LFS file (its copy was checked against it when fetched), else its cached copy's (a file kept
        in git is small); a git file no longer cached (an archive unpacked before), its git blob id. An empty list
        is refused."""
        paths = sorted(set(paths))
        sha256 = {p: self.files[p].sha256 for p in paths if p in self.files and self.files[p].sha256}
        blob_ids = {p: self.files[p].blob_id for p in paths
                    if p not in sha256 and p in self.files and not (self.root / p).is_file()}
        rest = [p for p in paths if p not in sha256 and p not in blob_ids]
        if rest or not paths:  # files_sha256 refuses an empty list
            sha256.update(files_sha256(self.root, rest))
        return {"file_sha256": dict(sorted(sha256.items())), **({"file_git_blob_id": blob_ids} if blob_ids else {})}

    def matching(self, *patterns: str) -> list[RemoteFile]:
        return [f for p, f in sorted(self.files.items()) if any(fnmatch.fnmatchcase(p, pat) for pat in patterns)]

    def has_folder(self, folder: str) -> bool:
        prefix = folder.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in self.files)

    def problem(self, path: str | Path, notes: DataNotes) -> str:
        """Why a file of this snapshot cannot be played ("" when it can, fetched or not): from the listing. A listed
        clip is noted as coming from this snapshot (``notes.clip_sources``, read by ``clips_of``), by the path its
        document names: what a path came from is kept, never parsed back out of the path."""
        rel = Path(path).relative_to(self.root).as_posix()
        remote = self.files.get(rel)
        if remote is None:
            return f"missing audio file: {rel} is not in {self.label}"
        notes.clip_sources[Path(path)] = (self, remote)
        return f"empty audio file (0 bytes): {rel} in {self.label}" if remote.size == 0 else ""

    def plan(self, files: list[RemoteFile]) -> Fetch:
        """The files not yet in the cache as the listing describes them (a bad cached copy is removed)."""
        checked, todo = CheckedFiles(self.work / "checked.json"), []
        for remote in files:
            local = self.root / remote.path
            if checked.is_good(local, remote):
                continue
            if local.exists():
                log.warning("%s: cached %s does not match the repository's listing (%d bytes expected, %d found, "
                            "or another hash): fetching it again", self.label, remote.path, remote.size,
                            local.stat().st_size)
                remove_cached(local)
                checked.forget(remote)
            todo.append(remote)
        checked.save()
        return Fetch(self, tuple(todo))

    def fetch(self, files: list[RemoteFile], what: str, needed_to_plan: bool = False) -> Fetch:
        """Fetch what of ``files`` is not cached yet, saying first what comes; returns what was fetched."""
        todo = self.plan(files)
        if not todo.files:
            return todo
        plan = run_state.current().plan
        if plan is not None and not needed_to_plan:
            plan.append(todo)
            raise PlannedOnly(f"{what}: what comes next reads the files planned")
        if offline():
            raise HubDataError(
                f"{what}: {len(todo.files)} file(s) of {self.label} are not in the Hugging Face cache at "
                f"{self.repo_cache.parent}, and HF_HUB_OFFLINE=1 forbids the Hub: {without_the_hub(self.local_folder)}")
        folder = self.repo_cache.parent
        folder.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(folder).free
        if todo.size > free:
            raise HubDataError(
                f"{what}: {len(todo.files)} file(s) of {self.label} ({size_text(todo.size)}) would not fit in {folder} "
                f"({size_text(free)} free): free space there, or set HF_HUB_CACHE (or HF_HOME) to a larger disk")
        say(f"{what}: fetching {len(todo.files)} file(s), {size_text(todo.size)}, of {self.label} into {folder}")
        self._download(todo.files)
        checked = CheckedFiles(self.work / "checked.json")
        for remote in todo.files:  # each hashed by the download that placed it
            checked.mark(self.root / remote.path, remote)
        checked.save()
        return todo

    def _download(self, files: tuple[RemoteFile, ...]) -> None:
        from huggingface_hub.utils import tqdm

        def one(remote: RemoteFile, progress: bool) -> tuple[str, Exception] | None:
            try:
                download(self.repo_id, self.commit, remote, self.repo_cache, endpoint(), progress)
            except Exception as e:  # said by the calling thread, which holds the command's run (storage.run_state)
                return remote.path, e
            return None

        def said(failure: tuple[str, Exception] | None) -> None:
            if failure is not None:
                raise hub_error(failure[1], self, failure[0]) from None

        if len(files) == 1:
            said(one(files[0], True))
            return
        # Files with the same bytes share one blob: one download each, the others linked to it after.
        first = {f.etag or f.path: f for f in reversed(files)}
        with tqdm(total=sum(f.size for f in first.values()), unit="B", unit_scale=True,
                  desc=f"{self.repo_id}: {len(files)} files") as bar, ThreadPoolExecutor(max_workers=8) as pool:
            for remote, failure in zip(first.values(), pool.map(lambda f: one(f, False), first.values())):
                said(failure)
                bar.update(remote.size)
        for remote in files:
            if first[remote.etag or remote.path] is not remote:
                said(one(remote, False))

    def unpacked(self, archive: str, beside: list[str], expect: str, what: str) -> Path:
        """A folder in the official layout: ``archive`` unpacked once (its ``expect`` folder at the top), with the
        ``beside`` files linked into it."""
        from lm_eval_audio.benchmarks.hub_archives import unpack

        return self.built([archive], lambda paths, folder: unpack(paths[0], folder, expect), expect, what,
                          beside=beside, doing=f"unpacking {archive}")

    def built(self, inputs: list[str], build, expect: str, what: str, *, beside: list[str] = (),
              doing: str, version: str = "", into: str = "unpacked") -> Path:
        """A folder in the official layout made once from the repository files ``inputs`` (fetched first) by
        ``build(paths, folder)``, which fills the empty ``folder`` so that its ``expect`` folder exists; the
        ``beside`` files are linked into it. One process builds while the others of a run wait (a lock); a killed
        build is redone, never half-read. ``version`` names what else the result depends on (a converter's
        version, a bundled file's digest): another version builds again. ``into`` names the folder (in the
        snapshot's work folder): builds with different names live side by side (one per language, say)."""
        absent = [p for p in inputs if p not in self.files]
        if absent:
            raise HubDataError(f"{what}: {self.label} lists no {absent[0]}: pin a revision that has it "
                               "(data_revision=)")
        remotes = [self.files[p] for p in inputs]
        # One archive keeps the marker name it has always had (its etag), so a cache unpacked before (47 GB for
        # MMAU-Pro) is not unpacked again; several inputs or a version get a digest of all of them.
        tag = remotes[0].etag if len(remotes) == 1 and not version else hashlib.sha256(
            "\0".join([version, *(r.etag or r.path for r in remotes)]).encode()).hexdigest()[:40]
        folder = self.work / into
        wanted = [self.files[b] for b in beside if b in self.files]
        size = sum(r.size for r in remotes)
        # storage.build_once's protocol; the lock is held while the inputs are fetched and the files linked too
        with Once(folder, marker=self.work / f"{into}-{tag}.complete", ready=lambda: (folder / expect).is_dir(),
                  lock=self.work / ("unpack.lock" if into == "unpacked" else f"{into}.lock")) as once:
            ready = once.ready
            if not ready and not all((self.root / p).is_file() for p in inputs):
                # the inputs and what they are made into, both on this disk for a while
                free = shutil.disk_usage(self.work).free
                if 2 * size > free:
                    raise HubDataError(
                        f"{what}: {', '.join(inputs)} ({size_text(size)}) and the files made of them need about "
                        f"{size_text(2 * size)} in {self.work.parent.parent} ({size_text(free)} free): free space "
                        "there, or set HF_HUB_CACHE (or HF_HOME) to a larger disk")
            self.fetch(wanted + ([] if ready else remotes), what)
            if not ready:
                say(f"{what}: {doing} ({size_text(size)}) into {folder}")
                for old in self.work.glob(f"{into}-*.complete"):
                    old.unlink()
                once.build(lambda partial: build([self.root / p for p in inputs], partial), "\n".join(inputs))
            for name in beside:
                link = folder / name
                if name in self.files and not link.exists():
                    link.unlink(missing_ok=True)  # a link left dangling by a cache that moved
                    link.parent.mkdir(parents=True, exist_ok=True)
                    link.symlink_to(os.path.relpath(self.root / name, link.parent))
        return folder


_OPENED: dict[tuple, Snapshot] = {}  # a cache of listings read in this process, not run state


def open_snapshot(repo_id: str, revision: str | None, benchmark: str, local_folder: str | None) -> Snapshot:
    """The repository at ``revision`` (or its default branch), its listing read once per process and kept beside
    the cache for offline runs. ``local_folder``: the variable naming a local copy instead (for the messages)."""
    from huggingface_hub.file_download import repo_folder_name

    cache = cache_root()
    key = (endpoint(), str(cache), repo_id, revision, offline())
    if key in _OPENED:
        return _OPENED[key]
    repo_folder = repo_folder_name(repo_id=repo_id, repo_type="dataset")
    ref = cache / repo_folder / "refs" / (revision or "main")
    if offline():
        commit = revision if revision and _COMMIT.match(revision) else (ref.read_text().strip() if ref.is_file() else "")
        listing = cache / WORK_FOLDER / repo_folder / commit / "listing.json"
        snapshot_folder = cache / repo_folder / "snapshots" / commit
        if commit and listing.is_file():
            files = _read_listing(listing)
        elif commit and snapshot_folder.is_dir():  # fetched by another tool (hf download): its files are the listing
            files = _listing_of_cached(snapshot_folder)
        else:
            raise HubDataError(
                f"{benchmark}: HF_HUB_OFFLINE=1 forbids the Hub and {repo_id}" + (f"@{revision}" if revision else "")
                + f" is not in the Hugging Face cache at {cache}: {without_the_hub(local_folder)}")
    else:
        from huggingface_hub import HfApi

        try:
            info = HfApi(endpoint=endpoint()).dataset_info(repo_id, revision=revision, files_metadata=True)
        except Exception as e:
            raise hub_error(e, repo_id, local_folder=local_folder) from None
        commit = info.sha
        if len(info.siblings or ()) >= LISTING_CAP:  # the API lists at most that many: more may be missing
            raise HubDataError(f"{benchmark}: {repo_id} lists {len(info.siblings)} files, the most the Hub's API "
                               "returns, so some may be missing from the listing: download it with `hf download` "
                               "and set the benchmark's local data folder")
        unsized = [s.rfilename for s in info.siblings or () if s.size is None]
        if unsized:  # without sizes nothing can be checked, and a clip would look empty
            raise HubDataError(f"{benchmark}: {endpoint() or 'the Hub'} lists {repo_id} without file sizes "
                               f"({unsized[0]}, ...): use the Hub itself or a mirror that gives them")
        files = {s.rfilename: RemoteFile(s.rfilename, int(s.size), s.lfs.sha256 if s.lfs else None, s.blob_id)
                 for s in info.siblings or ()}
        listing = cache / WORK_FOLDER / repo_folder / commit / "listing.json"
        write_atomically(listing, json.dumps([f.__dict__ for f in files.values()]))
        if revision != commit:  # as hf_hub_download records a branch's commit, for offline runs
            ref.parent.mkdir(parents=True, exist_ok=True)
            ref.write_text(commit)
    snapshot = _OPENED[key] = Snapshot(repo_id, revision, commit, files, cache, benchmark, local_folder)
    return snapshot


def _read_listing(listing: Path) -> dict[str, RemoteFile]:
    return {d["path"]: RemoteFile(**d) for d in json.loads(listing.read_text())}


def _listing_of_cached(snapshot_folder: Path) -> dict[str, RemoteFile]:
    """A listing read off a snapshot another tool fetched: each file's blob is named by its sha256 (64 hex digits,
    LFS) or its git blob id (40), as ``hf_hub_download`` names them, so the files can still be checked."""
    files = {}
    for path in sorted(snapshot_folder.rglob("*")):
        if path.is_file():
            rel, etag = path.relative_to(snapshot_folder).as_posix(), path.resolve().name
            files[rel] = RemoteFile(rel, path.stat().st_size, etag if len(etag) == 64 else None,
                                    etag if len(etag) == 40 else None)
    return files


def clips_of(refs, notes: DataNotes | None) -> dict[Snapshot, list[RemoteFile]]:
    """The listed snapshot files among audio references (paths, or dicts with a path), by snapshot: those the
    documents were built with (``Snapshot.problem``, on the ``notes`` their load returned); a local folder's clips
    are none of them."""
    sources = notes.clip_sources if notes is not None else {}
    wanted: dict[Snapshot, dict[str, RemoteFile]] = {}
    for ref in refs:
        path = ref.get("path") if isinstance(ref, dict) and not ref.get("unavailable") else ref
        if isinstance(path, (str, os.PathLike)):
            found = sources.get(Path(path))
            if found:
                wanted.setdefault(found[0], {})[found[1].path] = found[1]
    return {s: list(files.values()) for s, files in wanted.items()}


def fetch_clips(refs, notes: DataNotes | None, what: str) -> None:
    """Fetch the clips a run's documents name that are not cached yet (only those the run evaluates); ``notes``: what
    the task's load returned with its documents (``data_notes.of(task.dataset)``)."""
    for snapshot, files in clips_of(refs, notes).items():
        snapshot.fetch(files, what)


@dataclass(frozen=True)
class DataSource:
    """Where a benchmark's files are read from: a local folder, or a snapshot in the cache; and which files a task
    read from it, for its record in the results (``lm_eval_audio_data.sources``): one record per set of files."""

    root: Path
    snapshot: Snapshot | None = None
    # the files read: relative to ``root`` for a local folder, the repository's paths for a snapshot
    metadata_files: tuple[str, ...] = ()
    details: dict = field(default_factory=dict)  # what else the record says of a snapshot's data (how it was made)

    def problem(self, path: str | Path, notes: DataNotes) -> str:
        """Why the clip at ``path`` cannot be played ("" when it can); a snapshot's clip noted on ``notes``, the
        loader's, as coming from it (fetched before the run evaluates it)."""
        if self.snapshot is not None and Path(path).is_relative_to(self.snapshot.root):
            return self.snapshot.problem(path, notes)
        return audio_file_problem(str(path))

    def has_folder(self, rel: str) -> bool:
        return (self.root / rel).is_dir() or (self.snapshot is not None and self.snapshot.has_folder(rel))

    def reading(self, paths) -> DataSource:
        """The same source, recording ``paths`` (files under the snapshot's folder, or the local folder) as read."""
        base = self.snapshot.root if self.snapshot is not None else self.root
        return replace(self, metadata_files=tuple(Path(p).relative_to(base).as_posix() for p in paths))

    def record(self) -> dict:
        """The repository and commit, or the local folder; the files read and each one's sha256 (``file_sha256``),
        and for a local folder one digest of them all (``metadata_sha256``, see ``hub_files.manifest_sha256``).
        Where no file was read there is no digest: none is ever made of nothing."""
        files = sorted(set(self.metadata_files))
        if self.snapshot is not None:
            return {**self.snapshot.record(), **({"metadata_files": files, **self.snapshot.digests(files)}
                                                 if files else {}), **self.details}
        rec = {"local_folder": str(self.root), "metadata_files": files}
        if files:
            digests = files_sha256(self.root, files)
            rec.update(metadata_sha256=manifest_sha256(digests), file_sha256=digests)
        return rec
