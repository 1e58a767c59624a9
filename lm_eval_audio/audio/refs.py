"""Audio references: what documents carry instead of decoded audio.

A task's ``doc_to_audio`` returns a list of references. Each is one of

* a path string (or ``os.PathLike``): ``"clips/0001.wav"``;
* ``{"path": ..., "start": s, "end": s}``: a file, optionally a time slice in seconds;
* ``{"bytes": b"...", "path": optional name}``: encoded audio, as ``datasets``'
  ``Audio(decode=False)`` gives it;
* ``{"array": samples, "sampling_rate": hz}``: already decoded samples;
* ``{"table": file, "row": i, "column": name}``: a Hugging Face ``Audio`` cell of a
  parquet or arrow file (``lm_eval_audio.audio.tables``), optionally with start/end and a
  ``seconds`` hint (the clip's length, so batching need not read it);
* ``{"path": ..., "unavailable": reason}``: a clip the loader found missing or empty.
  The model wrappers answer such a request empty (or with -inf log-likelihood) without
  running the model, and count it; the task scores and reports the item.

Decoding happens in the model wrapper, one batch at a time (``lm_eval_audio.audio.decoding``).
This module stays free of torch so that the startup hook can use it for cache keys.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from lm_eval_audio.audio.errors import AudioError


# A document given as text on purpose (a benchmark's text modality): its task's doc_to_audio returns
# ``[text_instead(why)]``, which no wrapper reads as a clip: the request is asked as an audio task's prompt without
# its audio (``audio=none``'s way), where an empty doc_to_audio is refused as missing data.
TEXT_INSTEAD = "text_instead_of_audio"


def text_instead(why: str) -> dict:
    return {TEXT_INSTEAD: why}


def is_text_instead(ref: Any) -> bool:
    return isinstance(ref, dict) and bool(ref.get(TEXT_INSTEAD))


def normalize(ref: Any) -> dict:
    """Return the reference as a dict with exactly one of path / bytes / array."""
    if isinstance(ref, (str, os.PathLike)):
        if not os.fspath(ref):
            raise AudioError("audio path is an empty string: check the task's doc_to_audio and the data's audio column")
        return {"path": os.fspath(ref)}
    if isinstance(ref, dict):
        if ref.get("array") is not None:
            if not ref.get("sampling_rate"):
                raise AudioError(f"audio dict with 'array' needs a 'sampling_rate' (got keys {sorted(ref)})")
            return ref
        if ref.get("bytes") is not None:
            return ref
        if ref.get("table") is not None:
            if ref.get("row") is None:
                raise AudioError(f"audio table reference {ref['table']!r} needs a 'row'")
            return ref
        if ref.get("path") is not None:
            return {**ref, "path": os.fspath(ref["path"])}
        raise AudioError(
            f"audio dict has none of 'path', 'bytes', 'array' or 'table' (keys: {sorted(ref)}); "
            "doc_to_audio must return paths or dicts such as {'path': 'clip.wav'}"
        )
    raise AudioError(
        f"unsupported audio reference of type {type(ref).__name__}: doc_to_audio must return a list of "
        "paths or dicts with 'path', 'bytes' or 'array'+'sampling_rate'"
    )


def unavailable_reason(ref: Any) -> str | None:
    """Why the loader marked this clip unusable, or None for a usable reference."""
    if isinstance(ref, dict) and ref.get("unavailable"):
        return str(ref["unavailable"])
    return None


def describe(ref: Any) -> str:
    """A short human name for a reference, for error messages and logs."""
    try:
        ref = normalize(ref)
    except AudioError:
        return repr(ref)[:80]
    if "array" in ref and ref.get("array") is not None:
        return ref.get("path") or f"<array of {len(ref['array'])} samples @ {ref['sampling_rate']} Hz>"
    if ref.get("bytes") is not None:
        return ref.get("path") or f"<{len(ref['bytes'])} encoded bytes>"
    if ref.get("table") is not None:
        return f"{ref['table']} row {ref['row']}"
    return ref["path"]


# What a file that cannot be read (missing, a folder, no permission) is known by in this process: the wrappers take
# a clip's digest before they decode it, and only the decoding fails a request (as for a corrupt file) and says why.
# Unique to the process, so that no cache (the transcripts', --use_cache's) can hold an answer under it.
_UNREADABLE = f"unreadable:{os.urandom(16).hex()}"


def _file_digest(path: str) -> str:
    """The file's sha256, read once per process while it stays the same (``storage.digests``: a clip fetched from
    the Hub is known by its listing's digest, checked when it was fetched, and read here no more); for a file that
    cannot be read, a stand-in no other file shares (the request fails where the clip is decoded)."""
    from lm_eval_audio.storage.digests import sha256_of

    try:
        return sha256_of(path)
    except OSError:
        return f"{_UNREADABLE}:{os.path.realpath(path)}"


_cell_contents: dict[tuple, bytes] = {}


def _cell_content(ref: dict) -> bytes:
    """What ``content_digest`` hashes for a table cell, as for the bytes or file it holds.

    Remembered per cell (and table version): every chunk of a long recording is the same
    cell, and hf-audio digests each clip it decodes."""
    table = ref["table"]
    try:
        st = os.stat(table)
    except OSError:  # failed where the clip is decoded, as a file that cannot be read is
        return f"{_UNREADABLE}:{os.path.realpath(table)}:{ref['row']}".encode()
    column = ref.get("column", "context")
    key = (os.path.realpath(table), st.st_size, st.st_mtime_ns, int(ref["row"]), column)
    content = _cell_contents.get(key)
    if content is None:
        from lm_eval_audio.audio import tables

        whole = tables.resolve({"table": table, "row": ref["row"], "column": column})
        if whole.get("bytes") is not None:
            content = b"bytes:" + hashlib.sha256(whole["bytes"]).digest()
        else:
            content = b"file:" + _file_digest(whole["path"]).encode()
        _cell_contents[key] = content
    return content


def content_digest(ref: Any) -> str:
    """SHA-256 of what the model will hear: the audio content plus any time slice.

    Two clips behind the same prompt never share a digest; the same file reached by
    two paths does.
    """
    ref = normalize(ref)
    h = hashlib.sha256()
    if unavailable_reason(ref):
        h.update(f"unavailable:{ref['path']}:{ref['unavailable']}".encode())
    elif ref.get("array") is not None:
        import numpy as np

        arr = np.ascontiguousarray(np.asarray(ref["array"]))
        h.update(f"array:{arr.dtype.str}:{arr.shape}:{int(ref['sampling_rate'])}:".encode())
        h.update(arr.tobytes())
    elif ref.get("bytes") is not None:
        h.update(b"bytes:" + hashlib.sha256(bytes(ref["bytes"])).digest())
    elif ref.get("table") is not None:
        h.update(_cell_content(ref))
    else:
        h.update(b"file:" + _file_digest(ref["path"]).encode())
    h.update(f":{ref.get('start')}:{ref.get('end')}".encode())
    if ref.get("condition") is not None:  # an ablation (an AudioCondition, conditions.mark) is other content
        h.update(f":condition={ref['condition'].label}".encode())
    if ref.get("heard_seconds"):  # a fragment of the heard window, not of the whole clip
        h.update(f":heard={float(ref['heard_seconds'])}".encode())
    return h.hexdigest()


def cache_key_args(args: tuple) -> list:
    """Request arguments with every audio reference replaced by its content digest.

    lm-eval's ``--use_cache`` keys requests by the JSON of their arguments, which would
    key a clip by its path (or fail on an array). Used by the startup hook.
    """
    out = []
    for arg in args:
        if isinstance(arg, dict) and "audio" in arg:
            audio = arg["audio"]
            refs = audio if isinstance(audio, (list, tuple)) else [audio]
            arg = {**arg, "audio": [dict(r) if is_text_instead(r) else {"sha256": content_digest(r)} for r in refs]}
        out.append(arg)
    return out
