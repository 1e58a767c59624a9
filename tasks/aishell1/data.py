"""AISHELL-1's test set as the peer toolkits read it from the Hub: ``TwinkStart/AISHELL-1`` (UltraEval-Audio's
``registry/dataset/aishell.yaml``: split ``test``, reference ``text``), parquet shards ``data/test-*.parquet`` holding
each clip in its ``audio`` cell beside its ``text``: the 7,176 utterances of OpenSLR SLR33's test set (AudioBench's
``AudioLLMs/aishell_1_zh_test`` holds 6,920 of them). The shard names follow the Hub's parquet convention; the
loader reads whatever ``data/test-*.parquet`` the snapshot lists, and says so where it lists none.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO

SPEC = DataSpec(
    name="AISHELL-1", variable="AISHELL1_DATA_DIR", metadata_key="aishell1_data_dir", hub="TwinkStart/AISHELL-1",
    holds="data/test-*.parquet (columns audio, text)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# Kimi-Audio-Evalkit (MoonshotAI/Kimi-Audio-Evalkit@4080c49, data/download_benchmark.py): AISHELL-1's question
PROMPT = "请把这段语音转录成文本。"
# The model authors' prompts (--model_args ...,prompts=authors): their Mandarin speech recognition prompts, and
# Kimi-Audio-Evalkit's AISHELL-1 question (MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:438,
# this task's default)
AUTHORS_PROMPTS = {
    **author_prompts.speech_recognition("zh", "Chinese"),
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:438"),
}


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "AISHELL-1 test" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, "data/test-*.parquet", label, notes)
    scoring = speech_sets.chinese_cer(metadata)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "AISHELL-1", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default, scoring)
    return speech_sets.parquet_docs(shards, "text", None, label, scoring, instruction, notes, language="zh")
