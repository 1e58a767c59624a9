"""What a loader needs to know of a table's ``Audio`` cells before the model runs: each clip's length, or why it
cannot be played (null, neither bytes nor a path, undecodable, zero samples), read in place from a pyarrow column
(``tables`` reads the cells; this reads their headers, and decodes where libsndfile cannot)."""

from __future__ import annotations

from pathlib import Path


def parquet_rows(path: Path, columns: list[str], audio: str, error: type[Exception], layout: str):
    """(the ``columns`` of each row, (seconds, problem) of each row's ``audio`` cell) of one parquet file, a few
    rows at a time (the clips are read in place, not held); ``error`` (naming the file and ``layout``) where the
    file cannot be read or lacks a column."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises several kinds for a damaged file
        raise error(f"{path} cannot be read as parquet ({e}); download it again") from None
    names = parquet.schema_arrow.names
    missing = [c for c in [*columns, audio] if c not in names]
    if missing:
        raise error(f"{path} lacks the column(s) {', '.join(missing)} of {layout}'s layout (it has "
                    f"{', '.join(names)}); download it again")
    cell = parquet.schema_arrow.field(audio).type
    if not (hasattr(cell, "get_field_index") and cell.get_field_index("bytes") >= 0
            and cell.get_field_index("path") >= 0):
        raise error(f"{path}: its {audio} column is not an Audio cell (a struct of bytes and path, as {layout} "
                    f"writes it) but {cell}; download it again")
    rows, clips = [], []
    for batch in parquet.iter_batches(batch_size=8, columns=[*columns, audio]):
        rows += batch.select(list(columns)).to_pylist()
        clips += cell_checks(batch.column(audio))
    return rows, clips


def clip(table: str, row: int, column: str, problem: str) -> list:
    """A document's ``doc_to_audio``: its table cell, or, where the loader found it unusable, marked so (the
    wrappers skip the request and count it)."""
    if problem:
        return [{"path": f"{table} row {row}", "unavailable": problem}]
    return [{"table": table, "row": row, "column": column}]


def cell_checks(cells) -> list[tuple[float | None, str]]:
    """(seconds or None, problem or "") of each ``Audio`` cell of a pyarrow struct column, read in place (no copy of
    the bytes): what a loader needs to flag a missing or empty clip before the model is run on it."""
    data, paths = cells.field("bytes"), cells.field("path")
    out = []
    for i in range(len(cells)):
        if not cells[i].is_valid:
            out.append((None, "the audio cell is empty (null)"))
        elif data[i].is_valid and len(data[i].as_buffer()) > 0:
            out.append(_audio_info(data[i].as_buffer()))
        elif paths[i].is_valid and paths[i].as_py():
            out.append((None, ""))  # a file beside the table: decoded (and checked) when used
        else:
            out.append((None, "the audio cell holds neither bytes nor a path"))
    return out


def _audio_info(buffer) -> tuple[float | None, str]:
    """(seconds or None, problem or "") of one encoded clip: from its header, or for a
    codec libsndfile lacks by decoding it (ffmpeg)."""
    import pyarrow as pa
    import soundfile as sf

    from lm_eval_audio.audio import decoding

    try:
        info = sf.info(pa.BufferReader(buffer))
        frames, rate = info.frames, info.samplerate
    except Exception:
        try:
            samples = decoding.load({"bytes": buffer.to_pybytes()}, 16000)
        except decoding.AudioError as e:
            return None, f"undecodable audio ({e})"
        frames, rate = len(samples), 16000
    if frames == 0:
        return None, "the audio has zero samples"
    return frames / rate, ""
