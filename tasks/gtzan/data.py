"""GTZAN's clips as published on the Hub in plain data files: ``sanchit-gandhi/gtzan`` (the copy an earlier
embeddings-benchmark/mteb ``GTZANGenre`` task read at revision 4bd8571, label column ``genre``, split ``train``; later
versions read silky1708/GTZAN-Genre): ``data/train-*.parquet`` (shard names not confirmed against the Hub) with
``audio`` (an ``Audio`` cell) and ``genre`` (a ``ClassLabel``: its index 0-9 in the alphabetical order below, or the
name). 999 clips: GTZAN's 1,000 less ``jazz.00054``, which cannot be decoded (a third-party check of that revision;
see README.md). GTZAN has no official test split; every clip is evaluated.

No evaluation behind a model card's GTZAN number publishes its prompt or reading (UltraEval-Audio publishes one no
card was found to quote; README.md): the genre question and the single-target reading are MiDashengLM's
(xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:14, its genre tagging row; evaluate/compute_at_acc.py), the
nearest published evaluation of a genre-tagging task; the results say so (``unpublished_prompt``).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="GTZAN", variable="GTZAN_DATA_DIR", metadata_key="gtzan_data_dir", hub="sanchit-gandhi/gtzan",
    holds="data/train-*.parquet (columns audio, genre)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")
# xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:14 (MiDashengLM's genre-tagging question)
PROMPT = "What's the music genre?"


def genre(value) -> str | None:
    """The genre of a ``genre`` cell: a ClassLabel index (0-9) or the name itself."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(GENRES):
        return GENRES[value]
    return value if value in GENRES else None


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "GTZAN" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, "data/train-*.parquet", label, notes)
    instruction = speech_sets.asked(notes, label, metadata, PROMPT)
    if instruction == PROMPT:
        notes.note("unpublished_prompt", label, "no GTZAN question behind a model card's number is published: "
                   "MiDashengLM's genre question for Free Music Archive (xiaomi-research/dasheng-lm@2e3f2b0 "
                   "evaluate/prompt.csv:14), read by its compute_at_acc.py rule")
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, ["genre"], "audio", speech_sets.SpeechDataError, SPEC.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            name = genre(row.get("genre"))
            if name is None:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"genre {row.get('genre')!r} is none of GTZAN's "
                            f"ten (0-9 or {', '.join(GENRES)})")
                continue
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", name, "", instruction, audio_table=str(path),
                audio_row=audio_row, audio_problem=problem or ""))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
