"""Unpacking a benchmark's audio archive once, into the folder its official layout names."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from lm_eval_audio.benchmarks.hub_files import HubDataError, size_text


def _safe(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and not name.startswith(("/", "\\")) and ".." not in parts


def unpack(archive: Path, folder: Path, expect: str, free_needed: int) -> None:
    """Unpack ``archive`` (.tar.gz, .tar or .zip) so that ``folder/expect`` holds its files, whether the archive
    has that folder at its top, one level down, or no folder at all. Written beside, then moved in place: a
    killed unpack is redone, never half-read."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder.parent).free
    if free_needed > free:
        raise HubDataError(f"unpacking {archive.name} needs about {size_text(free_needed)} in {folder.parent} "
                           f"({size_text(free)} free): free space there, or set HF_HUB_CACHE to a larger disk")
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    name = archive.name
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tar:
            bad = [m.name for m in tar.getmembers() if not _safe(m.name)]
            if bad:
                raise HubDataError(f"{name}: refusing entries that leave the folder: {bad[:3]}")
            tar.extractall(tmp, filter="data")
    elif name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            bad = [n for n in zf.namelist() if not _safe(n)]
            if bad:
                raise HubDataError(f"{name}: refusing entries that leave the folder: {bad[:3]}")
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
    if folder.exists():
        shutil.rmtree(folder)
    tmp.rename(folder)
