"""VoiceBench's data in its official layout: the Hub dataset ``hlt-lab/voicebench``, one folder per config holding
its splits as parquet files, ``<config>/<split>-0000i-of-0000N.parquet`` (what the official ``main.py`` loads
with ``load_dataset('hlt-lab/voicebench', config, split=split)``).

Every config has ``audio`` (a Hugging Face ``Audio`` cell) and ``prompt`` (the text of what is said: the judge's
instruction, and the input of the ``text`` modality). Besides them: ``reference`` (sd-qa, openbookqa, mmsu, bbh),
``id`` (bbh, naming the BBH task), ``key``, ``instruction_id_list`` and ``kwargs`` (ifeval). A task reads one split
of one config, and a run fetches only the parquet files of the splits it reads.

Where the data comes from: ``VOICEBENCH_DATA_DIR`` (or ``voicebench_data_dir`` in ``--metadata``), a folder in the
same layout (a ``snapshot_download`` of the repository), else the Hub at the pinned or current commit.

Modality (``--metadata '{"voicebench_modality": "text"}'``): ``audio`` (the default) gives the model the clip and
no text, as ``main.py --modality audio`` does; ``text`` gives it the ``prompt`` text and no clip (``--modality
text``). The same tasks, the same scoring: two runs side by side in ``lm-eval-audio report``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.audio.refs import text_instead
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import OwnFormat, QWEN3_OMNI_OWN_FORMAT_SOURCE
from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.task_settings import one_of
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.tasks.voicebench import rules
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN3_OMNI

log = logging.getLogger("lm_eval.audio.voicebench")

MODALITIES = ("audio", "text")
SD_QA_ACCENTS = ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "usa", "zaf")
MMSU_DOMAINS = ("law", "engineering", "other", "biology", "business", "economics", "health", "philosophy",
                "psychology", "history", "chemistry", "physics")


@dataclass(frozen=True)
class Subset:
    """One config of the dataset: the columns its evaluator reads besides ``audio`` and ``prompt``."""

    config: str
    scorer: str  # open, qa, mcq, bbh, ifeval, harm: the official evaluator (src/evaluator/<scorer>.py)
    columns: tuple[str, ...] = ()


SUBSETS = {s.config: s for s in (
    Subset("alpacaeval", "open"), Subset("alpacaeval_full", "open"), Subset("commoneval", "open"),
    Subset("wildvoice", "open"), Subset("sd-qa", "qa", ("reference",)),
    Subset("openbookqa", "mcq", ("reference",)), Subset("mmsu", "mcq", ("reference",)),
    Subset("bbh", "bbh", ("reference", "id")), Subset("ifeval", "ifeval", ("key", "instruction_id_list", "kwargs")),
    Subset("advbench", "harm"),
)}


class VoiceBenchDataError(LayoutDataError):
    """VoiceBench data that cannot be used; the message names the file and the fix."""


# The model authors' prompts (--model_args ...,prompts=authors): both families that state one ask the clip alone,
# as this task's audio modality does
AUTHORS_PROMPTS = {
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation": benchmarks with their own formatting keep it
    QWEN3_OMNI: OwnFormat(QWEN3_OMNI_OWN_FORMAT_SOURCE),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:85: question "" ("the question is in audio")
    KIMI_AUDIO: OwnFormat("MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:85",
                            "the evalkit asks each item with no text (question \"\"), as this task's audio modality"),
}
DATA = DataSpec("VoiceBench", "VOICEBENCH_DATA_DIR", "voicebench_data_dir", hub="hlt-lab/voicebench",
                sample=Path(__file__).resolve().parent / "sample_data", holds="<config>/<split>-*.parquet",
                local_dir="/data/voicebench", error=VoiceBenchDataError)
REPO, HELP = DATA.repo, DATA.help()


def sample_root() -> Path:
    return DATA.sample


def modality(metadata: dict) -> str:
    return one_of(metadata, "voicebench_modality", "audio", MODALITIES, VoiceBenchDataError,
                  "give audio (the clip, the default) or text (the prompt's text in place of the clip, VoiceBench's "
                  "text modality)")


def _pattern(config: str, split: str) -> str:
    return f"{config}/{split}-*.parquet"


def split_files(root: Path, config: str, split: str) -> list[Path]:
    files = sorted((root / config).glob(f"{split}-*.parquet"))
    if not files:
        raise VoiceBenchDataError(f"voicebench: {root / config} holds no {split}-*.parquet: not a snapshot of "
                                  f"{REPO} with config {config!r}, split {split!r}. " + HELP)
    return files


def data_source(config: str, split: str, metadata: dict, sample: bool) -> DataSource:
    """The folder the split's files are in: the bundled sample, the local folder, or the Hub snapshot (only this
    split's files fetched)."""
    source = resolve(DATA, metadata, sample)
    snapshot = source.snapshot
    if snapshot is None:
        return source.reading(split_files(source.root, config, split))
    task = f"voicebench_{config.replace('-', '_')}"
    files = snapshot.matching(_pattern(config, split))
    if not files:
        raise VoiceBenchDataError(f"voicebench: {snapshot.label} lists no {_pattern(config, split)}: pin a revision "
                                  "that has it (data_revision=)")
    snapshot.fetch(files, task)
    return DataSource(snapshot.root, snapshot, tuple(f.path for f in files))


