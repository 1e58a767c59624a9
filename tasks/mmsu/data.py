"""MMSU's data in its official layout: the Hub dataset ``ddwang2000/MMSU``, one ``train`` split of 5,000 rows as
parquet shards ``data/train-0000i-of-0000N.parquet`` (what ``mmsu_inference.py`` loads with ``load_dataset``).

A row holds ``id`` (``<task_name>_<uuid>``), ``task_name`` (47 tasks), ``audio`` (a Hugging Face ``Audio`` cell),
``question``, ``choice_a`` .. ``choice_d`` (two of them null in the two-option items, in any position),
``answer_gt`` (the text of the right choice, not a letter), ``category`` (Perception, Reasoning),
``sub-category`` (Linguistics, Paralinguistics), ``sub-sub-category`` and ``linguistics_sub_discipline``.

The prompt is the official inference script's (github.com/dingdongwang/MMSU@217d1d3, ``mmsu_inference.py``),
benchmark data reproduced exactly, a null choice written as ``None`` as its f-string writes it;
``--metadata '{"mmsu_prompt": "paper"}'`` gives the paper-era one (dingdongwang/MMSU_Bench@f0ef334).
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import OwnFormat, QWEN3_OMNI_OWN_FORMAT_SOURCE
from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.task_settings import one_of
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN3_OMNI

log = logging.getLogger("lm_eval.audio.mmsu")

SHARDS = "data/train-*.parquet"
LETTERS = ("A", "B", "C", "D")
COLUMNS = ("id", "task_name", "question", "choice_a", "choice_b", "choice_c", "choice_d", "answer_gt", "category",
           "sub-category", "sub-sub-category", "linguistics_sub_discipline")
CATEGORIES = ("Perception", "Reasoning")
PROMPTS = {
    # dingdongwang/MMSU@217d1d3 (2026-02-12), mmsu_inference.py: question_prompts
    "current": "Choose the most suitable answer from options A, B, C, and D. You must respond with only A, B, C, or D.",
    # dingdongwang/MMSU_Bench@f0ef334 (the paper's repository, 2025-05), mmsu_inference.py: question_prompts
    "paper": "Choose the most suitable answer from options A, B, C, and D to respond the question in next line, "
             "**you should only choose A or B or C or D.** Do not provide any additional explanations or content.",
}
# The model authors' prompts (--model_args ...,prompts=authors): none published beside MMSU's own
AUTHORS_PROMPTS = {
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation": benchmarks with their own formatting keep it
    QWEN3_OMNI: OwnFormat(QWEN3_OMNI_OWN_FORMAT_SOURCE),
}


class MMSUDataError(LayoutDataError):
    """MMSU data that cannot be used; the message names the file and the fix."""


DATA = DataSpec("MMSU", "MMSU_DATA_DIR", "mmsu_data_dir", hub="ddwang2000/MMSU", holds=SHARDS,
                sample=Path(__file__).resolve().parent / "sample_data", local_dir="/data/mmsu", error=MMSUDataError)
REPO, HELP = DATA.repo, DATA.help()


def sample_root() -> Path:
    return DATA.sample


def prompt_kind(metadata: dict) -> str:
    return one_of(metadata, "mmsu_prompt", "current", PROMPTS, MMSUDataError,
                  "give current (dingdongwang/MMSU's mmsu_inference.py, the default) or paper (the paper's "
                  "repository, dingdongwang/MMSU_Bench)")


def shards(root: Path) -> list[Path]:
    files = sorted(root.glob(SHARDS))
    if not files:
        raise MMSUDataError(f"mmsu: {root} holds no {SHARDS}: not a snapshot of {REPO}. " + HELP)
    return files


def data_source(metadata: dict, sample: bool) -> DataSource:
    source = resolve(DATA, metadata, sample)
    snapshot = source.snapshot
    if snapshot is None:
        return source.reading(shards(source.root))
    files = snapshot.matching(SHARDS)
    if not files:
        raise MMSUDataError(f"mmsu: {snapshot.label} lists no {SHARDS}: pin a revision that has them (data_revision=)")
    snapshot.fetch(files, "mmsu")  # the clips are inside the shards: a category's rows need every shard
    return DataSource(snapshot.root, snapshot, tuple(f.path for f in files))


def _problem(row: dict) -> str | None:
    missing = [c for c in ("id", "question", "answer_gt", "category") if row.get(c) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    if sum(row.get(f"choice_{x}") is not None for x in "abcd") < 2:
        return "fewer than two choices"
    return None


def load_docs(where: dict, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The rows whose fields equal ``where`` (``{"category": "Perception"}``); what cannot be used, on ``notes``."""
    kind = prompt_kind(metadata)
    source = data_source(metadata, sample)
    notes.note("sources", "MMSU" + (" sample" if sample else ""), source.record())
    label = "MMSU, " + ", ".join(f"{k}={v}" for k, v in where.items())
    notes.note("mmsu_prompt", label, kind)
    author_prompts.authors_text(notes, label, metadata, AUTHORS_PROMPTS, "MMSU", overridable=False)  # recorded only
    docs, invalid, no_audio, index = [], LeftOut(label, "row", notes), 0, 0
    unknown: dict[str, int] = {}  # rows of a category no task reads: not dropped unsaid
    for path in shards(source.root):
        rows, clips = table_checks.parquet_rows(path, list(COLUMNS), "audio", MMSUDataError, REPO)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            if row.get("category") not in CATEGORIES:
                unknown[str(row.get("category"))] = unknown.get(str(row.get("category")), 0) + 1
            if any(row.get(k) != v for k, v in where.items()):
                continue
            bad = _problem(row)
            if bad:
                invalid.add(row_index, row.get("id"), bad)
                continue
            if row["answer_gt"] not in [row.get(f"choice_{x}") for x in "abcd"]:
                # the script still scores it, always wrong: so do we, and say so
                notes.note("answer_not_in_choices", f"{label}/{row['id']}", row["answer_gt"])
                log.warning("%s: id %s: answer_gt %r is none of its choices: scored wrong, as the script scores "
                            "it", label, row["id"], row["answer_gt"])
            if problem:
                no_audio += 1
                notes.note("unusable_audio", f"{label}/{row['id']}", problem)
                log.warning("%s: id %s: %s; the model is not run on it, it is counted in audio_missing and "
                            "scored wrong", label, row["id"], problem)
            docs.append({
                "doc_id": len(docs),
                "uniq_id": str(row["id"]),
                "question": str(row["question"]),
                # None stays None: the prompt writes it "None", as the official f-string does
                "choices": [row[f"choice_{x}"] for x in "abcd"],
                "answer": str(row["answer_gt"]),
                "category": str(row["category"]),
                "sub_category": str(row.get("sub-category")),
                "sub_sub_category": str(row.get("sub-sub-category")),
                "task_name": str(row.get("task_name")),
                "prompt_kind": kind,
                "audio_table": str(path),
                "audio_row": audio_row,
                "audio_problem": problem or "",
            })
    invalid.warn(label)
    if unknown:
        notes.note("unknown_group_values", f"{source.root / 'data'}:category", unknown)
        notes.warn_once(("mmsu_unknown_categories", str(source.root)), log, "%s: %d row(s) of a category no task reads "
                        "(%s; known: %s): not evaluated", source.root / "data", sum(unknown.values()),
                        ", ".join(f"{c!r} ({n})" for c, n in unknown.items()), ", ".join(CATEGORIES))
    if not docs:
        raise MMSUDataError(f"{label}: no usable rows in {source.root / 'data'}; use the complete official data")
    log.info("%s: %d item(s)%s", label, len(docs), f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs


def prompt(doc: dict) -> str:
    """``mmsu_inference.py``'s instruction: the prompt line, the question, the four lettered choices."""
    choices = "\n".join(f"{letter}. {choice}" for letter, choice in zip(LETTERS, doc["choices"]))
    return f"{PROMPTS[doc['prompt_kind']]}\n\nQuestion: {doc['question']}\n\n{choices}"


def doc_to_audio(doc: dict) -> list:
    return table_checks.clip(doc["audio_table"], doc["audio_row"], "audio", doc["audio_problem"])
