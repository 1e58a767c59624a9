"""A benchmark's own ``--metadata`` settings that take one of a few words (which clips of a row, which modality,
which published prompt): read case-blind, refused in one line that says what each word means."""

from __future__ import annotations


def one_of(metadata: dict, key: str, default: str, allowed, error: type[Exception], meanings: str) -> str:
    """``metadata[key]`` (else ``default``) lower-cased; ``error`` naming the key, the value and ``meanings`` (what
    to give instead) where it is none of ``allowed``."""
    value = str(metadata.get(key, default)).lower()
    if value not in allowed:
        raise error(f"{key} {value!r}: {meanings}")
    return value
