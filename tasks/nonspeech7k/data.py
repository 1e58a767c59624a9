"""Nonspeech7k's test set (Rashid et al., IET Signal Processing 2023; https://zenodo.org/records/6967442) as
Kimi-Audio-Evalkit reads it (MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:837-906): Zenodo's
``test.zip`` unpacked into ``test/`` beside its metadata, ``metadata of test set.csv`` (the evalkit saves it as
``metadata_test.csv``: either is read), one row a clip: ``Filename`` (the clip in ``test/``) and ``Classname`` (its
class; the evalkit reads no other column). 725 clips (the dataset's paper; not checked against a copy here).

No toolkit reads a Hugging Face Hub copy: the reference evaluation downloads Zenodo's files, so the tasks read a
local copy in that layout (``NONSPEECH7K_DATA_DIR``) and cannot fetch it for you.

The question is the evalkit's (data/download_benchmark.py:895, "human vocal sound" as it writes it), the one the
numbers on its leaderboard and Kimi-Audio's card were produced with; its letter answers are read without its LLM
judge (``scoring``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from lm_eval_audio.benchmarks import class_reading, speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO

METADATA = ("metadata of test set.csv", "metadata_test.csv")  # Zenodo's name, then the evalkit's
SPEC = DataSpec(
    name="Nonspeech7k", variable="NONSPEECH7K_DATA_DIR", metadata_key="nonspeech7k_data_dir", hub=None,
    holds=tuple(f"{name} (columns Filename, Classname) beside test/" for name in METADATA),
    advice=("Download test.zip and 'metadata of test set.csv' from https://zenodo.org/records/6967442 (what "
            "Kimi-Audio-Evalkit's data/download_benchmark.py does), unzip test.zip beside the CSV, then `export "
            "{variable}=/data/nonspeech7k` or pass --metadata '{{\"{metadata_key}\": \"/data/nonspeech7k\"}}'. The "
            "folder must hold {holds}. To try the tasks without the data, run the synthetic `{sample_group}` group."),
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# The options as the evalkit's question lists them, in its order, and the Classname spellings each stands for
# (lower-cased): the dataset writes "crying" and "screaming" where the question says Cry and Scream. "yawm": a
# misspelling of yawn a third-party loader of the Zenodo metadata maps (seen there; not confirmed in the test CSV): the
# evalkit keeps every row, so such a row is kept here too rather than left out.
OPTIONS = ("Breath", "Cough", "Cry", "Laugh", "Scream", "Sneeze", "Yawn")
LABELS = {"breath": "Breath", "cough": "Cough", "crying": "Cry", "cry": "Cry", "laugh": "Laugh",
          "screaming": "Scream", "scream": "Scream", "sneeze": "Sneeze", "yawn": "Yawn", "yawm": "Yawn"}
# MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:895 (the "\n.Answer" is the source's)
PROMPT = ("Identify the human vocal sound in the audio.\nOptions:\n(A) Breath\n(B) Cough\n(C) Cry\n(D) Laugh\n"
          "(E) Scream\n(F) Sneeze\n(G) Yawn\n.Answer with the option's letter from the given choices directly and "
          "only give the best option.")
AUTHORS_PROMPTS = {
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43 (its Qwen2-Audio-7B base model, an
    # AudioEvent set)
    QWEN2_AUDIO: Published(f"Listen to the given audio carefully and answer this question: {PROMPT} Your answer is:",
                             "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:45-46, 60-61
    QWEN2_5_OMNI: Published(f"Listen to the given audio carefully and answer this question: {PROMPT}.",
                              "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:45-46",
                              "with the system prompt 'You are a vocal sound classification model.' "
                              "(almeval/models/qwen_omni.py:60-61; system_prompt= in --model_args)"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32: the question as is
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32"),
}

# What the results say of the metric (lm_eval_audio_data.scoring_rules): acc is not the judged number the cards quote
SCORING_RULES = class_reading.UNJUDGED_OPTION + (
    " A word form such as 'crying' for the option Cry is not read either (answer_unread).")


def _metadata(root: Path) -> Path:
    for name in METADATA:
        if (root / name).is_file():
            return root / name
    raise speech_sets.SpeechDataError(f"Nonspeech7k: {root} holds neither {' nor '.join(METADATA)}: not the "
                                      "layout of Zenodo's test set. " + SPEC.help(root))


def _rows(path: Path) -> list[dict]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            columns = [c.strip() for c in reader.fieldnames or []]
            missing = [c for c in ("Filename", "Classname") if c not in columns]
            if missing:
                raise speech_sets.SpeechDataError(
                    f"{path} lacks the column(s) {', '.join(missing)} of Nonspeech7k's test metadata (it has "
                    f"{', '.join(columns) or 'none'}); download 'metadata of test set.csv' again")
            return [{(k or "").strip(): v for k, v in row.items()} for row in reader]
    except UnicodeDecodeError as e:
        raise speech_sets.SpeechDataError(f"{path} is not UTF-8 text ({e}); download it again") from None


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "Nonspeech7k test" + (" sample" if sample else "")
    root = resolve(SPEC, metadata, sample).root
    table = _metadata(root)
    speech_sets.record(notes, label, root, None, [table])
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "Nonspeech7k", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default)
    notes.note("scoring_rules", label, SCORING_RULES)
    docs, invalid = [], LeftOut(label, "row", notes)
    for index, row in enumerate(_rows(table)):
        name, classname = (row.get("Filename") or "").strip(), (row.get("Classname") or "").strip()
        option = LABELS.get(classname.lower())
        if not name or option is None:
            invalid.add(index, name or None, f"Classname {classname!r} is none of Nonspeech7k's classes "
                        f"({', '.join(OPTIONS)})" if name else "no Filename")
            continue
        clip = root / "test" / name
        docs.append(speech_sets.document(
            len(docs), name, classname, "", instruction, audio_path=str(clip),
            audio_problem=speech_sets.clip_problem(clip), option=option))
    invalid.warn(table)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
