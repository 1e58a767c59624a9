"""What a loader needs to know of a table's ``Audio`` cells before the model runs: each clip's length, or why it
cannot be played (null, neither bytes nor a path, undecodable, zero samples), read in place from a pyarrow column
(``tables`` reads the cells; this reads their headers, and decodes where libsndfile cannot)."""

from __future__ import annotations


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
