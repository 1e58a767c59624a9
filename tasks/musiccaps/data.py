"""MusicCaps's captioning test set as read from the Hub: assumed the CLAPv2 layout (``audio`` cell, ``raw_text`` list) of CLAPv2/Clotho: no peer evaluation reading a MusicCaps copy with audio was found (google/MusicCaps has no audio).
Files ``data/test-*.parquet``; column ``audio`` (an ``Audio`` cell) and ``raw_text`` (the reference captions: a list,
or one string read as a list of one). 2,858 clips, 1 reference(s) each: google/MusicCaps musiccaps-public.csv (Agostinelli et al., 2023, MusicLM): 5,521 clips, 2,858 of them ``is_audioset_eval``, one caption each; a Hub copy holds the clips YouTube still had.

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9), the one
text prompt a peer evaluation publishes for these sets (Qwen-Audio's base model is asked with special tokens,
``<|caption_clotho|>``, QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143, no text).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: MiDashengLM's card (MusicCaps FENSE) from xiaomi-research/dasheng-lm@2e3f2b0 evaluate/compute_fense.py:20-32 (per-item FENSE, not computed here: its SBERT and error-checker weights come from outside PyPI)).

A clip that is missing or unplayable has no answer: counted (``audio_missing``) and scored as the empty caption
(it stays in the corpus, whose CIDEr-D IDF counts its references). The answer is scored as the model wrote it (the
PTB tokenizer lower-cases it and drops punctuation).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import caption_sets, speech_sets
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="MusicCaps captioning", variable="MUSICCAPS_DATA_DIR", metadata_key="musiccaps_data_dir", hub="CLAPv2/MusicCaps",
    holds="data/test-*.parquet (columns audio, raw_text)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "raw_text"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "MusicCaps captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
