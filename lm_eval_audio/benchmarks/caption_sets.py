"""Captioning sets published as parquet shards of one split: an ``audio`` cell and a column of reference captions
per clip (a list of them, or one string read as a list of one). A folder declares its ``DataSpec``, the column and
the prompt; its documents carry every reference (``references``), as the corpus captioning metrics need them."""

from __future__ import annotations

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SHARDS = "data/test-*.parquet"


def references(value) -> list[str] | None:
    """The reference captions of a cell: a list of non-empty strings (one string read as a list of one), or None."""
    refs = [value] if isinstance(value, str) else value
    if not isinstance(refs, (list, tuple)) or not refs or not all(isinstance(r, str) and r.strip() for r in refs):
        return None
    return list(refs)


def load_docs(spec: DataSpec, label: str, column: str, prompt: str, metadata: dict, sample: bool, *,
              notes: DataNotes) -> list[dict]:
    """The documents of ``spec``'s test shards (``label`` names the set in notes and errors): a row whose
    ``column`` holds no caption is left out and counted; a missing clip stays, scored as the empty caption."""
    shards = speech_sets.table_shards(spec, metadata, sample, SHARDS, label, notes)
    instruction = speech_sets.asked(notes, label, metadata, prompt)
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, [column], "audio", speech_sets.SpeechDataError, spec.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            refs = references(row.get(column))
            if refs is None:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"{column} holds no reference caption "
                            f"({row.get(column)!r}): download the file again")
                continue
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", refs[0], "", instruction, audio_table=str(path),
                audio_row=audio_row, audio_problem=problem or "", references=refs))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored as an empty caption")
