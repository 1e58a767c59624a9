"""Big Bench Audio's data in its official layout: the Hub dataset ``ArtificialAnalysis/big_bench_audio``, an audio
folder: ``metadata.jsonl`` (one line per question: ``category``, ``official_answer``, ``file_name``, ``id``) beside
``data/question_<id>.mp3``. 1,000 questions, 250 from each of four Big Bench Hard tasks, read aloud by TTS voices.

A run fetches the metadata, then only the clips of the questions it evaluates (with ``--limit N``, those of the
first N of each task). ``BIGBENCH_AUDIO_DATA_DIR`` (or ``bigbench_audio_data_dir`` in ``--metadata``) names a
local copy in the same layout instead.

The dataset holds no text of the questions: the model hears the clip and is given no text (Artificial Analysis
publish no instruction for audio input), and the judge's "question, for reference only" is a transcript of the
clip (``judges``).
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import ADVICE, DataSpec, listed_source
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.storage import jsonl
from lm_eval_audio.storage.data_paths import leaves_folder

log = logging.getLogger("lm_eval.audio.bigbench_audio")

META = "metadata.jsonl"
CATEGORIES = ("formal_fallacies", "navigate", "object_counting", "web_of_lies")
FIELDS = ("id", "category", "official_answer", "file_name")


class BigBenchAudioDataError(LayoutDataError):
    """Big Bench Audio data that cannot be used; the message names the file and the fix."""


DATA = DataSpec(
    "Big Bench Audio", "BIGBENCH_AUDIO_DATA_DIR", "bigbench_audio_data_dir", hub="ArtificialAnalysis/big_bench_audio",
    sample=Path(__file__).resolve().parent / "sample_data", holds=f"{META} and data/question_<id>.mp3",
    local_dir="/data/big_bench_audio", error=BigBenchAudioDataError,
    advice=ADVICE.replace("fetch it from the Hub", "fetch what they need from the Hub"))


def sample_root() -> Path:
    return DATA.sample


def data_source(metadata: dict, sample: bool) -> DataSource:
    """The bundled sample, the local folder, or the Hub snapshot with its metadata fetched (the clips come when the
    run's documents are known)."""
    return listed_source(DATA, metadata, sample, META, "bigbench_audio")


def _problem(item) -> str | None:
    if not isinstance(item, dict):
        return "is not a JSON object"
    missing = [k for k in FIELDS if item.get(k) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    if leaves_folder(str(item["file_name"])):
        return f"file_name {item['file_name']!r} leads outside the snapshot folder: refused"
    return None


def load_docs(categories: list[str], metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The questions of ``categories``; what cannot be used, on ``notes``."""
    source = data_source(metadata, sample)
    notes.note("sources", "Big Bench Audio" + (" sample" if sample else ""), source.record())
    path = source.root / META
    items = [item for _, item in jsonl.records(str(path), BigBenchAudioDataError, "; download it again")]
    unknown = Counter(str(i.get("category")) for i in items if isinstance(i, dict) and i.get("category") not in CATEGORIES)
    if unknown:
        notes.note("unknown_group_values", f"{path}:category", dict(unknown))
        notes.warn_once(("bigbench_audio_unknown", str(path)), log, "%s: %d question(s) of a category no task reads "
                        "(%s; known: %s): not evaluated", path, sum(unknown.values()),
                        ", ".join(f"{c!r} ({n})" for c, n in unknown.items()), ", ".join(CATEGORIES))
    label = "Big Bench Audio, category=" + "|".join(categories)
    docs, invalid, no_audio = [], LeftOut(label, "line", notes), 0
    for index, item in enumerate(items):
        if not isinstance(item, dict) or item.get("category") not in categories:
            continue
        bad = _problem(item)
        if bad:
            invalid.add(index, item.get("id"), bad)
            continue
        audio = source.root / str(item["file_name"]).replace("\\/", "/")
        problem = source.problem(audio, notes)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{label}/{item['id']}", problem)
            log.warning("%s: id %s: %s; the model is not run on it, it is counted in audio_missing and scored "
                        "incorrect", label, item["id"], problem)
        docs.append({"doc_id": len(docs), "uniq_id": str(item["id"]), "category": str(item["category"]),
                     "answer": str(item["official_answer"]), "audio": [str(audio)], "audio_problem": problem})
    invalid.warn(path)
    if not docs:
        raise BigBenchAudioDataError(f"{label}: {path} lists no usable question; use the complete official metadata")
    log.info("%s: %d question(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs

