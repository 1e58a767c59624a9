"""FSD50K's evaluation set as the Hub copy ``Fhrozen/FSD50k`` holds it (the layout google-research/mseb@a88af49
``mseb/datasets/fsd50k.py`` reads, :100-115, :117-150, :192-204, ``_clip_dir`` :48; FSD50K's own release layout):
``labels/vocabulary.csv`` (no header: index, label, AudioSet id: mseb@3b2d05f corrected its reader to that order,
``names=['index', 'display_name', 'mid']``), ``labels/eval.csv`` (``fname``, ``labels``: the clip's labels joined by
",", ``mids``) and ``clips/eval/<fname>.wav``. Not confirmed against the Hub itself (unreachable here). 10,231
clips, 200 labels (FSD50K's eval set; MiDashengLM's FSD50K jsonl has 10,231 lines and 200 labels).

The labels are read as MiDashengLM's evaluation writes them (xiaomi-research/dasheng-lm@2e3f2b0
``evaluate/jsonl/MiDashengLM_FSD50K.jsonl``): "_" made " " ("Electric_guitar" -> "Electric guitar"). The question
is its FSD50K question (``evaluate/prompt.csv:16``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.label_sets import READINGS
from lm_eval_audio.benchmarks.task_settings import one_of
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI

SPEC = DataSpec(
    name="FSD50K", variable="FSD50K_DATA_DIR", metadata_key="fsd50k_data_dir", hub="Fhrozen/FSD50k",
    holds="labels/vocabulary.csv, labels/eval.csv and clips/eval/<fname>.wav",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
VOCABULARY, LABELS = "labels/vocabulary.csv", "labels/eval.csv"
MIDASHENGLM_CSV = "xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:16"
PROMPT = "Which labels describe the sound?"  # MIDASHENGLM_CSV, MiDashengLM's column
# The prompts MiDashengLM's evaluation asked the models its card compares (--model_args ...,prompts=authors); its
# compute_map.py reads each one's answer by the model's name: give label_reading too (README.md).
AUTHORS_PROMPTS = {
    QWEN2_5_OMNI: Published("Classify the multi-label sound with keywords in English.", MIDASHENGLM_CSV,
                              "as MiDashengLM's evaluation asked Qwen2.5-Omni, with the system prompt 'You are a "
                              "multi-label sound classification model.' (system_prompt= in --model_args); its "
                              "answers read with --metadata '{\"label_reading\": \"qwen\"}'"),
    KIMI_AUDIO: Published(PROMPT, MIDASHENGLM_CSV, "as MiDashengLM's evaluation asked Kimi-Audio-Instruct; its "
                            "answers read with --metadata '{\"label_reading\": \"kimi\"}'"),
}
READING_KEY = "label_reading"


def reading(metadata: dict) -> str:
    """How an answer is split into labels (compute_map.py's process_text, chosen there by the model's name)."""
    return one_of(metadata, READING_KEY, "semicolons", READINGS, speech_sets.SpeechDataError,
                  "give semicolons (MiDashengLM's reading, the default), qwen (its reading of a Qwen model's answer) "
                  "or kimi (of Kimi-Audio's)")


def _table(path: Path, what: str) -> list[list[str]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise speech_sets.SpeechDataError(f"{path} cannot be read as {what} ({e}): download it again") from None


def vocabulary(path: Path) -> set[str]:
    """The labels of FSD50K's vocabulary.csv: rows of index, label, AudioSet id ("0,Electric_guitar,/m/02sgy")."""
    rows = [r for r in _table(path, "FSD50K's vocabulary") if r]
    wrong = next((r for r in rows if len(r) < 3 or r[1].startswith("/") or not r[2].startswith("/")), None)
    if not rows or wrong is not None:
        raise speech_sets.SpeechDataError(
            f"{path} is not FSD50K's vocabulary.csv (rows of index, label, AudioSet id, as "
            f"'0,Electric_guitar,/m/02sgy'; {'it is empty' if not rows else f'a row reads {wrong}'}): download "
            "FSD50K.ground_truth/vocabulary.csv (or Fhrozen/FSD50k's labels/vocabulary.csv) again")
    return {r[1] for r in rows}


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "FSD50K eval" + (" sample" if sample else "")
    found = resolve(SPEC, metadata, sample)
    vocab_path, labels_path = (speech_sets.files(SPEC, found.root, found.snapshot, name, label, transcript=True)[0]
                               for name in (VOCABULARY, LABELS))
    speech_sets.record(notes, label, found.root, found.snapshot, [vocab_path, labels_path])
    known = vocabulary(vocab_path)
    split = reading(metadata)
    notes.note("scoring_rules", label, f"answers split into labels by compute_map.py's {split!r} reading")
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "FSD50K", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default)
    rows = _table(labels_path, "FSD50K's eval.csv")
    header = rows[0] if rows else []
    if "fname" not in header or "labels" not in header:
        raise speech_sets.SpeechDataError(f"{labels_path} lacks the column(s) fname and labels of FSD50K's eval.csv "
                                          f"(it has {', '.join(header) or 'nothing'}): download it again")
    docs, invalid = [], LeftOut(label, "row", notes)
    for index, cells in enumerate(rows[1:]):
        row = dict(zip(header, cells))
        names = [n for n in (row.get("labels") or "").split(",") if n]
        unknown = [n for n in names if n not in known]
        if not row.get("fname") or not names or unknown:
            invalid.add(index, row.get("fname"), f"labels {row.get('labels')!r}: " + (
                f"{', '.join(unknown)} not in {VOCABULARY}" if unknown else "no fname or no label"))
            continue
        audio = found.root / "clips" / "eval" / f"{row['fname']}.wav"
        labels = [n.replace("_", " ") for n in names]
        docs.append(speech_sets.document(
            len(docs), row["fname"], "; ".join(labels), "", instruction, audio_path=str(audio),
            audio_problem=found.problem(audio, notes), labels=labels, label_reading=split))
    invalid.warn(labels_path)
    return speech_sets.checked(docs, label, notes, missing_are="scored as naming no label")
