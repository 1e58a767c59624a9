"""OpenAudioBench's data in its official layout: the Hub dataset ``baichuan-inc/OpenAudioBench`` (commit 98f8fa0, its
one upload), per subset ``eval_datas/<subset>/<subset>.csv`` beside ``eval_datas/<subset>/audios/<subset>_<n>.mp3``
(the file list of huggingface.co/datasets/baichuan-inc/OpenAudioBench/commit/98f8fa0d5fa7e530ec8e6f097b55f10b003d111b).
The clip of a row is ``audios/<audio_filename>``; the columns each subset's evaluation reads (its question, its
reference) are those MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:136-161 reads, and the Hub's
own eval scripts (as VoiceAgentGroup/AudioCompass@bafbcb0 src/benchmarks/openaudiobench/evaluator/*.py copies them)
put into the judge prompts. Items (the dataset card): Reasoning QA 202, Llama Questions 300, Web Questions 1,000,
TriviaQA 1,000, AlpacaEval 199; 2,701 in all (baichuan-inc/Baichuan-Audio@805d456 README.md:120).

A run fetches the subset's CSV, then only the clips of the rows it evaluates. ``OPENAUDIOBENCH_DATA_DIR`` (or
``openaudiobench_data_dir`` in ``--metadata``) names a local copy in the same layout (the repository's root, which
holds ``eval_datas/``). The model hears the clip and is given no text (the official inference sends the audio
alone: AudioCompass's ``generate_a2t(audio)``, Kimi-Audio-Evalkit's ``"question": ""``).
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import ADVICE, DataSpec, resolve
from lm_eval_audio.storage.data_paths import leaves_folder

log = logging.getLogger("lm_eval.audio.openaudiobench")

# subset -> (the question column, the reference column): Kimi-Audio-Evalkit@4080c49 download_benchmark.py:136-155
COLUMNS = {
    "alpaca_eval": ("instruction", "output"),  # the reference is not shown to the judge (it rates the answer alone)
    "llama_questions": ("Questions", "Answer"),
    "reasoning_qa": ("Prompt", "参考答案"),
    "trivia_qa": ("question", "answer_normalized_aliases"),
    "web_questions": ("question", "answers"),
}
AUDIO_COLUMN = "audio_filename"
SUBSETS = tuple(COLUMNS)


class OpenAudioBenchDataError(LayoutDataError):
    """OpenAudioBench data that cannot be used; the message names the file and the fix."""


SPEC = DataSpec(
    "OpenAudioBench", "OPENAUDIOBENCH_DATA_DIR", "openaudiobench_data_dir", hub="baichuan-inc/OpenAudioBench",
    sample=Path(__file__).resolve().parent / "sample_data",
    holds="eval_datas/<subset>/<subset>.csv and eval_datas/<subset>/audios/<audio_filename>",
    local_dir="/data/OpenAudioBench", error=OpenAudioBenchDataError,
    advice=ADVICE.replace("fetch it from the Hub", "fetch what they need from the Hub"))


def csv_path(subset: str) -> str:
    return f"eval_datas/{subset}/{subset}.csv"


def _rows(path: Path) -> tuple[list[str], list[dict]]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as f:  # pandas' read_csv, as the official scripts read it
            reader = csv.DictReader(f)
            return list(reader.fieldnames or []), list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise OpenAudioBenchDataError(f"OpenAudioBench: {path} cannot be read as a UTF-8 CSV ({e}); download it "
                                      "again. " + SPEC.help()) from None


def load_docs(subset: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The rows of ``subset``; what cannot be used, on ``notes``."""
    if subset not in COLUMNS:
        raise OpenAudioBenchDataError(f"OpenAudioBench has no subset {subset!r}; its subsets: {', '.join(SUBSETS)}")
    label = f"OpenAudioBench {subset}" + (" sample" if sample else "")
    source = resolve(SPEC, metadata, sample)
    rel = csv_path(subset)
    if source.snapshot is not None:
        if rel not in source.snapshot.files:
            raise OpenAudioBenchDataError(f"{source.snapshot.label} lists no {rel}: not the layout this plugin reads. "
                                          + SPEC.help())
        source.snapshot.fetch([source.snapshot.files[rel]], "openaudiobench", needed_to_plan=True)
    path = source.root / rel
    if not path.is_file():
        raise OpenAudioBenchDataError(f"OpenAudioBench folder {str(source.root)!r} holds no {rel}. " + SPEC.help())
    notes.note("sources", label, source.reading([path]).record())
    question, reference = COLUMNS[subset]
    header, rows = _rows(path)
    lacking = [c for c in (AUDIO_COLUMN, question, reference) if c not in header]
    if lacking:
        raise OpenAudioBenchDataError(f"{path} has no column {', '.join(map(repr, lacking))} (its columns: "
                                      f"{', '.join(header)}): not {SPEC.repo}'s {subset}; download it again")
    docs, invalid, no_audio = [], LeftOut(label, "row", notes), 0
    for index, row in enumerate(rows):
        name = (row.get(AUDIO_COLUMN) or "").strip()
        empty = [c for c in (AUDIO_COLUMN, question) if not (row.get(c) or "").strip()]
        if empty:
            invalid.add(index, name or index, f"empty {', '.join(empty)}")
            continue
        if leaves_folder(name):
            invalid.add(index, name, f"audio_filename {name!r} leads outside the subset's audios/ folder: refused")
            continue
        audio = path.parent / "audios" / name
        problem = source.problem(audio, notes)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{label}/{name}", problem)
            log.warning("%s: %s: %s; the model is not run on it, it is counted in audio_missing and left out of the "
                        "score", label, name, problem)
        docs.append({"doc_id": len(docs), "uniq_id": f"{subset}/{name}", "subset": subset,
                     "question": row[question], "reference": row.get(reference) or "", "audio": [str(audio)],
                     "audio_problem": problem})
    invalid.warn(path)
    if not docs:
        raise OpenAudioBenchDataError(f"{label}: {path} lists no usable row; use the complete official CSV")
    log.info("%s: %d item(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs
