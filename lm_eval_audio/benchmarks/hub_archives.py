"""Unpacking a benchmark's audio archive into the folder its official layout names (once: ``hub_data.Snapshot.built``)."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from collections import Counter
from pathlib import Path, PurePosixPath

from lm_eval_audio.benchmarks.hub_files import HubDataError, size_text


def _safe(name: str) -> bool:
    return not name.startswith(("/", "\\")) and ".." not in PurePosixPath(name).parts


def _check_room(archive: Path, folder: Path, bad: list[str], size: int) -> None:
    if bad:
        raise HubDataError(f"{archive.name}: refusing entries that leave the folder: {bad[:3]}")
    free = shutil.disk_usage(folder.parent).free
    if size > free:
        raise HubDataError(f"unpacking {archive.name} needs {size_text(size)} in {folder.parent} ({size_text(free)} "
                           "free): free space there, or set HF_HUB_CACHE (or HF_HOME) to a larger disk")


def unpack(archive: Path, tmp: Path, expect: str) -> None:
    """Unpack ``archive`` (.tar.gz, .tar or .zip) into the empty folder ``tmp`` so that ``tmp/expect`` holds its
    files, whether the archive has that folder at its top, one level down, or no folder at all."""
    name = archive.name
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tar:
            members = tar.getmembers()
            _check_room(archive, tmp, [m.name for m in members if not _safe(m.name)], sum(m.size for m in members))
            tar.extractall(tmp, filter="data")
    elif name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            _check_room(archive, tmp, [i.filename for i in infos if not _safe(i.filename)],
                        sum(i.file_size for i in infos))
            zf.extractall(tmp)
    else:
        raise HubDataError(f"{name}: not an archive this plugin unpacks (.tar.gz, .tar, .zip)")
    target = tmp / expect
    if not target.is_dir():
        inner = [p for p in tmp.glob(f"*/{expect}") if p.is_dir()]
        if len(inner) == 1:
            inner[0].rename(target)
        elif not any(p.is_dir() for p in tmp.iterdir()):  # loose files: they are the folder's
            target.mkdir()
            for p in list(tmp.iterdir()):
                if p != target:
                    p.rename(target / p.name)
        else:
            raise HubDataError(f"{name} holds no {expect}/ folder (it holds {sorted(p.name for p in tmp.iterdir())[:5]}): "
                               "set the benchmark's local data folder to a copy laid out as its README says")


def unpack_clips(archive: Path, folder: Path, expect: str, suffix: str = ".wav") -> None:
    """Every ``suffix`` member of the tar ``archive`` written into ``folder/expect`` under its base name, wherever
    the archive's folders put it (a corpus's loading script matches its clips to its transcript rows by base name,
    so the base names are its keys); two members with one base name stop it."""
    target = folder / expect
    target.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(suffix)]
        names = [PurePosixPath(m.name).name for m in members]
        twice = sorted(n for n, k in Counter(names).items() if k > 1)
        if twice:
            raise HubDataError(f"{archive.name}: {len(twice)} clip name(s) appear twice ({twice[:3]}): which one a "
                               "transcript row means cannot be told; download the archive again")
        _check_room(archive, folder, [], sum(m.size for m in members))
        for member, name in zip(members, names):
            source = tar.extractfile(member)
            with open(target / name, "wb") as out:
                shutil.copyfileobj(source, out)
