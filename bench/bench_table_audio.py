"""What reading audio from a parquet table cell costs, in the order hf-audio reads it.

    .venv/bin/python bench/bench_table_audio.py [--clips 1000] [--seconds 5] [--row-group 100]

AudioBench documents point at cells of the published parquet shards; hf-audio sorts its
requests by audio length, so it reads the cells in an order unrelated to the file's. This
builds a shard like the published ones (FLAC bytes in an ``Audio`` struct, row groups of
100 as ``datasets`` writes audio) and times, per clip:

* reading the cell in file order (the baseline) and in a random order;
* reading and decoding the cell to 16 kHz float32, and decoding the same bytes from a
  FLAC file on disk (the AIR-Bench path), as the reference.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clips", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--row-group", type=int, default=100)
    args = parser.parse_args()

    import pyarrow as pa
    import pyarrow.parquet as pq
    import soundfile as sf

    from lm_eval_audio.audio import decoding as audio
    from lm_eval_audio.audio import tables as table_audio

    rng = np.random.default_rng(0)
    folder = Path(tempfile.mkdtemp(prefix="bench_table_audio_"))
    cells, files = [], []
    for i in range(args.clips):
        samples = (0.1 * rng.standard_normal(int(args.seconds * 16000))).astype(np.float32)
        buf = io.BytesIO()
        sf.write(buf, samples, 16000, format="FLAC")
        cells.append({"bytes": buf.getvalue(), "path": f"{i}.flac"})
        files.append(folder / f"{i}.flac")
        files[-1].write_bytes(buf.getvalue())
    shard = folder / "test-00000-of-00001.parquet"
    audio_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    pq.write_table(pa.table({"context": pa.array(cells, type=audio_type)}), shard, row_group_size=args.row_group)
    refs = [{"table": str(shard), "row": i, "column": "context"} for i in range(args.clips)]
    shuffled = random.Random(0).sample(range(args.clips), args.clips)

    def per_clip(fn, order) -> float:
        table_audio._row_groups.clear()
        start = time.perf_counter()
        for i in order:
            fn(i)
        return (time.perf_counter() - start) / len(order) * 1000

    in_order = per_clip(lambda i: table_audio.resolve(refs[i]), range(args.clips))
    random_order = per_clip(lambda i: table_audio.resolve(refs[i]), shuffled)
    decode_table = per_clip(lambda i: audio.load(refs[i], 16000), shuffled)
    decode_file = per_clip(lambda i: audio.load(str(files[i]), 16000), shuffled)
    print(f"{args.clips} clips of {args.seconds:g} s, FLAC, row groups of {args.row_group}, python {sys.version.split()[0]}")
    print(f"read cell, file order     {in_order:7.2f} ms/clip")
    print(f"read cell, random order   {random_order:7.2f} ms/clip  ({random_order / in_order:.1f}x file order)")
    print(f"read + decode, random     {decode_table:7.2f} ms/clip")
    print(f"decode from .flac files   {decode_file:7.2f} ms/clip  (table / file: {decode_table / decode_file:.2f}x)")


if __name__ == "__main__":
    main()