def source_key(config: str, split: str, sample: bool) -> str:
    """A split's record under the results' ``lm_eval_audio_data.sources``: one per set of parquet files read (MMSU's
    twelve domains, twelve records)."""
    return f"VoiceBench {config}/{split}" + (" sample" if sample else "")


def _problem(subset: Subset, row: dict) -> str | None:
    missing = [c for c in ("prompt", *subset.columns) if row.get(c) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    if subset.scorer == "bbh":
        if str(row["reference"]).lower() not in rules.BBH_TRUTH:
            return f"reference {row['reference']!r} is none of yes, no, (a), (b) (the official evaluator stops on it)"
        try:
            rules.bbh_task(str(row["id"]))
        except ValueError as e:
            return f"{e} (the official evaluator stops on it)"
    if subset.scorer == "ifeval":
        from lm_eval.tasks.ifeval.instructions_registry import INSTRUCTION_DICT

        ids, kwargs = list(row["instruction_id_list"]), list(row["kwargs"])
        if len(ids) != len(kwargs) or not all(isinstance(k, dict) for k in kwargs):
            return "instruction_id_list and kwargs differ in length, or a kwargs entry is not a struct"
        unknown = [i for i in ids if i not in INSTRUCTION_DICT]
        if unknown:
            return f"instruction(s) {', '.join(unknown)} unknown to IFEval's checks"
    return None


def load_docs(config: str, split, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The documents of one task: every row of ``config``'s ``split`` (or of each split of a list, in order: MMSU's
    domains as one task); rows that cannot be evaluated, on ``notes``."""
    if config not in SUBSETS:
        raise VoiceBenchDataError(f"voicebench: unknown config {config!r}; known: {', '.join(SUBSETS)}")
    subset, how = SUBSETS[config], modality(metadata)
    splits = [split] if isinstance(split, str) else list(split)
    label = f"VoiceBench {config}/{'+'.join(splits)}"
    notes.note("voicebench_modality", label, how)
    author_prompts.authors_text(notes, label, metadata, AUTHORS_PROMPTS, "VoiceBench", overridable=False)  # recorded
    if subset.scorer in ("mcq", "bbh", "harm"):  # where the rules come from, and what differs from them
        notes.note("voicebench_rules", label, {**rules.source(), **(
            {"unread_fallback_seed": int(metadata.get("voicebench_fallback_seed", 0)),
             "unread_fallback": "seeded per item here; unseeded random.choice in the official evaluator"}
            if subset.scorer != "harm" else {})})
    docs, invalid, no_audio = [], LeftOut(label, "row", notes), 0
    columns = ["prompt", *subset.columns]
    for one in splits:
        source = data_source(config, one, metadata, sample)
        notes.note("sources", source_key(config, one, sample), source.record())
        index = 0  # the row's place in its split
        for path in split_files(source.root, config, one):
            rows, clips = table_checks.parquet_rows(path, columns, "audio", VoiceBenchDataError, REPO)
            for row_index, (row, (_, problem)) in enumerate(zip(rows, clips)):
                uid, index = f"{config}/{one}/{index}", index + 1
                bad = _problem(subset, row)
                if bad:
                    invalid.add(row_index, uid, bad)
                    continue
                if how == "text":
                    problem = ""  # the clip is not used
                elif problem:
                    no_audio += 1
                    notes.note("unusable_audio", f"{label}/{uid}", problem)
                    log.warning("%s: %s: %s; the model is not run on it, and it is counted in audio_missing", label,
                                uid, problem)
                docs.append({
                    "doc_id": len(docs),
                    "uniq_id": uid,
                    "config": config,
                    "split": one,
                    "prompt": str(row["prompt"]),
                    "reference": None if row.get("reference") is None else str(row["reference"]),
                    "bbh_id": "" if row.get("id") is None else str(row["id"]),
                    "ifeval": json.dumps({k: row[k] for k in ("key", "instruction_id_list", "kwargs")})
                    if subset.scorer == "ifeval" else "",
                    "modality": how,
                    "audio_table": str(path),
                    "audio_row": row_index,
                    "audio_problem": problem or "",
                })
    invalid.warn(label)
    if not docs:
        raise VoiceBenchDataError(f"{label}: no usable rows")
    log.info("%s: %d item(s) (%s modality)%s", label, len(docs), how,
             f"; {no_audio} with missing or empty audio" if no_audio else "")
    return docs


def doc_to_text(doc: dict) -> str:
    """The text the model is given: none beside the clip (VoiceBench adds no instruction), or the prompt's text."""
    return doc["prompt"] if doc["modality"] == "text" else ""


def doc_to_audio(doc: dict) -> list:
    if doc["modality"] == "text":
        return [text_instead("VoiceBench text modality: the prompt's text in place of its clip")]
    return table_checks.clip(doc["audio_table"], doc["audio_row"], "audio", doc["audio_problem"])
