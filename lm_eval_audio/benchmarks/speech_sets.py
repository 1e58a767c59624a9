"""Sets of clips published on the Hub as parquet with audio cells or as transcripts beside a tar of clips: where their
files come from and their documents, for the task folders that declare their ``SPEC`` (a ``data_spec.DataSpec``):
the speech recognition and translation sets, ``tasks/fleurs``, ``tasks/aishell1``, ...; and the classification sets
read the same way, ``tasks/muchomusic``, ``tasks/vocalsound``.

Two published layouts are read:

* **parquet**: shards holding each clip in an ``Audio`` cell beside its text (``parquet_docs``); the clips are read
  in place from the shards the task fetches.
* **transcript and archive**: a transcript table beside a tar of the clips (``archive_clips``); the archive is
  unpacked once into the Hugging Face cache (``hub_data.Snapshot.built``), its clips by base name, and the folder's
  own reader turns its transcript rows into :func:`document` s.

Every document carries what ``metrics.speech_to_text`` scores (``reference``, ``scoring``, ``audio_problem``), the
instruction the model is given (``prompt``: the folder's default, cited in its README, or ``--metadata '{"prompt":
"..."}'``), and its clip. A row without its reference text is left out and named; a clip that is missing or cannot
be played leaves its row in, flagged: the model is not run on it, and it is counted in ``audio_missing`` (left out
of an error rate or BLEU, which are over what the model heard; wrong in an accuracy).
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource, Snapshot
from lm_eval_audio.metrics import speech_to_text

log = logging.getLogger("lm_eval.audio.data")
PROMPT_KEY = "prompt"  # --metadata prompt=: the explicit instruction, which wins over prompts= (author_prompts)


class SpeechDataError(LayoutDataError):
    """A speech set's data that cannot be used; the message names the file and the fix."""


def source(spec: DataSpec, metadata: dict, sample: bool) -> tuple[Path, Snapshot | None]:
    """The bundled sample, the local copy, or the Hub snapshot (nothing fetched yet): ``data_spec.resolve``."""
    found = resolve(spec, metadata, sample)
    return found.root, found.snapshot


def files(spec: DataSpec, root: Path, snapshot: Snapshot | None, pattern: str, what: str,
          transcript: bool = False) -> list[Path]:
    """The files matching ``pattern`` (a glob relative to the root), fetched where they come from the Hub (a
    ``transcript``, small, is fetched in a dry run of ``lm-eval-audio download`` too: what follows needs it)."""
    if snapshot is None:
        found = sorted(root.glob(pattern))
    else:
        remote = snapshot.matching(pattern)
        snapshot.fetch(remote, what, needed_to_plan=transcript)
        found = [snapshot.root / r.path for r in remote]
    if not found:
        where = snapshot.label if snapshot is not None else str(root)
        raise SpeechDataError(f"{what}: {where} holds no {pattern}: not {spec.repo}'s layout. " + spec.help())
    return found


def table_shards(spec: DataSpec, metadata: dict, sample: bool, pattern: str, label: str,
                 notes: DataNotes) -> list[Path]:
    """A parquet set's shards matching ``pattern``, fetched, their source recorded."""
    root, snapshot = source(spec, metadata, sample)
    shards = files(spec, root, snapshot, pattern, label)
    record(notes, label, root, snapshot, shards)
    return shards


def record(notes: DataNotes, label: str, root: Path, snapshot: Snapshot | None, read: list[Path]) -> None:
    data = DataSource(root, snapshot, tuple(p.relative_to(root).as_posix() for p in read if p.is_relative_to(root)))
    notes.note("sources", label, data.record())


def prompt(metadata: dict, default: str) -> str:
    """The instruction: ``--metadata '{"prompt": "..."}'`` where given, else the folder's cited default."""
    given = metadata.get(PROMPT_KEY)
    if given is not None and not isinstance(given, str):
        raise SpeechDataError(f"--metadata prompt must be a string (the instruction given with each clip), not "
                              f"{type(given).__name__}")
    return default if given is None else given


CHINESE_CER = {"reference": "cn_tn_chars", "folded": "cn_tn_folded_chars"}


def chinese_cer(metadata: dict) -> str:
    """The Mandarin CER rule: the reference evaluations' (default) or, with ``--metadata '{"chinese_cer":
    "folded"}'``, the same after full-width characters are folded and traditional characters made simplified."""
    from lm_eval_audio.benchmarks.task_settings import one_of

    return CHINESE_CER[one_of(metadata, "chinese_cer", "reference", CHINESE_CER, SpeechDataError,
                              "give reference (Qwen2-Audio's evaluate_asr.py, the default) or folded (full-width "
                              "characters folded and traditional characters made simplified first)")]


def asked(notes: DataNotes, label: str, metadata: dict, default: str, scoring: str = "") -> str:
    """The instruction (``prompt``), and how the task is asked and scored, into the results
    (``lm_eval_audio_data.prompts`` and ``scoring_rules``)."""
    instruction = prompt(metadata, default)
    notes.note("prompts", label, instruction)
    if scoring:
        speech_to_text.check_ready(scoring)
        notes.note("scoring_rules", label, speech_to_text.describe(scoring))
    return instruction


