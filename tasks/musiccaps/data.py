"""MusicCaps's captioning test set as read from the Hub: assumed the CLAPv2 layout (``audio`` cell, ``raw_text`` list) of CLAPv2/Clotho: no peer evaluation reading a MusicCaps copy with audio was found (google/MusicCaps has no audio).
Files ``data/test-*.parquet``; column ``audio`` (an ``Audio`` cell) and ``raw_text`` (the reference captions: a list,
or one string read as a list of one). 2,858 clips, 1 reference(s) each: google/MusicCaps musiccaps-public.csv (Agostinelli et al., 2023, MusicLM): 5,521 clips, 2,858 of them ``is_audioset_eval``, one caption each; a Hub copy holds the clips YouTube still had.

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9), the one
text prompt a peer evaluation publishes for these sets (Qwen-Audio's base model is asked with special tokens,
``<|caption_clotho|>``, QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143, no text).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="MusicCaps captioning", variable="MUSICCAPS_DATA_DIR", metadata_key="musiccaps_data_dir", hub="CLAPv2/MusicCaps",
    holds="data/test-*.parquet (columns audio, raw_text)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "raw_text"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9


def references(value) -> list[str] | None:
    """The reference captions of a cell: a list of non-empty strings (one string read as a list of one), or None."""
    refs = [value] if isinstance(value, str) else value
    if not isinstance(refs, (list, tuple)) or not refs or not all(isinstance(r, str) and r.strip() for r in refs):
        return None
    return list(refs)


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "MusicCaps captioning test" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, "data/test-*.parquet", label, notes)
    instruction = speech_sets.asked(notes, label, metadata, PROMPT)
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, [REFERENCES], "audio", speech_sets.SpeechDataError, SPEC.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            refs = references(row.get(REFERENCES))
            if refs is None:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"{REFERENCES} holds no reference caption "
                            f"({row.get(REFERENCES)!r}): download the file again")
                continue
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", refs[0], "", instruction, audio_table=str(path),
                audio_row=audio_row, audio_problem=problem or "", references=refs))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored as an empty caption")
