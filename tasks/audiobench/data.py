"""AudioBench data: the paper's 26 datasets, their published layout, prompts and long-form chunks.

Each dataset is the Hugging Face dataset ``AudioLLMs/<repo>`` (split ``test``) with the
columns ``context`` (an ``Audio`` struct of encoded bytes), ``instruction``, ``answer``
and ``other_attributes``; the two speech-instruction sets add ``speech_instruction``,
the two multiple-choice sets ``choices``. With no local folder set, a task fetches its
repository's test shards (``data/test-*.parquet``) from the Hugging Face Hub into the
standard cache (``lm_eval_audio.benchmarks.hub_data``). A local snapshot
(``AUDIOBENCH_DATA_DIR``) holds one folder per dataset, named after the repository (``hf
download AudioLLMs/<repo> --repo-type dataset --local-dir $AUDIOBENCH_DATA_DIR/<repo>``:
parquet shards ``data/test-*.parquet``) or saved with ``datasets``' ``save_to_disk`` (arrow
files).

Facts per dataset (repository ids, prompts, judge kinds, the accent-answer prefix) are
those of AudioLLMs/AudioBench at commit e991641, ``src/dataset.py`` and
``src/dataset_src/<name>.py``; docs/AUDIOBENCH.md lists them with the paper-era differences.

Documents carry a reference to their audio cell, never samples. Unusable cells (null,
empty, zero samples, undecodable) stay in as flagged items: the model is not run on them, they
are counted (``audio_missing``) and left out of the scores.
"""

from __future__ import annotations

import json
import logging
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, chosen, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.tasks.audiobench.templates import (
    FIGURE2_ASR_PROMPTS,
    FIGURE2_SOURCE,
    POOLS,
    TOOLKIT,
    TOOLKIT_TEMPLATES,
)

log = logging.getLogger("lm_eval.audio.audiobench")


@dataclass(frozen=True)
class Dataset:
    name: str  # the toolkit's name; the lm-eval task is audiobench_<name>
    repo: str  # AudioLLMs/<repo>
    task_type: str  # ASR, SQA, SI, AQA, AC, ER, AR, GR (paper Table 1)
    judge: str | None = None  # "rubric" (0-5, x20) or "binary" (0/1, x100)
    pool: str | None = None  # instruction templates replacing the dataset's own instruction
    mcq: bool = False  # prompt = 'Question:\n' + instruction + '\n Choices:\n' + choices
    judge_question_column: str | None = None  # the judge's {question} when not the prompt
    meteor: bool = False
    answer_prefix: str | None = None  # removed from the answer before judging


_ACCENT_PREFIX = "From the audio, I guess the speaker is from "  # voxceleb_accent_test.py et al.

DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        # ASR: corpus WER; the long-form three are chunked (see chunk_plan)
        Dataset("librispeech_test_clean", "librispeech_test_clean", "ASR", pool="asr"),
        Dataset("librispeech_test_other", "librispeech_test_other", "ASR", pool="asr"),
        Dataset("common_voice_15_en_test", "common_voice_15_en_test", "ASR", pool="asr"),
        Dataset("peoples_speech_test", "peoples_speech_test", "ASR", pool="asr"),
        Dataset("gigaspeech_test", "gigaspeech_test", "ASR", pool="asr"),
        Dataset("tedlium3_test", "tedlium3_test", "ASR", pool="asr"),
        Dataset("tedlium3_long_form_test", "tedlium3_long_form_test", "ASR", pool="asr"),
        Dataset("earnings21_test", "earnings21_test", "ASR", pool="asr"),
        Dataset("earnings22_test", "earnings22_test", "ASR", pool="asr"),
        # SQA
        Dataset("cn_college_listen_mcq_test", "cn_college_listen_mcq_test", "SQA", judge="binary", mcq=True),
        Dataset("slue_p2_sqa5_test", "slue_p2_sqa5_test", "SQA", judge="rubric"),
        Dataset("dream_tts_mcq_test", "dream_tts_mcq_test", "SQA", judge="binary", mcq=True),
        Dataset("public_sg_speech_qa_test", "public_sg_speech_qa_test", "SQA", judge="rubric"),
        # SI: the model hears the instruction; the judge reads its text
        Dataset("openhermes_audio_test", "openhermes_instruction_test", "SI", judge="rubric", pool="si",
                judge_question_column="speech_instruction"),
        Dataset("alpaca_audio_test", "alpaca_audio_test", "SI", judge="rubric", pool="si",
                judge_question_column="speech_instruction"),
        # AQA
        Dataset("clotho_aqa_test", "clotho_aqa_test", "AQA", judge="rubric"),
        Dataset("wavcaps_qa_test", "wavcaps_qa_test", "AQA", judge="rubric"),
        Dataset("audiocaps_qa_test", "audiocaps_qa_test", "AQA", judge="rubric"),
        # AC: METEOR and the judge
        Dataset("wavcaps_test", "wavcaps_test", "AC", judge="rubric", pool="ac", meteor=True),
        Dataset("audiocaps_test", "audiocaps_test", "AC", judge="rubric", pool="ac", meteor=True),
        # ER
        Dataset("iemocap_emotion_test", "iemocap_emotion_recognition", "ER", judge="binary", pool="er_iemocap"),
        Dataset("meld_sentiment_test", "meld_sentiment_test", "ER", judge="binary", pool="er_meld_sentiment"),
        Dataset("meld_emotion_test", "meld_emotion_test", "ER", judge="binary", pool="er_meld_emotion"),
        # AR
        Dataset("voxceleb_accent_test", "voxceleb_accent_test", "AR", judge="binary", pool="ar",
                answer_prefix=_ACCENT_PREFIX),
        # GR (the toolkit applies the accent prefix removal here too; a no-op on gender answers)
        Dataset("voxceleb_gender_test", "voxceleb_gender_test", "GR", judge="binary", pool="gr",
                answer_prefix=_ACCENT_PREFIX),
        Dataset("iemocap_gender_test", "iemocap_gender_recognition", "GR", judge="binary", pool="gr",
                answer_prefix=_ACCENT_PREFIX),
    ]
}

