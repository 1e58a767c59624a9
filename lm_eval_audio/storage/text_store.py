"""A text value per key in one SQLite file: the judge's replies and the cascade's
transcripts, kept across runs and processes.

WAL mode lets concurrent processes share the file safely, and each value is committed as
soon as it is put, so a run killed midway keeps everything it had already paid for.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time


log = logging.getLogger("lm_eval.audio")


def sqlite_problem(path: str) -> Exception | None:
    """Why SQLite cannot read the file at ``path`` (garbage, cut short), or None (fine, or absent)."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    from pathlib import Path

    try:
        db = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
        try:
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                return sqlite3.DatabaseError("quick_check found damaged pages")
        finally:
            db.close()
    except sqlite3.OperationalError:
        return None  # busy or locked by another process: not damaged; opening it for real will say
    except sqlite3.DatabaseError as e:  # not a database, or corrupt
        return e
    return None


def set_aside_unreadable(path: str, what: str, error: Exception) -> str:
    """Move a cache file SQLite cannot read (garbage, cut short) out of the way, with its WAL and
    shared-memory files, so that a new one is built in its place; returns where it went."""
    aside = f"{path}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    log.warning("%s %s is unreadable (%s): moved to %s and rebuilt empty; what it held is asked for again",
                what, path, error, aside)
    return aside


class TextStore:
    def __init__(self, path: str, what: str, setting: str):
        """``what`` and ``setting`` (where the path is configured) word the error message."""
        self.path, self.what = path, what
        # What the file could not take once it failed mid-run (a full disk, a lock held past the timeout, a
        # network file system's locking): kept here for the rest of the process, never an error after the answers.
        self._in_memory: dict[str, str] | None = None
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            problem = sqlite_problem(path)
            if problem is not None:  # not a database, or damaged: a cache can be rebuilt
                set_aside_unreadable(path, what, problem)
            self._db = self._open(path)
        except (OSError, sqlite3.Error) as e:
            raise OSError(f"{what} {path!r} cannot be opened ({e}); point {setting} at a writable file") from e
        self._lock = threading.Lock()

    @staticmethod
    def _open(path: str) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # A killed process loses nothing committed in WAL mode with NORMAL sync; only a power
            # cut can drop the last values. FULL would fsync once per value.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, reply TEXT, created REAL)")
        except sqlite3.Error:
            db.close()
            raise
        return db

    def get(self, key: str) -> str | None:
        with self._lock:
            if self._in_memory is None:
                try:
                    row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
                    return None if row is None else row[0]
                except sqlite3.Error as e:
                    self._fail(e)
            return self._in_memory.get(key)

    def put(self, key: str, model: str, value: str) -> None:
        with self._lock:
            if self._in_memory is None:
                try:
                    self._db.execute(
                        "INSERT OR REPLACE INTO replies (key, model, reply, created) VALUES (?, ?, ?, ?)",
                        (key, model, value, time.time()),
                    )
                    return
                except sqlite3.Error as e:
                    self._fail(e)
            self._in_memory[key] = value

    def _fail(self, error: sqlite3.Error) -> None:
        """The file failed mid-run: said once, and the rest of the process keeps its values in memory."""
        self._in_memory = {}
        log.warning("%s %s failed (%s): going on without it, the values of this run kept in memory only (a "
                    "re-run asks for them again)", self.what, self.path, error)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def cache_home() -> str:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "lm_eval_audio")
