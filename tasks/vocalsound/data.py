"""VocalSound's test set as the peer toolkits read it from the Hub: ``lmms-lab-audio/vocalsound`` (lmms-eval's
``tasks/vocalsound``), ``data/test-*.parquet`` with ``audio`` (an ``Audio`` cell), ``spk_id`` (its first letter
the speaker's gender, ``f`` or ``m``), ``answer`` (one of the six classes: Laughter, Sigh, Cough, Throat clearing,
Sneeze, Sniff) and ``age_group`` (1, 2, 3: ages 18-25, 26-48, 49-80). 3,591 clips: the official ``te.json``
(YuanGongND/vocalsound), whose own breakdown is by age group and gender.

VocalSound publishes no instruction (it is a classifier benchmark): the one asked is Qwen2-Audio's
(``eval_audio/EVALUATION.md``'s ``vocalsound_eval.jsonl``, as Kimi-Audio-Evalkit's ``almeval/models/qwen_audio.py``
and lmms-eval reproduce it), the most used.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import NotUsed, Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO

SPEC = DataSpec(
    name="VocalSound", variable="VOCALSOUND_DATA_DIR", metadata_key="vocalsound_data_dir",
    hub="lmms-lab-audio/vocalsound", holds="data/test-*.parquet (columns audio, spk_id, answer, age_group)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
CLASSES = ("Laughter", "Sigh", "Cough", "Throat clearing", "Sneeze", "Sniff")
AGE_GROUPS = {1: "18-25", 2: "26-48", 3: "49-80"}
PROMPT = "Classify the human vocal sound to VocalSound in English:"
# The model authors' prompts (--model_args ...,prompts=authors)
KIMI_OPTIONS = ("Identify the human vocal sound in the audio.\nOptions:\n(A) Laughter\n(B) Sigh\n(C) Cough\n"
                "(D) Throat clearing\n(E) Sneeze\n(F) Sniff\n.Answer with the option's letter from the given choices "
                "directly and only give the best option.")  # the "\n.Answer" is the source's
AUTHORS_PROMPTS = {
    # QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_vocal_sound.py:33 (the prompt from vocalsound_eval.jsonl), as
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:38 reproduces it: this task's default
    QWEN2_AUDIO: Published(PROMPT, "QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_vocal_sound.py:33 (the prompt "
                             "from its jsonl), as MoonshotAI/Kimi-Audio-Evalkit@4080c49 "
                             "almeval/models/qwen_audio.py:38 reproduces it",
                             "exact_match is that evaluation's reading (the answer, left-stripped, equal to the "
                             "class)"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:27-66 (from the Qwen2.5-Omni cookbooks)
    QWEN2_5_OMNI: Published("Classify the given human vocal sound in English.",
                              "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:27-66 (from the "
                              "Qwen2.5-Omni cookbooks)", "with the system prompt 'You are a vocal sound "
                              "classification model.' (system_prompt= in --model_args)"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:806
    KIMI_AUDIO: NotUsed(KIMI_OPTIONS, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:806",
                          "it asks for an option letter; this task's readings (lmms-eval's class-name search, "
                          "Qwen2-Audio's exact match) read class names, so every letter would be scored wrong (the "
                          "evalkit reads the letter with an LLM judge)"),
}


def _age_group(value) -> int | None:
    """``age_group`` as a number, whether the copy stores 1 or "1" (lmms-eval reads it through str())."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "VocalSound test" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, "data/test-*.parquet", label, notes)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "VocalSound", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default)
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, ["spk_id", "answer", "age_group"], "audio",
                                                speech_sets.SpeechDataError, SPEC.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            if row.get("answer") not in CLASSES:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"answer {row.get('answer')!r} is none of "
                            f"VocalSound's classes ({', '.join(CLASSES)})")
                continue
            speaker = str(row.get("spk_id") or "")
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", row["answer"], "", instruction, audio_table=str(path),
                audio_row=audio_row, audio_problem=problem or "", speaker=speaker,
                gender={"f": "female", "m": "male"}.get(speaker[:1], "unknown"),
                age=AGE_GROUPS.get(_age_group(row.get("age_group")), "unknown")))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
