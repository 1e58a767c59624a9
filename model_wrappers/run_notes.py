"""What a model wrapper notes in one run, on the wrapper itself: the requests that failed, the reasoning traces'
counts, the cascade's transcripts, and how many requests the model call under way has.

Each wrapper keeps a :class:`ModelNotes` as ``notes`` (a cascade shares its own with its LLM). The startup hook's
``evaluate`` wrapper starts a run on it (:meth:`ModelNotes.start_run`) and, once lm-eval has the model's answers,
writes its notes into the results (``lm_eval_audio_data``) and its transcripts into the logged samples."""

from __future__ import annotations

from dataclasses import dataclass, field

from lm_eval_audio.storage.notes_by_kind import NotesByKind


@dataclass
class ModelNotes(NotesByKind):
    # task -> doc_id -> what the cascade's recognizer heard in each clip: into the logged samples
    transcripts: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    # how many requests the model call under way has (--use_cache hands the model only those it has no answer for)
    requests_in_call: int | None = None
    run: int = 0  # counts the runs started: what is found anew in each run compares it

    def start_run(self) -> None:
        """A new run: what the last one noted is gone (it is in that run's results)."""
        self.data_notes, self.transcripts, self.said, self.requests_in_call = {}, {}, set(), None
        self.run += 1


def notes_of(lm) -> ModelNotes | None:
    """The notes of a model of ours, through the objects that hold it as ``.lm`` (lm-eval's ``--use_cache`` wrapper,
    the diagnostics' text backbone); None for a model that keeps none."""
    for _ in range(4):
        notes = vars(lm).get("notes") if hasattr(lm, "__dict__") else None
        if isinstance(notes, ModelNotes):
            return notes
        lm = getattr(lm, "lm", None)
        if lm is None:
            return None
    return None