DEFAULT_CHUNK_SECONDS = 30.0  # the toolkit's window for ASR audio (qwen2_audio_7b_instruct.py et al.)
DEFAULT_PROMPT_SEED = 0


def download_help(dataset: Dataset, root: Path | None = None) -> str:
    if root is not None:
        return (f"Download it with `hf download AudioLLMs/{dataset.repo} --repo-type dataset "
                f"--local-dir {root / dataset.repo}`, or unset {DATA.variable} to let the task fetch it. "
                "docs/AUDIOBENCH.md lists the 26 repositories.")
    return (
        f"Unset {DATA.variable} to let each task fetch its dataset from the Hub, or download it with "
        f"`hf download AudioLLMs/{dataset.repo} --repo-type dataset --local-dir /data/audiobench/{dataset.repo}` and "
        f"set {DATA.variable}=/data/audiobench (or --metadata '{{\"{DATA.metadata_key}\": \"/data/audiobench\"}}'). "
        "docs/AUDIOBENCH.md lists the 26 repositories."
    )


class AudioBenchDataError(ValueError):
    """A snapshot, file or option that cannot be used; the message says how to fix it."""


# A local root holds one folder per dataset; on the Hub each dataset is its own repository (``spec_for``)
DATA = DataSpec("AudioBench", "AUDIOBENCH_DATA_DIR", "audiobench_data_dir", error=AudioBenchDataError,
                advice=lambda spec, root: download_help(DATASETS["librispeech_test_clean"], root))


def spec_for(dataset: Dataset) -> DataSpec:
    """Where one dataset comes from: the local root's folder for it, or its repository ``AudioLLMs/<repo>``."""
    return replace(DATA, hub=f"AudioLLMs/{dataset.repo}", advice=lambda spec, root: download_help(dataset, root))


class DatasetAbsent(AudioBenchDataError):
    """The snapshot has no folder for this dataset. Inside a group the startup hook leaves
    the task out with a warning (and a note in the results); asked for alone, it is an error."""

    skippable_in_group = True


# --- options -------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptMode:
    kind: str  # "seeded", "sweep", "fixed" or "figure2" (the paper's three ASR prompts)
    template: int | None = None  # for fixed, and figure2:K

    def __str__(self) -> str:
        return self.kind if self.template is None else f"{self.kind}:{self.template}"

    @property
    def recorded(self) -> str:
        """What each document says of it (``prompt_mode``): figure2's with its prompt, so that the three-prompt
        run is told from a one-prompt run."""
        return str(self) if self.kind == "figure2" else self.kind


