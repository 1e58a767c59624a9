"""WenetSpeech's test sets as the peer toolkits read them from the Hub: ``TwinkStart/WenetSpeech`` (UltraEval-Audio's
``registry/dataset/WenetSpeech.yaml``: splits ``test_net`` and ``test_meeting``, reference ``text``), parquet
shards ``data/test_net-*.parquet`` (24,774 utterances) and ``data/test_meeting-*.parquet`` (8,370), columns
``sid`` (the corpus's utterance id), ``confidence``, ``begin_time``, ``end_time``, ``subsets``, ``text``,
``WavPath`` and ``audio``. The official corpus (wenet-e2e/wenetspeech) is gated; these are its test sets, whole.
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
    name="WenetSpeech", variable="WENETSPEECH_DATA_DIR", metadata_key="wenetspeech_data_dir",
    hub="TwinkStart/WenetSpeech", holds="data/test_net-*.parquet and data/test_meeting-*.parquet",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
SPLITS = ("test_net", "test_meeting")
# Kimi-Audio-Evalkit (MoonshotAI/Kimi-Audio-Evalkit@4080c49, data/download_benchmark.py): WenetSpeech's question
PROMPT = "请把这段语音转录成文本。"
# The model authors' prompts (--model_args ...,prompts=authors): their Mandarin speech recognition prompts, and
# Kimi-Audio-Evalkit's WenetSpeech question (MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:307,
# this task's default)
AUTHORS_PROMPTS = {
    **author_prompts.speech_recognition("zh", "Chinese"),
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:307"),
}


def load_docs(split: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    if split not in SPLITS:
        raise speech_sets.SpeechDataError(f"WenetSpeech has no test split {split!r}: give one of {', '.join(SPLITS)}")
    label = f"WenetSpeech {split}" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, f"data/{split}-*.parquet", label, notes)
    scoring = speech_sets.chinese_cer(metadata)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "WenetSpeech", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default, scoring)
    return speech_sets.parquet_docs(shards, "text", "sid", label, scoring, instruction, notes, language="zh")
