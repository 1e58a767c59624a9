"""A text value per key in one SQLite file: the judge's replies and the cascade's
transcripts, kept across runs and processes.

WAL mode lets concurrent processes share the file safely, and each value is committed as
soon as it is put, so a run killed midway keeps everything it had already paid for.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time


class TextStore:
    def __init__(self, path: str, what: str, setting: str):
        """``what`` and ``setting`` (where the path is configured) word the error message."""
        self.path = path
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # A killed process loses nothing committed in WAL mode with NORMAL sync; only a power
            # cut can drop the last values. FULL would fsync once per value.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, reply TEXT, created REAL)"
            )
        except (OSError, sqlite3.Error) as e:
            raise OSError(f"{what} {path!r} cannot be opened ({e}); point {setting} at a writable file") from e
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, key: str, model: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies (key, model, reply, created) VALUES (?, ?, ?, ?)",
                (key, model, value, time.time()),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def cache_home() -> str:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "lm_eval_audio")
