"""What a run could not evaluate, for the results JSON (``lm_eval_audio_data``).

Loaders note missing folders, absent tasks and unusable clips as they read the data;
the startup hook copies the notes into the results that ``evaluate`` returns, then
forgets them, so a log line is never the only place a gap is recorded.
"""

from __future__ import annotations

_notes: dict[str, dict] = {}


def note(kind: str, key: str, value) -> None:
    _notes.setdefault(kind, {})[key] = value


def append(kind: str, key: str, value) -> None:
    _notes.setdefault(kind, {}).setdefault(key, []).append(value)


def add(kind: str, key: str, amount: int) -> None:
    entries = _notes.setdefault(kind, {})
    entries[key] = entries.get(key, 0) + amount


def take() -> dict:
    notes = {kind: dict(entries) for kind, entries in _notes.items()}
    _notes.clear()
    return notes
