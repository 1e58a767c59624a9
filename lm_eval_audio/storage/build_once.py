"""A folder made once and shared by every process that needs it: an archive unpacked beside the Hugging Face cache,
a benchmark's clips written out of parquet rows, a GGUF model converted to a transformers folder.

One protocol for all of them (:class:`Once`, or :func:`build_once` where nothing else is done under the lock):

* a lock file beside the folder (``<name>.lock``): one process builds while the others wait for it, then find the
  folder made;
* the build fills a temporary sibling (``<name>.partial``, emptied first: what a killed build left is discarded),
  which is renamed onto the folder (an incomplete folder of an earlier build removed first): a reader never sees
  half of one;
* a marker says the folder is complete, written last: inside the folder (``.complete`` by default, written into
  the sibling before the rename) or beside it (a file whose name carries what the folder was made of, so that a
  new version is built again); no marker, no folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

COMPLETE = ".complete"


class Once:
    """``with Once(target, ...) as once:`` holds the lock; ``once.ready`` says whether the folder is complete, and
    ``once.build(fill)`` makes it. ``marker``: the file that says it is complete (``target/.complete`` unless
    given); ``lock``: the lock file (``<target>.lock`` unless given); ``ready``: what else must hold for a marked
    folder to count as made (a folder it must contain, say)."""

    def __init__(self, target: Path, *, marker: Path | None = None, lock: Path | None = None,
                 ready: Callable[[], bool] | None = None) -> None:
        self.target = Path(target)
        self.marker = Path(marker) if marker is not None else self.target / COMPLETE
        self.lock = Path(lock) if lock is not None else self.target.with_name(self.target.name + ".lock")
        self._also = ready
        self._held = None

    @property
    def ready(self) -> bool:
        return self.marker.is_file() and (self._also is None or bool(self._also()))

    def __enter__(self) -> Once:
        from huggingface_hub.utils import WeakFileLock

        self.lock.parent.mkdir(parents=True, exist_ok=True)
        self._held = WeakFileLock(self.lock)
        self._held.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        held, self._held = self._held, None
        held.__exit__(*exc)

    def build(self, fill: Callable[[Path], None], marker_text: str = "") -> Path:
        """Make the folder: ``fill(partial)`` fills the empty sibling, which is renamed onto the target; the marker
        (holding ``marker_text``) is written last. Called with the lock held."""
        if self._held is None:
            raise RuntimeError("Once.build is called inside `with Once(...)`: the lock is held while building")
        partial = self.target.with_name(self.target.name + ".partial")
        inside = self.marker.parent == self.target
        self.marker.unlink(missing_ok=True)
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        try:
            fill(partial)
            if inside:
                (partial / self.marker.name).write_text(marker_text)
            if self.target.is_dir() and not self.target.is_symlink():
                shutil.rmtree(self.target)
            elif self.target.exists() or self.target.is_symlink():
                self.target.unlink()
            partial.rename(self.target)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        if not inside:
            self.marker.write_text(marker_text)
        return self.target


def build_once(target: Path, fill: Callable[[Path], None], *, marker: Path | None = None, lock: Path | None = None,
               ready: Callable[[], bool] | None = None, marker_text: str = "") -> Path:
    """``target``, made by ``fill(partial)`` unless it is complete already (:class:`Once`'s protocol); a complete
    folder is returned without taking the lock."""
    once = Once(target, marker=marker, lock=lock, ready=ready)
    if once.ready:
        return once.target
    with once:
        if not once.ready:
            once.build(fill, marker_text)
    return once.target
