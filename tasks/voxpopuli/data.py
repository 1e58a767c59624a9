"""VoxPopuli's English test set in its official layout: the Hub dataset ``facebook/voxpopuli``, the transcripts
``data/en/asr_test.tsv`` (tab-separated, with a header: ``id``, ``raw_text``, ``normalized_text``, ``speaker_id``,
``gender``, ``is_gold_transcript``, ``accent``, read by name) beside the clips, ``data/en/test/test_part_<n>.tar.gz``
(``<id>.wav`` inside, matched to the rows by base name as ``voxpopuli.py`` matches them). 1,842 utterances.

The reference is ``normalized_text`` (what UltraEval-Audio, AU-Harness and lmms-eval score against), scored as
AudioBench scores its English ASR sets (rule ``whisper_english_spelled_numbers``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="VoxPopuli", variable="VOXPOPULI_DATA_DIR", metadata_key="voxpopuli_data_dir",
    hub="facebook/voxpopuli", holds="data/en/asr_test.tsv and data/en/test/test_part_*.tar.gz",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
TRANSCRIPTS, ARCHIVES = "data/en/asr_test.tsv", "data/en/test/test_part_*.tar.gz"
SCORING = "whisper_english_spelled_numbers"
# Kimi-Audio-Evalkit (MoonshotAI/Kimi-Audio-Evalkit@4080c49, data/download_benchmark.py): its English ASR question
PROMPT = "Please transcribe this audio."
# The model authors' prompts (--model_args ...,prompts=authors): their English speech recognition prompts
# (Kimi-Audio-Evalkit runs no VoxPopuli set: none of its own)
AUTHORS_PROMPTS = author_prompts.speech_recognition("en", "English")


def read_transcripts(path: Path, invalid: LeftOut) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in ("id", "normalized_text") if c not in (reader.fieldnames or [])]
        if missing:
            raise speech_sets.SpeechDataError(f"{path} lacks the column(s) {', '.join(missing)} of VoxPopuli's "
                                              f"asr_test.tsv (it has {reader.fieldnames}); download it again")
        rows = []
        for number, row in enumerate(reader, 2):
            if not (row.get("normalized_text") or "").strip():
                invalid.add(number, row.get("id"), "empty normalized_text")
                continue
            rows.append(row)
    return rows


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "VoxPopuli en test" + (" sample" if sample else "")
    root, snapshot = speech_sets.source(SPEC, metadata, sample)
    tsv, = speech_sets.files(SPEC, root, snapshot, TRANSCRIPTS, label, transcript=True)
    archives = ([root / r.path for r in snapshot.matching(ARCHIVES)] if snapshot is not None
                else sorted(root.glob(ARCHIVES)))
    if not archives:
        raise speech_sets.SpeechDataError(f"{label}: {root} holds no {ARCHIVES}. " + SPEC.help())
    speech_sets.record(notes, label, root, snapshot, [tsv])
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "VoxPopuli", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default, SCORING)
    clips: dict[str, Path] = {}
    for archive in archives:
        folder = speech_sets.archive_clips(snapshot, archive, "en-" + archive.name.removesuffix(".tar.gz"), label)
        found = {p.name: p for p in folder.iterdir()}
        twice = sorted(found.keys() & clips.keys())
        if twice:
            raise speech_sets.SpeechDataError(f"{label}: {archive.name} and an earlier {ARCHIVES} both hold "
                                              f"{twice[:3]}: which clip a row means cannot be told; download them again")
        clips.update(found)
    invalid = LeftOut(label, "line", notes)
    docs = []
    for row in read_transcripts(tsv, invalid):
        clip = clips.get(f"{row['id']}.wav")
        problem = "" if clip else f"missing audio file: {row['id']}.wav is in none of {ARCHIVES}"
        docs.append(speech_sets.document(
            len(docs), row["id"], row["normalized_text"], SCORING, instruction, audio_path=str(clip or row["id"]),
            audio_problem=problem or speech_sets.clip_problem(clip), raw_text=row.get("raw_text") or "",
            speaker_id=row.get("speaker_id") or "", gender=row.get("gender") or "", language="en"))
    invalid.warn(tsv)
    return speech_sets.checked(docs, label, notes)
