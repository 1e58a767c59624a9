"""What a task's loader could not use, returned with its documents.

A loader (a task folder's ``custom_dataset`` function, made with :func:`loader`) notes on the :class:`DataNotes`
it is given what it leaves out or flags (missing folders, invalid items, unusable clips, ...) and the warnings to
give once per run. The notes travel back with what the load returns: on the ``DatasetDict`` lm-eval keeps as the
task's ``dataset``, or on the error that stopped the load. The seam (``lm_eval_audio.harness.task_building``)
puts them into the run's results (``lm_eval_audio_data``) and gives each warning once per run; loaders write no
run-wide state themselves. (A data source opened outside any loader's notes, by a check before the model loads as by a
loader, says its warning once per run through ``storage.run_state``: MMAU's Hub rows.)
"""

from __future__ import annotations

import functools
import logging

ATTRIBUTE = "lm_eval_audio_notes"  # on the DatasetDict a loader returns, or on the error it raises


class DataNotes:
    def __init__(self) -> None:
        self.entries: dict[str, dict] = {}  # kind -> key -> value: the results' lm_eval_audio_data
        self.warnings: list[tuple] = []  # (key, logger name, message, args): each given once per run
        # a clip's path, as its document names it -> the snapshot it is listed in and the listed file (``hub_data``:
        # ``Snapshot.problem`` notes it, ``fetch_clips`` fetches the clips of the documents a run evaluates)
        self.clip_sources: dict = {}

    def note(self, kind: str, key: str, value) -> None:
        self.entries.setdefault(kind, {})[key] = value

    def warn_once(self, key, logger: logging.Logger, message: str, *args) -> None:
        """A warning given the first time ``key`` comes up in a run (say, about a metadata file every task of a
        group reads)."""
        self.warnings.append((key, logger.name, message, args))


def of(obj) -> DataNotes | None:
    """The notes a load returned with ``obj`` (a task's dataset, or the error of its load)."""
    return getattr(obj, ATTRIBUTE, None)


def loader(load):
    """lm-eval's ``custom_dataset`` function from ``load(*args, notes=..., **kwargs)``, which returns the test
    documents (a list of dicts): a ``DatasetDict`` with them as its ``test`` split, the notes on it (or on the
    error the load raised)."""

    @functools.wraps(load)
    def custom_dataset(*args, **kwargs):
        import datasets

        notes = DataNotes()
        try:
            docs = load(*args, notes=notes, **kwargs)
        except Exception as e:
            setattr(e, ATTRIBUTE, notes)
            raise
        dataset = datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})
        setattr(dataset, ATTRIBUTE, notes)
        return dataset

    return custom_dataset
