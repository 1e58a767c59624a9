"""One split of a speech set that the Hub holds in either of two layouts, read alike, for the folders that declare a
:class:`SplitLayout` (FLEURS's recognition and translation folders, which read the same files):

* **the dataset script's files**: a headerless, tab-separated transcript beside a tar of the clips, matched to the
  rows by file name (``speech_sets.archive_clips``); rows are keyed by file name as the script keys them (where one
  repeats, the last row stands, noted ``repeated_rows``);
* **the Hub's parquet conversion** of the same split: the script's features as columns, each clip in an ``Audio``
  cell read in place (the cell's ``path`` names the clip: ``datasets`` keeps its base name when it embeds the bytes).

The transcript is read where a source holds both. :func:`read_split` gives the split's rows, each with where its
clip is (``audio_path`` or ``audio_table``/``audio_row``) and why it cannot be played (``audio_problem``), or, with
``clips=False``, the text alone: a transcript fetches no archive then (the conversion holds text and clips in the
same shards, which are fetched whole either way).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.benchmarks.hub_data import Snapshot


@dataclass(frozen=True)
class SplitLayout:
    """Where one language's split is, its paths holding ``{language}``."""

    transcript: str  # the script's transcript: "data/{language}/test.tsv"
    archive: str  # the tar of its clips: "data/{language}/audio/test.tar.gz"
    parquet: tuple[str, ...]  # the conversion's shards, the globs tried in order: "{language}/test-*.parquet"
    columns: tuple[str, ...]  # the transcript's columns, in order
    file_column: str  # the transcript's column naming each clip in the archive
    parquet_columns: tuple[str, ...]  # the conversion's columns read (the audio cell aside)
    audio: str = "audio"


@dataclass
class Split:
    """A split's rows (each: its columns, ``clip_name``, ``where`` (line or row, for messages), and, where clips were
    asked for, its clip), what could not be used (``invalid``, warned of by the caller once it has added its own),
    and the file named in that warning."""

    rows: list[dict]
    invalid: LeftOut
    read: Path
    layout: str  # "transcript" or "parquet"


def read_transcript(path: Path, columns: tuple[str, ...], invalid: LeftOut) -> list[dict]:
    """The rows of a headerless transcript, split on tabs as the dataset script splits them (a field beginning with
    a quotation mark is text, not a quoted field); a row without all its fields is left out and named."""
    rows = []
    # lines end at "\n" only, as the script's readlines() ends them (str.splitlines would also break at \x1c, \u2028)
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        fields = line.strip().split("\t")
        if len(fields) != len(columns):
            invalid.add(number, line[:40], f"{len(fields)} tab-separated fields, not {len(columns)}")
            continue
        rows.append({**dict(zip(columns, fields)), "line": number, "where": f"line {number}"})
    return rows


def _holds(root: Path, snapshot: Snapshot | None, pattern: str) -> bool:
    return bool(snapshot.matching(pattern)) if snapshot is not None else any(root.glob(pattern))


def read_split(spec: DataSpec, layout: SplitLayout, language: str, metadata: dict, sample: bool, label: str,
               notes: DataNotes, *, clips: bool = True) -> Split:
    """One language's split from the source ``spec`` resolves to, in whichever layout it holds; its files recorded
    under ``label`` in the results' sources."""
    root, snapshot = speech_sets.source(spec, metadata, sample)
    transcript = layout.transcript.format(language=language)
    shards = next((p.format(language=language) for p in layout.parquet
                   if _holds(root, snapshot, p.format(language=language))), None)
    if shards is None or _holds(root, snapshot, transcript):
        return _from_transcript(spec, layout, language, root, snapshot, label, notes, clips)
    return _from_parquet(spec, layout, shards, root, snapshot, label, notes, clips)


def _from_transcript(spec, layout, language, root, snapshot, label, notes, clips) -> Split:
    tsv, = speech_sets.files(spec, root, snapshot, layout.transcript.format(language=language), label,
                             transcript=True)
    speech_sets.record(notes, label, root, snapshot, [tsv])
    invalid = LeftOut(label, "line", notes)
    by_name: dict[str, dict] = {}
    for row in read_transcript(tsv, layout.columns, invalid):
        name = row[layout.file_column]
        if name in by_name:  # the script keys its rows by file name: the last one stands
            notes.note("repeated_rows", f"{label}/{name}", "the last row of this file name is used")
        by_name[name] = row
    folder = None
    if clips:  # fetched (and checked) as it is unpacked
        archive = root / layout.archive.format(language=language)
        folder = speech_sets.archive_clips(snapshot, archive, f"{language}-{archive.name.split('.')[0]}", label)
    rows = []
    for name, row in by_name.items():
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            invalid.add(row["line"], name, f"{layout.file_column} is not a clip's name (it holds a path): refused")
            continue
        row["clip_name"] = name
        if folder is not None:
            clip = folder / name
            row["audio_path"] = str(clip)
            row["audio_problem"] = (speech_sets.clip_problem(clip) if clip.is_file() else
                                    f"missing audio file: {name} is not in {Path(layout.archive).name}")
        rows.append(row)
    return Split(rows, invalid, tsv, "transcript")


def _clip_names(path: Path, audio: str) -> list[str]:
    """The base name each row's ``Audio`` cell gives its clip ("" where its path is empty), read without the bytes
    (``table_checks.parquet_rows`` has checked that the cells have a path field)."""
    import pyarrow.parquet as pq

    # the one field selected comes back as a column of its own, named by the field alone
    names = pq.read_table(path, columns=[f"{audio}.path"]).column(0).to_pylist()
    return [Path(n).name if isinstance(n, str) and n else "" for n in names]


def _from_parquet(spec, layout, pattern, root, snapshot, label, notes, clips) -> Split:
    paths = speech_sets.files(spec, root, snapshot, pattern, label)
    speech_sets.record(notes, label, root, snapshot, paths)
    invalid = LeftOut(label, "row", notes)
    rows = []
    for path in paths:
        values, cells = table_checks.parquet_rows(path, list(layout.parquet_columns), layout.audio,
                                                  speech_sets.SpeechDataError, f"{spec.repo}'s parquet conversion")
        names = _clip_names(path, layout.audio)
        for k, (row, (_, problem)) in enumerate(zip(values, cells)):
            row.update(line=len(rows) + 1, where=f"{path.name} row {k}",
                       clip_name=(names[k] if k < len(names) else "") or f"{path.name}/{k}")
            if clips:
                row.update(audio_table=str(path), audio_row=k, audio_problem=problem or "")
            rows.append(row)
    return Split(rows, invalid, paths[0], "parquet")


def clip_fields(row: dict) -> dict:
    """A row's clip as ``speech_sets.document`` takes it."""
    if "audio_table" in row:
        return {"audio_table": row["audio_table"], "audio_row": row["audio_row"], "audio_problem": row["audio_problem"]}
    return {"audio_path": row["audio_path"], "audio_problem": row["audio_problem"]}
