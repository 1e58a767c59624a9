"""lm-eval's task index, parsed once: each YAML file the index reads (``TaskIndex.build``'s ``load_yaml`` with
functions unresolved, about 14,600 files for lm-eval's own tasks and ours, some nine seconds at every
``TaskManager``) is kept as parsed, with the files it was made of (itself and everything it includes), in one file
of the user's cache (``~/.cache/lm_eval_audio/task_index.pickle``, ``LM_EVAL_AUDIO_TASK_INDEX`` names another, an
empty value turns it off). A kept parse is used only while each of those files has the modification time, size and
inode it had; anything else is parsed again, as lm-eval parses it, so the index is the one lm-eval builds
(the same entries, the same warnings). A file changed in the two seconds before it was parsed is not kept: a
rewrite within the file system's timestamp granularity could otherwise go unseen.

Each use hands out its own copy, so a caller that changes a configuration changes nobody else's. The file is
written (atomically, whole) after a ``TaskManager`` was built with parses it did not hold; it keeps the parses of
files that still exist, for the other checkouts and include paths that share it.
"""

from __future__ import annotations

import logging
import os
import pickle
import time

from lm_eval_audio.harness.wrapping import wrap

log = logging.getLogger("lm_eval.audio")
ENV = "LM_EVAL_AUDIO_TASK_INDEX"
_RACY_SECONDS = 2.0
_FORMAT = 1  # bumped when what is kept changes

_kept: dict | None = None  # path -> ((file, stamp), ...), pickled configuration
_changed = False


def cache_file() -> str | None:
    """The cache file, or None where ``LM_EVAL_AUDIO_TASK_INDEX`` is set empty (off)."""
    from lm_eval_audio.storage.text_store import cache_home

    named = os.environ.get(ENV)
    if named is not None:
        return named or None
    return os.path.join(cache_home(), "task_index.pickle")


def _stamp(file: str) -> tuple[int, int, int]:
    status = os.stat(file)
    return status.st_mtime_ns, status.st_size, status.st_ino


def _entries() -> dict:
    global _kept
    if _kept is None:
        _kept = {}
        where = cache_file()
        if where and os.path.isfile(where):
            try:
                with open(where, "rb") as f:
                    stored = pickle.load(f)
                if isinstance(stored, dict) and stored.get("format") == _FORMAT:
                    _kept = stored["entries"]
            except Exception as e:  # a broken or foreign file: parsed anew, and written again
                log.debug("task index cache %s unreadable (%s): parsing the YAML files", where, e)
    return _kept


def _fresh(files) -> bool:
    try:
        return all(_stamp(file) == stamp for file, stamp in files)
    except OSError:
        return False


def on_index_module(module) -> None:
    """Keep the parses of ``lm_eval.tasks._index``'s ``load_yaml`` (the name ``TaskIndex.build`` calls)."""

    def make(original):
        def load_yaml(path, *, resolve_func=True, recursive=True, _seen=None):
            if resolve_func or not recursive or _seen is not None or cache_file() is None:
                return original(path, resolve_func=resolve_func, recursive=recursive, _seen=_seen)
            global _changed
            key = str(path)
            kept = _entries().get(key)
            if kept is not None and _fresh(kept[0]):
                return pickle.loads(kept[1])
            read: set = set()  # every file this parse reads: itself and what it includes
            config = original(path, resolve_func=resolve_func, recursive=recursive, _seen=read)
            now = time.time()
            stamps = tuple((str(file), _stamp(str(file))) for file in read)
            if all(now - stamp[0] / 1e9 > _RACY_SECONDS for _, stamp in stamps):
                _entries()[key] = (stamps, pickle.dumps(config, protocol=pickle.HIGHEST_PROTOCOL))
                _changed = True
            return config

        return load_yaml

    wrap(module, "load_yaml", make)


def save() -> None:
    """Write the kept parses, where this process parsed a file anew: those of files that still exist."""
    global _changed
    where = cache_file()
    if not _changed or not where or _kept is None:
        return
    _changed = False
    entries = {key: value for key, value in _kept.items() if os.path.exists(key)}
    try:
        os.makedirs(os.path.dirname(os.path.abspath(where)), exist_ok=True)
        partial = f"{where}.{os.getpid()}.partial"
        try:
            with open(partial, "wb") as f:
                pickle.dump({"format": _FORMAT, "entries": entries}, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(partial, where)
        finally:
            if os.path.exists(partial):
                os.remove(partial)
    except OSError as e:  # a read-only home, a full disk: the next run parses again
        log.debug("task index cache %s not written (%s)", where, e)