def document(index: int, uniq_id: str, reference: str, scoring: str, instruction: str, *, audio_path: str = "",
             audio_table: str = "", audio_row: int = -1, audio_column: str = "audio", audio_problem: str = "",
             **extra) -> dict:
    """One document: its clip a file (``audio_path``) or a table cell (``audio_table``, row, column)."""
    return {"doc_id": index, "uniq_id": uniq_id, "reference": reference, "scoring": scoring, "prompt": instruction,
            "audio_path": audio_path, "audio_table": audio_table, "audio_row": audio_row,
            "audio_column": audio_column, "audio_problem": audio_problem, **extra}


def parquet_docs(shards: list[Path], text: str, id_column: str | None, label: str, scoring: str, instruction: str,
                 notes: DataNotes, extra_columns: tuple[str, ...] = (), audio: str = "audio", *,
                 language: str) -> list[dict]:
    """The documents of the rows of ``shards`` (their clips in the ``audio`` column, read in place), each saying the
    ``language`` spoken in its clip (what a recognizer must transcribe: the cascade warns where it cannot)."""
    columns = [c for c in (text, id_column, *extra_columns) if c]
    docs, invalid = [], LeftOut(label, "row", notes)
    index = 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, columns, audio, SpeechDataError, label)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            named = id_column and row.get(id_column) is not None
            uniq_id = str(row[id_column]) if named else f"{path.name}/{audio_row}"
            reference = row.get(text)
            if not isinstance(reference, str) or not reference.strip():
                invalid.add(row_index, uniq_id, f"no reference text in {text!r}")
                continue
            docs.append(document(len(docs), uniq_id, reference, scoring, instruction, audio_table=str(path),
                                 audio_row=audio_row, audio_problem=problem or "", language=language,
                                 **{c: row.get(c) for c in extra_columns}))
    invalid.warn(label)
    return checked(docs, label, notes)


def archive_clips(snapshot: Snapshot | None, archive: Path, name: str, what: str) -> Path:
    """The folder holding the clips of the tar ``archive`` by base name, unpacked once into the Hugging Face cache:
    the Hub's archive beside its snapshot, a local copy's (or the sample's) keyed by its path, size and time."""
    import hashlib

    from lm_eval_audio.benchmarks.hub_archives import unpack_clips
    from lm_eval_audio.benchmarks.hub_data import WORK_FOLDER, cache_root, say
    from lm_eval_audio.storage.build_once import build_once

    def build(paths, out):
        unpack_clips(paths[0], out, "clips")

    if snapshot is not None:
        rel = archive.relative_to(snapshot.root).as_posix()
        return snapshot.built([rel], build, "clips", what, doing=f"unpacking {rel}", into="clips-" + name) / "clips"
    if not archive.is_file():
        raise SpeechDataError(f"{what}: {archive} does not exist: the folder is not the official layout")
    stat = archive.stat()
    key = hashlib.sha256(f"{archive.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:20]
    folder = cache_root() / WORK_FOLDER / "local-archives" / key

    def unpacked(partial: Path) -> None:
        say(f"{what}: unpacking {archive} into {folder}")
        build([archive], partial)

    return build_once(folder, unpacked, marker=folder / "clips.complete", marker_text=str(archive)) / "clips"


def clip_problem(path: Path) -> str:
    from lm_eval_audio.storage.data_paths import audio_file_problem

    return audio_file_problem(str(path))


def checked(docs: list[dict], label: str, notes: DataNotes, missing_are: str = "left out of the score") -> list[dict]:
    """The documents, with the unplayable clips noted and warned of once (``missing_are``: how the task scores
    them); none at all stops the task."""
    if not docs:
        raise SpeechDataError(f"{label}: no usable rows (each left out is named above and in the results' "
                              "invalid_items): download the data again, or point the set's data folder at a complete "
                              "copy")
    missing = [d for d in docs if d["audio_problem"]]
    for d in missing:
        notes.note("unusable_audio", f"{label}/{d['uniq_id']}", d["audio_problem"])
    if missing:
        log.warning("%s: %d clip(s) missing or unplayable (first: %s: %s); the model is not run on them, they are "
                    "counted in audio_missing and %s", label, len(missing), missing[0]["uniq_id"],
                    missing[0]["audio_problem"], missing_are)
    log.info("%s: %d item(s)", label, len(docs))
    return docs


def doc_to_audio(doc: dict) -> list:
    if doc["audio_table"]:
        return table_checks.clip(doc["audio_table"], doc["audio_row"], doc["audio_column"], doc["audio_problem"])
    if doc["audio_problem"]:
        return [{"path": doc["audio_path"], "unavailable": doc["audio_problem"]}]
    return [doc["audio_path"]]


def doc_to_text(doc: dict) -> str:
    return doc["prompt"]


def data_check(data_module: str):
    """A folder's ``Benchmark.check_data`` (``data_spec.data_check``): the prompt, where given, is text, the Chinese
    CER rule one of its words; a local copy, where one is set, exists, or else the Hub repository answers (or the
    cache holds it, offline); its files are fetched by each task as it loads: only what it reads. ``data_module``
    names the module holding the folder's ``SPEC``, imported only when a run has its tasks."""
    from lm_eval_audio.benchmarks.data_spec import data_check as derived

    def settings(metadata: dict) -> None:
        prompt(metadata, "")
        chinese_cer(metadata)

    return derived(data_module, "SPEC", settings)