def prompt_mode(metadata: dict) -> PromptMode:
    raw = str(metadata.get("prompt_mode") or "seeded").strip()
    if raw in ("seeded", "sweep", "figure2"):
        return PromptMode(raw)
    kind, _, number = raw.partition(":")
    if kind in ("fixed", "figure2"):
        try:
            mode = PromptMode(kind, int(number))
        except ValueError:
            mode = None
        if mode and (kind == "fixed" or 1 <= mode.template <= len(FIGURE2_ASR_PROMPTS)):
            return mode
    raise AudioBenchDataError(
        f"--metadata prompt_mode={raw!r} is not an option: use seeded (the default: one template per item, "
        "drawn with prompt_seed), sweep (every template for every item), fixed:K (template K, from 0), or, on the "
        "ASR tasks, figure2 (the paper's three Figure 2 prompts for every item) or figure2:K (its prompt K, 1-3)"
    )


def _number(metadata: dict, key: str, default, kind):
    raw = metadata.get(key, default)
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise AudioBenchDataError(f"--metadata {key}={raw!r} must be a {kind.__name__}") from None
    return value


def chunk_seconds(metadata: dict) -> float:
    value = _number(metadata, "chunk_seconds", DEFAULT_CHUNK_SECONDS, float)
    if not value > 0:
        raise AudioBenchDataError(f"--metadata chunk_seconds={value} must be positive (seconds per ASR chunk)")
    return value


# --- the snapshot ----------------------------------------------------------------------


def local_root(metadata: dict) -> str | None:
    return chosen(DATA, metadata)


def data_root(metadata: dict, dataset: Dataset | None = None) -> Path:
    """The local snapshot folder; without ``dataset`` (a group of several), the error names no one dataset."""
    example = dataset or DATASETS["librispeech_test_clean"]
    if not local_root(metadata):
        raise AudioBenchDataError("no local AudioBench folder is set. " + download_help(example))
    return resolve(spec_for(example), metadata).root


def dataset_folder(root: Path, dataset: Dataset, notes: DataNotes) -> Path:
    for name in dict.fromkeys((dataset.repo, dataset.name)):
        if (root / name).is_dir():
            return root / name
    notes.note("audiobench_absent_datasets", f"audiobench_{dataset.name}", str(root / dataset.repo))
    also = f" (nor {root / dataset.name})" if dataset.name != dataset.repo else ""
    raise DatasetAbsent(
        f"audiobench_{dataset.name}: no folder {root / dataset.repo}{also} for AudioLLMs/{dataset.repo}. "
        + download_help(dataset, root)
    )


def dataset_source(metadata: dict, dataset: Dataset, notes: DataNotes | None = None) -> DataSource:
    """The dataset's folder in the local snapshot (which wins), else its repository's test shards fetched from
    the Hub."""
    source = resolve(spec_for(dataset), metadata)
    snapshot = source.snapshot
    if snapshot is None:
        folder = dataset_folder(source.root, dataset, notes or DataNotes())
        return DataSource(folder)  # the files read are known once the table is found (load_docs)
    shards = snapshot.matching("data/test-*.parquet", "data/test/*.parquet", "test-*.parquet")
    if not shards:
        raise AudioBenchDataError(f"audiobench_{dataset.name}: {snapshot.label} lists no test shards "
                                  "(data/test-*.parquet): pin a revision that has them (revision=)")
    snapshot.fetch(shards, f"audiobench_{dataset.name}")
    return DataSource(snapshot.root, snapshot)


def table_files(folder: Path, dataset: Dataset) -> list[Path]:
    """The test split's files, in row order: parquet shards, else ``save_to_disk`` arrow files."""
    parquet = sorted(p for p in folder.rglob("*.parquet") if p.name.startswith("test"))
    if not parquet:
        parquet = sorted(p for p in folder.rglob("*.parquet") if "test" in p.parent.name)
    if parquet:
        return parquet
    arrow = sorted((folder / "test").glob("*.arrow")) if (folder / "test").is_dir() else []
    if not arrow and (folder / "dataset_info.json").is_file():
        arrow = sorted(folder.glob("*.arrow"))
    if arrow:
        return arrow
    raise AudioBenchDataError(
        f"audiobench_{dataset.name}: {folder} holds no test split: expected data/test-*.parquet (the published "
        "layout) or a save_to_disk folder (test/*.arrow or dataset_info.json with *.arrow). "
        + download_help(dataset, folder.parent)
    )


def _columns_needed(dataset: Dataset) -> list[str]:
    cols = ["answer"]
    if dataset.pool is None:
        cols.append("instruction")
    if dataset.mcq:
        cols.append("choices")
    if dataset.judge_question_column:
        cols.append(dataset.judge_question_column)
    return cols


