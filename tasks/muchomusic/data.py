"""MuChoMusic's data: its questions as the authors publish them, ``muchomusic.csv`` of the Hub dataset
``mulab-mir/muchomusic`` (no audio: ``question``, ``dataset`` (sdd or musiccaps), ``dataset_identifier``,
``correct_answer``, ``distractor_1_answer`` .. ``distractor_3_answer``, ``genre``, ``music_knowledge`` and
``music_reasoning`` as Python list literals), and the clips from the copy with audio the peer toolkits read,
``lmms-lab-audio/muchomusic`` (lmms-eval): ``data/test-*.parquet`` with ``context`` (an ``Audio`` cell),
``instruction`` (the question), ``choices`` (the four options lettered in one string, ``(A) ... (B) ...``, in an
order fixed once) and ``answer`` (the right one, ``(B) ...``). 1,187 questions.

Each clip's row is matched to its official row by question, right answer and the four options (a question alone
repeats across tracks); the official row gives its knowledge and reasoning dimensions, source and genre. Where a
question matches no row (or rows that disagree), it is scored in ``acc`` and ``ifr`` and ``knowledge_acc`` and
``reasoning_acc`` are NaN: a dimension score over the questions that could be told would look like the official
one and not be it. The options are asked in
the audio copy's fixed order: ``prepare_prompts.py`` shuffles them unseeded on every run, so no order is "the"
official one, and a fixed one makes runs comparable (recorded in the results).

A local copy holds both (``MUCHOMUSIC_DATA_DIR``): ``muchomusic.csv`` beside ``data/test-*.parquet``.
"""

from __future__ import annotations

import ast
import csv
import logging
import re
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, open_hub
from lm_eval_audio.benchmarks.hub_data import DataSource

log = logging.getLogger("lm_eval.audio.muchomusic")

SPEC = DataSpec(
    name="MuChoMusic", variable="MUCHOMUSIC_DATA_DIR", metadata_key="muchomusic_data_dir",
    hub="lmms-lab-audio/muchomusic",
    holds="muchomusic.csv (mulab-mir/muchomusic) beside data/test-*.parquet (lmms-lab-audio/muchomusic)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
QUESTIONS_REPO, QUESTIONS = "mulab-mir/muchomusic", "muchomusic.csv"
SHARDS = "data/test-*.parquet"
LETTERS = ("A", "B", "C", "D")
_OPTION = re.compile(r"\(([A-D])\) ")
# mulab-mir/muchomusic@d3c9a42, muchomusic_eval/configs/default.yaml: the one in-context example of the default
# (1-shot) run, as YAML folds it: each line break a space.
IN_CONTEXT_EXAMPLE = ("Question: What rhythm pattern do the digital drums primarily follow in this pop music piece? "
                      "\n Options: (A) Four on the floor. (B) Off-beat syncopation. (C) Scat singing. (D) E-guitar "
                      "playing a simple melody. \n The correct answer is: A")


def parse_choices(text: str) -> list[str] | None:
    """The four options of a ``choices`` string, ``(A) x (B) y (C) z (D) w``; None where it is not that."""
    parts = _OPTION.split(text or "")
    if parts[0].strip() or parts[1::2] != list(LETTERS):
        return None
    return [option.strip() for option in parts[2::2]]


ANSWER_COLUMNS = ("correct_answer", "distractor_1_answer", "distractor_2_answer", "distractor_3_answer")
TAGS = ("dataset", "genre", "music_knowledge", "music_reasoning")


def key(question: str, right: str, options) -> tuple:
    """What identifies a question across the two copies: its text, its right answer and its four options (a
    question's text, and even with its right answer, repeats across tracks)."""
    return question.strip(), right.strip(), frozenset(o.strip() for o in options)


def official_rows(path: Path) -> dict[tuple, list[dict]]:
    """``muchomusic.csv``'s rows by :func:`key`, their dimension lists read as ``prepare_prompts.py`` reads them."""
    out: dict[tuple, list[dict]] = {}
    with open(path, encoding="utf-8-sig", newline="") as f:  # -sig: a copy saved by a spreadsheet opens with a BOM
        reader = csv.DictReader(f)
        missing = [c for c in ("question", *ANSWER_COLUMNS, *TAGS) if c not in (reader.fieldnames or [])]
        if missing:
            raise speech_sets.SpeechDataError(f"{path} lacks the column(s) {', '.join(missing)} of MuChoMusic's "
                                              f"muchomusic.csv; download it again from {QUESTIONS_REPO}")
        for line, row in enumerate(reader, 2):
            row = {**row, **{k: _dimensions(row.get(k), path, line, k) for k in ("music_knowledge", "music_reasoning")}}
            out.setdefault(key(row["question"], row["correct_answer"], [row[c] or "" for c in ANSWER_COLUMNS]),
                           []).append(row)
    return out


def _dimensions(cell, path: Path, line: int, column: str) -> list[str]:
    """A dimension cell as ``prepare_prompts.py`` reads it (``ast.literal_eval``, an empty cell ``[]``)."""
    if not cell or not cell.strip():
        return []
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError):
        value = None
    if not isinstance(value, (list, tuple)):
        raise speech_sets.SpeechDataError(f"{path} line {line}: {column} {cell!r} is not a list literal; download "
                                          f"muchomusic.csv again from {QUESTIONS_REPO}")
    return [str(v) for v in value]


