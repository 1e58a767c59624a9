"""Audio stored inside a dataset table: Hugging Face parquet shards and ``save_to_disk`` arrow files.

A Hugging Face ``Audio`` column is stored as a struct ``{bytes, path}`` holding the encoded
file. Documents refer to one cell (``{"table": file, "row": i, "column": "context"}``) and
the bytes are read when a batch is decoded, so documents stay small and memory stays flat.
Decoding then goes through soundfile like any file (``lm_eval_audio.audio.decoding``), with no
torchcodec.

Parquet is read one row group at a time and the last groups read are kept (up to 512 MB);
arrow files are memory-mapped. pyarrow is imported only here, when such a reference is used.
"""

from __future__ import annotations

import bisect
import os
from collections import OrderedDict
from functools import lru_cache

from lm_eval_audio.audio.errors import AudioError

# Row groups read from parquet, most recent last; bounded by their size in memory.
_ROW_GROUP_BYTES_KEPT = 512 * 2**20
_row_groups: OrderedDict = OrderedDict()


def is_arrow(path: str) -> bool:
    return path.endswith(".arrow")


@lru_cache(maxsize=64)
def _arrow_table(path: str, mtime_ns: int):
    import pyarrow as pa

    source = pa.memory_map(path)
    try:
        return pa.ipc.open_stream(source).read_all()
    except pa.ArrowInvalid:
        return pa.ipc.open_file(source).read_all()


def arrow_table(path: str):
    """A memory-mapped ``datasets`` arrow file (stream format, as ``save_to_disk`` writes it)."""
    return _arrow_table(path, os.stat(path).st_mtime_ns)


@lru_cache(maxsize=64)
def _parquet_file(path: str, mtime_ns: int):
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(path)
    starts, total = [], 0
    for g in range(parquet.metadata.num_row_groups):
        starts.append(total)
        total += parquet.metadata.row_group(g).num_rows
    return parquet, starts, total


def _parquet_cell(path: str, row: int, column: str):
    mtime = os.stat(path).st_mtime_ns
    parquet, starts, total = _parquet_file(path, mtime)
    if not 0 <= row < total:
        raise AudioError(f"{path}: row {row} does not exist (the file has {total} rows)")
    group = bisect.bisect_right(starts, row) - 1
    key = (path, mtime, group, column)
    table = _row_groups.get(key)
    if table is None:
        table = parquet.read_row_group(group, columns=[column])
        _row_groups[key] = table
        while len(_row_groups) > 1 and sum(t.nbytes for t in _row_groups.values()) > _ROW_GROUP_BYTES_KEPT:
            _row_groups.popitem(last=False)
    else:
        _row_groups.move_to_end(key)
    return table.column(column)[row - starts[group]].as_py()


_last_cell: dict = {}  # the chunks of one long recording are decoded one after another


def cell(path: str, row: int, column: str):
    """The Python value of one cell; a damaged file raises ``AudioError`` naming it."""
    key = (path, row, column)
    if key in _last_cell:
        return _last_cell[key]
    try:
        if is_arrow(path):
            table = arrow_table(path)
            if not 0 <= row < table.num_rows:
                raise AudioError(f"{path}: row {row} does not exist (the file has {table.num_rows} rows)")
            value = table.column(column)[row].as_py()
        else:
            value = _parquet_cell(path, row, column)
    except FileNotFoundError:
        raise AudioError(f"audio table not found: {path}") from None
    except KeyError:
        raise AudioError(f"{path} has no column {column!r}") from None
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        if isinstance(e, AudioError):
            raise
        raise AudioError(f"cannot read row {row} of {path} ({type(e).__name__}: {e}); the file is damaged or "
                         "incomplete: download it again") from None
    _last_cell.clear()
    _last_cell[key] = value
    return value


def encoded_audio(value, where: str) -> tuple[bytes | None, str | None]:
    """(bytes, path) of a stored ``Audio`` cell; raises naming ``where`` when it holds neither."""
    if isinstance(value, dict):
        data, path = value.get("bytes"), value.get("path")
        if data:
            return bytes(data), path
        if path:
            return None, path
        raise AudioError(f"{where}: the audio cell holds neither bytes nor a path")
    if isinstance(value, (bytes, bytearray)) and value:
        return bytes(value), None
    if value is None:
        raise AudioError(f"{where}: the audio cell is empty (null)")
    raise AudioError(f"{where}: the audio cell is a {type(value).__name__}, not a Hugging Face Audio struct")


def resolve(ref: dict) -> dict:
    """A table reference as a plain bytes or path reference (start/end kept)."""
    where = f"{ref['table']} row {ref['row']}"
    data, path = encoded_audio(cell(ref["table"], int(ref["row"]), ref.get("column", "context")), where)
    slice_ = {k: ref[k] for k in ("start", "end") if ref.get(k) is not None}
    if data is not None:
        return {"bytes": data, "path": f"{where} ({path or 'audio'})", **slice_}
    from lm_eval_audio.storage.data_paths import leaves_folder

    if leaves_folder(path):
        raise AudioError(f"{where}: the audio cell's path {path!r} leads outside the folder of its table "
                         "(absolute, or with '..'): refused; the published shards hold the audio bytes")
    return {"path": os.path.join(os.path.dirname(ref["table"]), path), **slice_}

