"""AudioCaps's captioning test set as read from the Hub: the TwinkStart/AudioCaps copy UltraEval-Audio reads (OpenBMB/UltraEval-Audio@9b69da6 registry/dataset/AudioCaps.yaml:5-7: split ``test``, ``ref_col: caption``; its Coco aggregation, audio_evals/agg/base.py:141-155, takes ``caption`` as a list of references or one string).
Files ``data/test-*.parquet``; column ``audio`` (an ``Audio`` cell) and ``caption`` (the reference captions: a list,
or one string read as a list of one). 975 clips, 5 reference(s) each: cdjkim/audiocaps dataset/test.csv (Kim et al., NAACL 2019): 975 clips, 5 captions each (4,875 rows); a Hub copy holds the clips YouTube still had.

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9), the one
text prompt a peer evaluation publishes for these sets (Qwen-Audio's base model is asked with special tokens,
``<|caption_clotho|>``, QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143, no text).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: UltraEval-Audio's caption task (OpenBMB/UltraEval-Audio@9b69da6 registry/eval_task/caption.yaml, agg ``coco``: audio_evals/agg/base.py:141-155, the coco-caption metrics); Audio Flamingo 3 and MiDashengLM print AudioCaps numbers (CIDEr; FENSE) from their own evaluation files).

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
    name="AudioCaps captioning", variable="AUDIOCAPS_CAPTION_DATA_DIR", metadata_key="audiocaps_caption_data_dir", hub="TwinkStart/AudioCaps",
    holds="data/test-*.parquet (columns audio, caption)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "caption"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "AudioCaps captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
