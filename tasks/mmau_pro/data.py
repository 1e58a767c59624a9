"""MMAU-Pro data in its official layout: HF ``gamma-lab-umd/MMAU-Pro``'s ``test.parquet`` (5,305 rows) beside the
``data/`` folder that ``data.zip`` unpacks to.

A row holds ``id``, ``audio_path`` (a list of paths relative to the snapshot folder, ``data/<name>.wav``; more than
one for the multi-audio items), ``question``, ``choices`` (a list, empty for most open-ended rows), ``answer``
(null for instruction following), ``category``, ``sub-cat``, ``task_identifier`` and ``kwargs`` (the
instruction-following check and its parameters), among others. The official script
(sonalkum/MMAUPro@960e93a4, ``evaluate_mmau_pro_comprehensive.py``) scores by ``category``: ``open`` by an LLM
judge, ``instruction following`` by rule checks, every other category as closed multiple choice, where rows with
fewer than two choices are dropped.

Clips: every clip of a row reaches the model, in the row's order (``mmau_pro_clips: all``, the default; the
benchmark publishes no other convention). arXiv 2604.24401 gave its models only the first clip
(``get_sample_audio_path``); ``--metadata '{"mmau_pro_clips": "first"}'`` reproduces that, and the results record
which was used (``lm_eval_audio_data.mmau_pro_clips``).
"""

from __future__ import annotations

import functools
import json
import logging
from collections import Counter
from pathlib import Path

from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.choice_layout import HubLayout, Layout, LayoutDataError, LeftOut, TaskDataAbsent
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.benchmarks.task_settings import one_of
from lm_eval_audio.storage.data_paths import audio_file_problem, leaves_folder

log = logging.getLogger("lm_eval.audio.mmau_pro")

OPEN, INSTRUCTIONS = "open", "instruction following"
CLOSED_CATEGORIES = ("sound", "music", "speech", "multi", "spatial_audio", "voice_chat", "sound_speech",
                     "sound_music", "music_speech", "sound_music_speech")
CATEGORIES = (*CLOSED_CATEGORIES, OPEN, INSTRUCTIONS)
# A task's ``categories`` may name this: every other category, which the script scores as closed questions under
# their own name and counts in its overall number (mmau_pro_other_closed; none in the published parquet).
OTHER_CLOSED = "other closed"
CLIPS = ("all", "first")
LAYOUT = Layout(
    DataSpec(
        "MMAU-Pro", "MMAU_PRO_DATA_DIR", "mmau_pro_data_dir", sample=Path(__file__).resolve().parent / "sample_data",
        holds=("test.parquet",),
        download="Download test.parquet and data.zip from huggingface.co/datasets/gamma-lab-umd/MMAU-Pro and unzip "
        "data.zip beside the parquet (data/<name>.wav).",
        # HF gamma-lab-umd/MMAU-Pro: test.parquet beside data.zip (about 47.5 GB), which unzips to data/<name>.wav
        hub=HubLayout("gamma-lab-umd/MMAU-Pro", "data.zip", "data"), advice=choice_layout.advice,
        error=LayoutDataError),
    "audio_path", {"category": CATEGORIES},
)
META_FILE = LAYOUT.meta_files[0]
OPEN_PROMPT_CLOSING = "Provide a detailed answer:"  # arXiv 2604.24401, scripts/mmau_pro/utils.py
CLOSED_PROMPT_CLOSING = "Answer with the correct option text (you may include the letter)."  # the same file


def sample_root() -> Path:
    return choice_layout.sample_root(LAYOUT)


def data_source(metadata: dict, sample: bool = False):
    return choice_layout.data_source(LAYOUT, metadata, sample)


def check_snapshot(metadata: dict) -> None:
    choice_layout.check_snapshot(LAYOUT, metadata)


@functools.lru_cache(maxsize=2)
def _read(path: str, mtime_ns: int) -> tuple:
    import pyarrow.parquet as pq

    try:
        return tuple(pq.read_table(path).to_pylist())
    except Exception as e:  # pyarrow raises several kinds for a damaged file
        raise LayoutDataError(f"{path} cannot be read as parquet ({e}); download it again") from None


def read_rows(root: Path) -> tuple:
    path = choice_layout.meta_path(LAYOUT, root)
    return _read(str(path), path.stat().st_mtime_ns)


class NoOtherCategories(TaskDataAbsent):
    """mmau_pro_other_closed without rows, as with the published data: left out of its group quietly, and the group
    is not partial for it."""

    expected_absent = True


def kind_of(category: str) -> str:
    """How the official script scores a category: open, instruction following, or closed (any other)."""
    return category if category in (OPEN, INSTRUCTIONS) else "closed"


