"""Clotho's captioning test set as read from the Hub: the CLAPv2/Clotho copy (``audio`` cell, ``raw_text`` list of the five captions; its ``test`` split is Clotho's evaluation split), as mteb's ClothoA2TRetrieval and other readers on GitHub load it (``load_dataset("CLAPv2/Clotho", split="test")``, ``item["raw_text"]``).
Files ``data/test-*.parquet``; column ``audio`` (an ``Audio`` cell) and ``raw_text`` (the reference captions: a list,
or one string read as a list of one). 1,045 clips, 5 reference(s) each: audio-captioning/clotho-dataset's README and Drossos et al., ICASSP 2020 (Clotho v2.1 evaluation: 1,045 clips, 5 captions each).

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9), the one
text prompt a peer evaluation publishes for these sets (Qwen-Audio's base model is asked with special tokens,
``<|caption_clotho|>``, QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143, no text).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: Qwen-Audio's model card (Clotho CIDEr 0.441, SPICE 0.136, SPIDEr 0.288) scored by QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:27-49 (caption-evaluation-tools' coco_caption: PTB tokenizer, Cider, Meteor, Spice; SPIDEr their mean), on its own ``data/caption/clotho_eval.jsonl``, not a Hub copy).

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
    name="Clotho captioning", variable="CLOTHO_CAPTION_DATA_DIR", metadata_key="clotho_caption_data_dir", hub="CLAPv2/Clotho",
    holds="data/test-*.parquet (columns audio, raw_text)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "raw_text"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:9


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "Clotho captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
