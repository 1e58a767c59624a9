"""AudioCaps's captioning test set as read from the Hub: the TwinkStart/AudioCaps copy UltraEval-Audio reads (OpenBMB/UltraEval-Audio@9b69da6 registry/dataset/AudioCaps.yaml:5-7: split ``test``, ``ref_col: caption``; its Coco aggregation, audio_evals/agg/base.py:141-155, takes ``caption`` as a list of references or one string).
Files ``data/test-*.parquet``; column ``audio`` (an ``Audio`` cell) and ``caption`` (the reference captions: a list,
or one string read as a list of one). 975 clips, 5 reference(s) each: cdjkim/audiocaps dataset/test.csv (Kim et al., NAACL 2019): 975 clips, 5 captions each (4,875 rows); a Hub copy holds the clips YouTube still had.

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
    name="AudioCaps captioning", variable="AUDIOCAPS_CAPTION_DATA_DIR", metadata_key="audiocaps_caption_data_dir", hub="TwinkStart/AudioCaps",
    holds="data/test-*.parquet (columns audio, caption)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "caption"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9


def references(value) -> list[str] | None:
    """The reference captions of a cell: a list of non-empty strings (one string read as a list of one), or None."""
    refs = [value] if isinstance(value, str) else value
    if not isinstance(refs, (list, tuple)) or not refs or not all(isinstance(r, str) and r.strip() for r in refs):
        return None
    return list(refs)


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "AudioCaps captioning test" + (" sample" if sample else "")
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