def _kwargs(value) -> dict:
    """An item's check parameters as a dict: a parquet struct or a JSON string. A struct's absent fields stay
    None, as the official script reads them through pandas: its ``kwargs.get("N", 0)`` then gives None, not the
    default (``Number Bullets`` with a null N fails any answer; a null N2 of a range check stops the script, and
    the item counts as failed: ``scoring.process_instructions``)."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            raise LayoutDataError(f"kwargs {value!r} is not JSON") from None
    return dict(value or {})


def _clips(row: dict) -> list[str]:
    paths = row.get("audio_path")
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        raise LayoutDataError(f"audio_path must be a non-empty list of paths, got {paths!r}")
    for path in paths:
        if leaves_folder(path):
            raise LayoutDataError(f"audio_path {path!r} leads outside the snapshot folder: refused")
    return paths


def _problem(row: dict) -> str | None:
    missing = [k for k in ("id", "question", "category", "audio_path") if row.get(k) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    try:
        _clips(row)
        _kwargs(row.get("kwargs"))
    except LayoutDataError as e:
        return str(e)
    kind = kind_of(row["category"])
    choices = row.get("choices")
    if kind == "closed":
        if not isinstance(choices, list) or len(choices) <= 1:
            return f"a closed question needs at least two choices, got {choices!r} (the official script drops it too)"
    if kind == OPEN and row.get("answer") is None:
        return "an open question lacks its reference answer"
    return None


def clips_setting(metadata: dict) -> str:
    return one_of(metadata, "mmau_pro_clips", "all", CLIPS, LayoutDataError,
                  "give all (every clip of a row, the default) or first (the first clip only, as arXiv 2604.24401 did)")


def load_items(root: Path, categories: list[str], eval_task: str, clips: str = "all", *,
               notes: DataNotes) -> list[dict]:
    """The documents of one lm-eval task: the rows of ``categories`` (``OTHER_CLOSED``: of any category not in
    ``CATEGORIES``); what cannot be used, on ``notes``."""
    rows = read_rows(root)
    notes.note("mmau_pro_clips", eval_task, clips)
    unknown = Counter(str(r.get("category")) for r in rows if r.get("category") not in CATEGORIES)
    if unknown:
        notes.note("unknown_group_values", f"{root / META_FILE}:category", dict(unknown))
        notes.warn_once(("mmau_pro_unknown_categories", str(root)), log,
                        "%s: %d row(s) have a category none of the published ones (%s): scored as closed questions "
                        "under their own category by mmau_pro_other_closed, and in the overall number, as the "
                        "official script scores them; known: %s", root / META_FILE, sum(unknown.values()),
                        ", ".join(f"{c!r} ({n})" for c, n in unknown.items()), ", ".join(CATEGORIES))

    def wanted(category) -> bool:
        return category in categories or (OTHER_CLOSED in categories and category is not None
                                          and category not in CATEGORIES)

    docs, invalid, no_audio = [], LeftOut(eval_task, "row", notes), 0
    for index, row in enumerate(rows):
        if not wanted(row.get("category")):
            continue
        problem = _problem(row)
        if problem:
            invalid.add(index, row.get("id"), problem)
            continue
        paths = _clips(row)
        audio = [str(root / p) for p in (paths[:1] if clips == "first" else paths)]
        problem = "; ".join(filter(None, map(audio_file_problem, audio)))
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{eval_task}/{row['id']}", problem)
            log.warning("%s: id %s: %s; the item is not run, and is counted in audio_missing", eval_task, row["id"],
                        problem)
        answer = row.get("answer")
        if answer is None and kind_of(row["category"]) == "closed":
            # The script compares the matched choice with a null answer: always wrong, and counted so here.
            notes.note("answer_missing", f"{eval_task}/{row['id']}", "a closed question without its answer: scored wrong")
        docs.append({
            "doc_id": len(docs),
            "uniq_id": str(row["id"]),
            "question": str(row["question"]),
            "choices": [str(c) for c in row.get("choices") or []],
            "answer": "" if answer is None else str(answer),
            "category": row["category"],
            "kind": kind_of(row["category"]),
            "sub_category": str(row.get("sub-cat")),
            "task_identifier": str(row.get("task_identifier") or ""),
            "kwargs": json.dumps(_kwargs(row.get("kwargs")), sort_keys=True),
            "clips_in_row": len(paths),
            "audio": audio,
            "audio_problem": problem,
        })
    invalid.warn(root / META_FILE)
    if not docs and list(categories) == [OTHER_CLOSED]:
        raise NoOtherCategories(f"{eval_task}: {root / META_FILE} has no rows of a category other than "
                                f"{', '.join(CATEGORIES)} (the published parquet has none)")
    if not docs:
        notes.note("absent_tasks", eval_task, f"{root / META_FILE} has no usable rows of {', '.join(categories)}")
        raise TaskDataAbsent(f"{eval_task}: {root / META_FILE} has no usable rows of category "
                             f"{', '.join(categories)}; use the complete official test.parquet")
    multi = sum(d["clips_in_row"] > 1 for d in docs)
    log.info("%s: %d item(s) from %s%s%s", eval_task, len(docs), root / META_FILE,
             f", {multi} with several clips ({'all' if clips == 'all' else 'the first'} given)" if multi else "",
             f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs


def prompt(doc: dict) -> str:
    """arXiv 2604.24401's prompts (MMAU-Pro publishes none): closed questions with their options, open ones
    asking for a detailed answer, instruction-following ones as the bare question."""
    from lm_eval_audio.metrics.choice_matching import mcq_prompt

    if doc["kind"] == "closed":
        return mcq_prompt(doc["question"], doc["choices"], CLOSED_PROMPT_CLOSING)
    if doc["kind"] == OPEN:
        return f"{doc['question']}\n\n{OPEN_PROMPT_CLOSING}"
    return doc["question"]