def _read_rows(path: Path, dataset: Dataset, needed: list[str]):
    """(text columns as dict of lists, (seconds, problem) per row) for one file.

    The audio column is read in small batches and each cell's header is read in place
    (no copy of the bytes), so loading holds a few clips at a time, not the dataset."""
    import pyarrow.parquet as pq

    from lm_eval_audio.audio import table_checks, tables

    if tables.is_arrow(str(path)):
        table = tables.arrow_table(str(path))
        names = table.column_names
    else:
        parquet = pq.ParquetFile(path)
        names = parquet.schema_arrow.names
    missing = [c for c in needed + ["context"] if c not in names]
    if missing:
        raise AudioBenchDataError(
            f"audiobench_{dataset.name}: {path} lacks the column(s) {', '.join(missing)} of the published layout "
            f"(it has {', '.join(names)}); download AudioLLMs/{dataset.repo} again"
        )
    text_cols = needed + (["other_attributes"] if "other_attributes" in names else [])
    if tables.is_arrow(str(path)):
        batches = table.select(text_cols + ["context"]).to_batches(max_chunksize=8)
    else:
        batches = parquet.iter_batches(batch_size=8, columns=text_cols + ["context"])
    text: dict[str, list] = {c: [] for c in text_cols}
    audio = []
    for batch in batches:
        for c in text_cols:
            text[c].extend(batch.column(c).to_pylist())
        audio += table_checks.cell_checks(batch.column("context"))
    return text, audio


# --- prompts -------------------------------------------------------------------------


def mcq_prompt(instruction: str, choices: str) -> str:
    # cn_college_listen_mcq_test.py / dream_tts_mcq_test.py (note the space before "Choices")
    return "Question:\n" + instruction + "\n Choices:\n" + choices


def templates_for(dataset: Dataset, mode: PromptMode, seed: int, row: int) -> list[int]:
    """The template ids an item is asked with: one (seeded or fixed) or all (sweep)."""
    pool = POOLS[dataset.pool]
    if mode.kind == "sweep":
        return list(range(len(pool)))
    if mode.kind == "fixed":
        if not 0 <= mode.template < len(pool):
            raise AudioBenchDataError(
                f"audiobench_{dataset.name}: prompt_mode=fixed:{mode.template} is out of range; its pool "
                f"({dataset.pool}) has templates 0-{len(pool) - 1}"
            )
        return [mode.template]
    # The toolkit's own templates only, as the toolkit draws. A string seed is hashed with SHA-512 by `random`:
    # the same draw on every machine and run.
    return [random.Random(f"{seed}/{dataset.name}/{row}").randrange(TOOLKIT_TEMPLATES[dataset.pool])]


def chunk_plan(seconds: float | None, chunk: float) -> list[tuple[float, float]] | None:
    """Cut points of a long ASR recording: consecutive windows of ``chunk`` seconds, the
    last one shorter (as the toolkit's model code cuts); None when it fits in one window."""
    if seconds is None or seconds <= chunk:
        return None
    n = math.ceil(seconds / chunk - 1e-9)
    return [(round(i * chunk, 6), round(min((i + 1) * chunk, seconds), 6)) for i in range(n)]


# --- documents -----------------------------------------------------------------------