def _one(matches: list[dict]) -> dict | None:
    """The official row of a question: the one match, or several that agree on every tag; None otherwise."""
    if matches and all({t: m.get(t) for t in TAGS} == {t: matches[0].get(t) for t in TAGS} for m in matches):
        return matches[0]
    return None


def _sources(metadata: dict, sample: bool):
    root, snapshot = speech_sets.source(SPEC, metadata, sample)
    if snapshot is None:
        return root, None, root / QUESTIONS, None
    questions = open_hub(SPEC, metadata, QUESTIONS_REPO)
    remote = questions.matching(QUESTIONS)
    if not remote:
        raise speech_sets.SpeechDataError(f"MuChoMusic: {questions.label} lists no {QUESTIONS}: pin a revision "
                                          f"that has it (data_revisions), or set {SPEC.variable} to a local copy")
    questions.fetch(remote, "MuChoMusic questions", needed_to_plan=True)
    return root, snapshot, questions.root / QUESTIONS, questions


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "MuChoMusic" + (" sample" if sample else "")
    root, snapshot, csv_path, questions = _sources(metadata, sample)
    if not csv_path.is_file():
        raise speech_sets.SpeechDataError(f"{label}: {csv_path} does not exist. " + SPEC.help())
    shards = speech_sets.files(SPEC, root, snapshot, SHARDS, label)
    speech_sets.record(notes, label + " clips", root, snapshot, shards)
    # the questions: muchomusic.csv from its own repository, or the local folder's (the sample's)
    where = (root, None) if questions is None else (questions.root, questions)
    notes.note("sources", label + " questions", DataSource(*where, (QUESTIONS,)).record())
    official = official_rows(csv_path)
    notes.note("muchomusic_prompt", label, "1-shot (muchomusic_eval/configs/default.yaml), options in the audio "
               "copy's fixed order")
    author_prompts.authors_text(notes, label, metadata, {}, "MuChoMusic", overridable=False)  # recorded: none published
    docs, invalid, unmatched = [], LeftOut(label, "row", notes), []
    index = 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, ["instruction", "choices", "answer"], "context",
                                                speech_sets.SpeechDataError, SPEC.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            options = parse_choices(row.get("choices"))
            answer = str(row.get("answer") or "")
            letter = answer[1:2] if answer.startswith("(") else ""
            bad = ("no question" if not row.get("instruction") else
                   f"choices {row.get('choices')!r} are not four options (A)-(D)" if options is None else
                   f"answer {answer!r} names no option" if letter not in LETTERS else
                   f"answer {answer!r} is not option {letter}, {options[LETTERS.index(letter)]!r}"
                   if answer[3:].strip() != options[LETTERS.index(letter)] else "")
            if bad:
                invalid.add(row_index, f"{path.name}/{audio_row}", bad)
                continue
            question, right = row["instruction"].strip(), options[LETTERS.index(letter)]
            matches = official.get(key(question, right, options), [])
            match = _one(matches) or {}
            if not match:
                unmatched.append(f"{question!r} / {right!r}: {len(matches)} official rows"
                                 + (" that disagree on their tags" if matches else ""))
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", letter, "", "", audio_table=str(path), audio_row=audio_row,
                audio_column="context", audio_problem=problem or "", question=question, options=options,
                answer_index=LETTERS.index(letter),
                source=match.get("dataset", "unknown"), genre=match.get("genre") or "unknown",
                knowledge=match.get("music_knowledge", []), reasoning=match.get("music_reasoning", []),
                matched=bool(match)))
    invalid.warn(label)
    if unmatched:
        notes.note("unmatched_questions", label, unmatched)
        log.warning("%s: %d question(s) have no single row in %s (%s): scored in acc and ifr; knowledge_acc and "
                    "reasoning_acc are NaN, as their questions cannot all be told", label, len(unmatched), QUESTIONS,
                    "; ".join(unmatched[:3]))
    return speech_sets.checked(docs, label, notes, missing_are="unanswered")


def prompt(doc: dict) -> str:
    """``prepare_prompts.py``'s ``get_prompts`` with the default configuration's in-context example."""
    options = "".join(f"({letter}) {option} " for letter, option in zip(LETTERS, doc["options"]))
    return f"{IN_CONTEXT_EXAMPLE}\n Question: {doc['question']}\n Options: {options}\n The correct answer is: "

