"""Notes for the results' ``lm_eval_audio_data``, kept by kind and key, and warnings given once: what the run's
loader notes (``storage.run_state``), a model wrapper's notes (``model_wrappers.run_notes``) and a task's scoring
(``metrics.task_scoring``) share."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class NotesByKind:
    # kind -> key -> value: into the results' lm_eval_audio_data (keyword-only, so that a subclass's own fields can
    # come first in its positional arguments)
    data_notes: dict[str, dict] = field(default_factory=dict, kw_only=True)
    said: set = field(default_factory=set, kw_only=True)  # warnings given once (by key)

    def note(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {})[key] = value

    def append(self, kind: str, key: str, value) -> None:
        self.data_notes.setdefault(kind, {}).setdefault(key, []).append(value)

    def add(self, kind: str, key: str, amount: int) -> None:
        entries = self.data_notes.setdefault(kind, {})
        entries[key] = entries.get(key, 0) + amount

    def first_time(self, key) -> bool:
        """True the first time ``key`` is asked about: for warnings given once."""
        if key in self.said:
            return False
        self.said.add(key)
        return True