def load_docs(name: str, metadata: dict, *, notes: DataNotes) -> list[dict]:
    """The documents of ``audiobench_<name>`` from the local snapshot or the Hub; what cannot be used, on
    ``notes``."""
    if name not in DATASETS:
        raise AudioBenchDataError(f"unknown AudioBench dataset {name!r}; known: {', '.join(DATASETS)}")
    dataset = DATASETS[name]
    task = f"audiobench_{name}"
    mode = prompt_mode(metadata)
    if mode.kind == "figure2" and dataset.task_type != "ASR":
        raise AudioBenchDataError(f"{task}: prompt_mode={mode} is the paper's ASR prompt test; {task} is a "
                                  f"{dataset.task_type} task: run it on the ASR tasks (audiobench_asr)")
    seed = _number(metadata, "prompt_seed", DEFAULT_PROMPT_SEED, int)
    window = chunk_seconds(metadata)
    source = dataset_source(metadata, dataset, notes)
    folder = source.root
    files = table_files(folder, dataset)
    notes.note("sources", f"AudioBench AudioLLMs/{dataset.repo}", source.reading(files).record())

    docs, invalid, missing_audio, chunked = [], [], 0, 0
    row = 0
    needed = _columns_needed(dataset)
    for path in files:
        try:
            text, audio = _read_rows(path, dataset, needed)
        except (OSError, ValueError) as e:  # pyarrow's errors derive from these
            if isinstance(e, AudioBenchDataError):
                raise
            raise AudioBenchDataError(f"{task}: cannot read {path} ({type(e).__name__}: {e}); the file is damaged "
                                      f"or incomplete: download AudioLLMs/{dataset.repo} again") from None
        for local, (seconds, problem) in enumerate(audio):
            values = {c: text[c][local] for c in text}
            row_id, row = row, row + 1
            bad = [c for c in needed if not isinstance(values.get(c), str) or not values[c].strip()]
            if bad:
                what = ", ".join(f"{c} {'empty' if isinstance(values.get(c), str) or values.get(c) is None else 'not text'}"
                                 for c in bad)
                invalid.append(f"row {row_id} ({path.name}:{local}): {what}")
                notes.note("audiobench_invalid_items", f"{name}/{row_id}", what)
                continue
            if problem:
                missing_audio += 1
                notes.note("audiobench_unusable_audio", f"{name}/{row_id}", problem)
                log.warning("%s: row %d (%s:%d): %s; it is not run, counted in audio_missing and left out of "
                            "the scores", task, row_id, path, local, problem)
            answer = values["answer"]
            if dataset.answer_prefix:
                answer = answer.replace(dataset.answer_prefix, "")
            other = values.get("other_attributes")
            base = {
                "dataset": name,
                "row": row_id,
                "answer": answer,
                "audio_table": str(path),
                "audio_row": local,
                "audio_seconds": seconds,
                "audio_problem": problem,
                "other_attributes": other if isinstance(other, str) or other is None else json.dumps(other, default=str),
            }
            if mode.kind == "figure2":
                prompts = [(k, p) for k, p in enumerate(FIGURE2_ASR_PROMPTS, 1) if mode.template in (None, k)]
            elif dataset.pool is None:
                own = values["instruction"]
                prompts = [(-1, mcq_prompt(own, values["choices"]) if dataset.mcq else own)]
            else:
                pool = POOLS[dataset.pool]
                prompts = [(t, pool[t]) for t in templates_for(dataset, mode, seed, row_id)]
            plan = chunk_plan(seconds, window) if dataset.task_type == "ASR" and not problem else None
            chunked += plan is not None
            for template_id, instruction in prompts:
                question = values[dataset.judge_question_column] if dataset.judge_question_column else instruction
                doc = {**base, "template_id": template_id, "prompt_mode": mode.recorded, "instruction": instruction,
                       "judge_question": question, "recording": f"{name}/{row_id}/{template_id}"}
                for index, (start, end) in enumerate(plan or [(None, None)]):
                    docs.append({
                        **doc,
                        "doc_id": len(docs),
                        "chunk_index": index,
                        "chunk_count": len(plan or [0]),
                        "audio_start": start,
                        "audio_end": end,
                        # the whole recording's reference rides on its first chunk only
                        "answer": doc["answer"] if index == 0 else "",
                    })
    if invalid:
        log.warning("%s: %d item(s) cannot be evaluated and are left out (see lm_eval_audio_data in the results): "
                    "%s%s", task, len(invalid), "; ".join(invalid[:10]), " ..." if len(invalid) > 10 else "")
    if not docs:
        raise AudioBenchDataError(f"{task}: {folder} has no usable item; download AudioLLMs/{dataset.repo} again")
    if mode.kind == "figure2":
        notes.note("audiobench_prompts", task, {"prompt_mode": str(mode), "source": FIGURE2_SOURCE,
                                                "prompts": dict(enumerate(FIGURE2_ASR_PROMPTS, 1))})
    elif dataset.pool is not None:
        drawn_from = TOOLKIT_TEMPLATES[dataset.pool] if mode.kind == "seeded" else len(POOLS[dataset.pool])
        notes.note("audiobench_prompts", task, {
            "prompt_mode": str(mode), "prompt_seed": seed, "pool": dataset.pool, "templates": drawn_from,
            "source": f"{TOOLKIT} (the toolkit's own)" if mode.kind == "seeded" else "the whole pool"})
    elif mode.kind != "seeded":
        log.info("%s asks each item its own instruction; prompt_mode=%s does not apply to it", task, mode)
    if chunked:
        notes.note("audiobench_chunked", task, {"recordings": chunked, "chunk_seconds": window})
        log.info("%s: %d recording(s) longer than %g s are transcribed in chunks of %g s", task, chunked, window, window)
    log.info("%s: %d document(s) from %d row(s) of %s%s", task, len(docs), row, folder,
             f"; {missing_audio} with unusable audio" if missing_audio else "")
    return docs
