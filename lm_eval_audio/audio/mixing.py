"""``lm-eval-audio mix``: two clips mixed at a set loudness difference and time offset.

AIR-Bench (section 3.3) builds its mixed-audio items this way, "loudness control and
temporal dislocation", but never released the code. Here:

* each clip is decoded to mono at a common rate (the higher of the two, or ``--sampling_rate``);
* each clip's loudness is measured alone, in LUFS (ITU-R BS.1770-4 with gating,
  ``torchaudio.functional.loudness``); clip A keeps its level (or is set to ``--a_lufs``)
  and clip B gets the gain that puts it ``relative_lu`` LU above A (below, if negative);
* B starts ``offset`` seconds after A (before A, if negative), to the sample;
* if the sum would exceed ``PEAK_CEILING``, both clips are scaled by one gain, which keeps
  their loudness difference, and that gain is recorded.

The meta-information written beside the audio says which clip is louder (``equal`` within
``EQUAL_WITHIN_LU``) and which comes first, the offset, every gain applied, the measured
loudness of each clip before and after, and each clip's own meta-information. In batch mode
(a CSV or JSONL of pairs) a pair that gives no ``relative_lu`` or ``offset`` draws it from
``--lu_range`` / ``--offset_range`` with a generator seeded by ``--seed`` and the pair's row,
so a re-run writes the same files.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from lm_eval_audio.audio import decoding
from lm_eval_audio.storage import jsonl
from lm_eval_audio.audio.errors import AudioError

PEAK_CEILING = 0.98  # about -0.18 dBFS: a 16-bit file of the mix never clips
MIN_SECONDS = 0.4  # BS.1770's gating block: shorter clips have no integrated loudness
# Differences this small are labelled "equal": about the just-noticeable loudness difference, and the meter's own
# spread between short clips of different content.
EQUAL_WITHIN_LU = 1.0
# Batch mode's draws when a pair gives no relative_lu or offset: symmetric, so that either clip can be the louder
# and either can come first.
DEFAULT_LU_RANGE = (-10.0, 10.0)
DEFAULT_OFFSET_RANGE = (-2.0, 2.0)


class MixError(ValueError):
    """A pair that cannot be mixed; the message names the clip or the row."""


def loudness(samples: np.ndarray, sampling_rate: int, name: str) -> float:
    """Integrated loudness in LUFS (BS.1770-4, K-weighted, gated)."""
    import torch
    import torchaudio.functional as AF

    if len(samples) < MIN_SECONDS * sampling_rate:
        raise MixError(f"{name}: {len(samples) / sampling_rate:.3f} s is shorter than the {MIN_SECONDS} s that "
                       "a loudness measurement (ITU-R BS.1770) needs")
    value = float(AF.loudness(torch.from_numpy(np.ascontiguousarray(samples, dtype=np.float32))[None], sampling_rate))
    if not math.isfinite(value):
        raise MixError(f"{name}: the clip is silent (no loudness to set); choose another clip")
    return value


def _db(gain: float) -> float:
    return 20 * math.log10(gain)


def mix(a, b, relative_lu: float, offset: float, sampling_rate: int | None = None,
        a_lufs: float | None = None) -> tuple[np.ndarray, int, dict]:
    """Mix references ``a`` and ``b``; returns (samples, rate, meta-information)."""
    clips = []
    for role, ref in (("a", a), ("b", b)):
        try:
            samples, sr = decoding.load_native(ref)
        except AudioError as e:
            raise MixError(f"clip {role}: {e}") from None
        clips.append((role, ref, samples, sr))
    rate = int(sampling_rate or max(sr for *_, sr in clips))
    decoded = {role: decoding.resample(samples, sr, rate) for role, _, samples, sr in clips}
    names = {role: str(ref) for role, ref, *_ in clips}
    measured = {role: loudness(decoded[role], rate, f"clip {role} ({names[role]})") for role in decoded}
    gain_db = {"a": 0.0 if a_lufs is None else a_lufs - measured["a"]}
    gain_db["b"] = measured["a"] + gain_db["a"] + relative_lu - measured["b"]
    shift = int(round(offset * rate))
    start = {"a": max(0, -shift), "b": max(0, shift)}
    length = max(start[r] + len(decoded[r]) for r in decoded)
    out = np.zeros(length, dtype=np.float64)
    for role in decoded:
        out[start[role]: start[role] + len(decoded[role])] += decoded[role] * 10 ** (gain_db[role] / 20)
    peak = float(np.abs(out).max())
    peak_gain = PEAK_CEILING / peak if peak > PEAK_CEILING else 1.0
    out *= peak_gain
    after = {role: measured[role] + gain_db[role] + _db(peak_gain) for role in decoded}
    meta = {
        "sampling_rate": rate,
        "duration_seconds": length / rate,
        "relative_lu": relative_lu,
        "offset_seconds": offset,
        "offset_samples": shift,
        "louder": "equal" if abs(relative_lu) <= EQUAL_WITHIN_LU else "a" if relative_lu < 0 else "b",
        "louder_equal_within_lu": EQUAL_WITHIN_LU,
        "first": "a" if shift > 0 else "b" if shift < 0 else "together",
        "peak_normalization": {"applied": peak_gain < 1.0, "gain_db": _db(peak_gain), "peak_before": peak,
                               "ceiling": PEAK_CEILING},
        "loudness_meter": "torchaudio.functional.loudness (ITU-R BS.1770-4)",
        "clips": {
            role: {
                "source": names[role],
                "sampling_rate": sr,
                "duration_seconds": len(decoded[role]) / rate,
                "loudness_lufs": measured[role],
                "gain_db": gain_db[role],
                "total_gain_db": gain_db[role] + _db(peak_gain),
                "loudness_lufs_in_mix": after[role],
                "start_seconds": start[role] / rate,
                "start_sample": start[role],
            }
            for role, _, _, sr in clips
        },
    }
    return out.astype(np.float32), rate, meta


def write(samples: np.ndarray, rate: int, meta: dict, path: str, clip_meta: dict | None = None) -> dict:
    """The mix as a 16-bit WAV at ``path`` and its meta-information as ``<path stem>.json``."""
    import soundfile as sf

    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    sf.write(path, samples, rate, subtype="PCM_16")
    meta = {"output": str(path), **meta}
    for role, own in (clip_meta or {}).items():
        meta["clips"][role]["meta"] = own
    with open(Path(path).with_suffix(".json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
    return meta


# --- batch mode ---------------------------------------------------------------------------


PAIR_KEYS = ("a", "b", "relative_lu", "offset", "output", "a_lufs", "a_meta", "b_meta")


def read_pairs(path: str) -> list[dict]:
    """Rows of a CSV (header: a,b[,relative_lu,offset,output,a_lufs,a_meta,b_meta]) or a JSONL file."""
    rows = []
    try:
        # utf-8-sig: spreadsheet programs start their CSV files with a byte-order mark
        if path.endswith(".jsonl"):
            rows = [row for _, row in jsonl.records(path, MixError, encoding="utf-8-sig")]
        else:
            with open(path, encoding="utf-8-sig", newline="") as f:
                rows = list(csv.DictReader(f))
    except FileNotFoundError:
        raise MixError(f"{path}: no such pairs file") from None
    if not rows:
        raise MixError(f"{path}: no pairs (a CSV needs a header line: a,b,relative_lu,offset)")
    for number, row in enumerate(rows, 1):
        unknown = sorted(set(row) - set(PAIR_KEYS)) if isinstance(row, dict) else None
        if unknown is None or unknown:
            # a misspelt relative_lu would otherwise be drawn at random without a word
            raise MixError(f"{path} row {number}: unknown {'keys ' + ', '.join(map(str, unknown)) if unknown else 'row'}; "
                           f"the keys are {', '.join(PAIR_KEYS)}")
    return rows


def _number(row: dict, key: str, where: str, draw) -> float:
    value = row.get(key)
    if value is None or value == "":
        return draw()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise MixError(f"{where}: {key}={value!r} is not a number") from None


def _clip_meta(value):
    if isinstance(value, str) and value.strip():
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value  # a plain-text description
    return value


def mix_pairs(pairs_path: str, output_dir: str, seed: int, lu_range: tuple[float, float],
              offset_range: tuple[float, float], sampling_rate: int | None = None) -> list[dict]:
    rows = read_pairs(pairs_path)
    base = Path(pairs_path).parent
    manifest = []
    for index, row in enumerate(rows):
        where = f"{pairs_path} row {index + 1}"
        if not row.get("a") or not row.get("b"):
            raise MixError(f"{where}: needs the clips a and b (paths, relative to the pairs file)")
        rng = np.random.default_rng([seed, index])
        relative_lu = _number(row, "relative_lu", where, lambda: float(rng.uniform(*lu_range)))  # noqa: B023 (called at once, inside this iteration)
        offset = _number(row, "offset", where, lambda: float(rng.uniform(*offset_range)))  # noqa: B023 (called at once, inside this iteration)
        a_lufs = _number(row, "a_lufs", where, lambda: None)
        output = Path(output_dir) / (row.get("output") or f"mix_{index:05d}.wav")
        try:
            samples, rate, meta = mix(str(base / row["a"]), str(base / row["b"]), relative_lu, offset, sampling_rate,
                                      a_lufs)
        except MixError as e:
            raise MixError(f"{where}: {e}") from None
        meta = write(samples, rate, {"seed": seed, "row": index + 1, **meta}, str(output),
                     {role: _clip_meta(row.get(f"{role}_meta")) for role in ("a", "b")})
        manifest.append(meta)
    with open(Path(output_dir) / "mixes.jsonl", "w", encoding="utf-8") as f:
        for meta in manifest:
            f.write(json.dumps(meta, ensure_ascii=False) + "\n")
    return manifest


def _seed(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"the seed must be 0 or more, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lm-eval-audio mix",
        description="Mix two clips at a loudness difference (LU, ITU-R BS.1770) and a time offset, writing the "
                    "mix and its meta-information; or many pairs from a CSV/JSONL file.",
    )
    p.add_argument("a", nargs="?", help="first clip (A)")
    p.add_argument("b", nargs="?", help="second clip (B)")
    p.add_argument("--relative_lu", type=float, help="loudness of B minus loudness of A, in LU")
    p.add_argument("--offset", type=float, default=0.0, help="B starts this many seconds after A (negative: before)")
    p.add_argument("--output", help="the mixed WAV (its meta-information goes beside it as .json)")
    p.add_argument("--a_lufs", type=float, default=None, help="set A to this loudness first (default: keep A's level)")
    p.add_argument("--a_meta", default=None, help="A's own meta-information (JSON or text), copied into the meta")
    p.add_argument("--b_meta", default=None, help="B's own meta-information (JSON or text)")
    p.add_argument("--pairs", help="CSV or JSONL of pairs: a, b, and optionally relative_lu, offset, output, a_lufs, "
                                   "a_meta, b_meta")
    p.add_argument("--output_dir", help="folder for the mixes of --pairs, with mixes.jsonl listing them")
    p.add_argument("--seed", type=_seed, default=0, help="draws a pair's missing relative_lu / offset (default 0)")
    p.add_argument("--lu_range", type=float, nargs=2, default=DEFAULT_LU_RANGE, metavar=("LOW", "HIGH"))
    p.add_argument("--offset_range", type=float, nargs=2, default=DEFAULT_OFFSET_RANGE, metavar=("LOW", "HIGH"))
    p.add_argument("--sampling_rate", type=int, default=None, help="rate of the mix (default: the higher of the two)")
    return p


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.pairs:
            if args.a or args.b or not args.output_dir:
                parser.error("--pairs takes --output_dir and no clip arguments")
            manifest = mix_pairs(args.pairs, args.output_dir, args.seed, tuple(args.lu_range),
                                 tuple(args.offset_range), args.sampling_rate)
            peaks = sum(m["peak_normalization"]["applied"] for m in manifest)
            print(f"{len(manifest)} mixes written to {args.output_dir} (listed in mixes.jsonl); "
                  f"{peaks} needed peak normalization")
            return
        if not (args.a and args.b and args.output) or args.relative_lu is None:
            parser.error("give two clips, --relative_lu and --output (or --pairs FILE --output_dir DIR)")
        samples, rate, meta = mix(args.a, args.b, args.relative_lu, args.offset, args.sampling_rate, args.a_lufs)
        clip_meta = {role: _clip_meta(value) for role, value in (("a", args.a_meta), ("b", args.b_meta))
                     if value is not None}
        meta = write(samples, rate, meta, args.output, clip_meta)
    except MixError as e:
        sys.exit(f"mix: {e}")
    a, b = meta["clips"]["a"], meta["clips"]["b"]
    print(f"{args.output}: B is {meta['relative_lu']:+g} LU against A (A {a['loudness_lufs_in_mix']:.1f} LUFS, "
          f"B {b['loudness_lufs_in_mix']:.1f} LUFS in the mix); {meta['first']} first, offset {meta['offset_seconds']:g} s "
          f"({meta['offset_samples']} samples); peak normalization "
          f"{'%.2f dB' % meta['peak_normalization']['gain_db'] if meta['peak_normalization']['applied'] else 'not needed'}")
