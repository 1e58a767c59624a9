"""Clotho's captioning test set (v2.1's evaluation split, the DCASE captioning test set) as read from the Hub: the
mteb/Clotho copy, whose dataset card (huggingface.co/datasets/mteb/Clotho README.md at c44521c) gives split ``test``,
files ``data/test-*``, 1,045 rows and columns ``index``, ``datasetname``, ``audio``, ``audio_len``, ``text`` (the
captions joined in one string) and ``raw_text`` (a sequence of strings: the captions). Read here: ``audio`` and
``raw_text`` (a list, or one string read as a list of one). 1,045 clips, 5 captions each (the card's 1,045 rows;
aac-datasets' Clotho page: evaluation, 1,045 files; Drossos et al., ICASSP 2020: five captions a clip).

Not CLAPv2/Clotho (the copy mteb's ClothoA2TRetrieval loads, at revision b491ad6, reading ``index``, ``audio`` and
``text`` split on "."): readers list its files under ``data/train/`` (an Unsloth EmbeddingGemma audio notebook the
code index holds, its repository not named there: ``f.rfilename.startswith("data/train/")``; weak evidence), not ``data/<split>-*.parquet``; its test files' names were
not found.

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6
registry/prompt/caption.yaml:10). MiDashengLM's card used its own (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/prompt.csv:20); Qwen-Audio's base model is asked with task tags, ``<|caption_clotho|>``, no text
(QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip
against all its reference captions, as the DCASE baseline's caption-evaluation-tools (coco-caption) computes them
(``lm_eval_audio.metrics.captioning``; the reference evaluation the numbers come from: Qwen-Audio's model card
(Clotho CIDEr 0.441, SPICE 0.136, SPIDEr 0.288) scored by QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:27-53
(caption-evaluation-tools' coco_caption: PTB tokenizer, Cider, Meteor, Spice; SPIDEr their mean), on its own
``data/caption/clotho_eval.jsonl``, not a Hub copy).

A clip that is missing or unplayable has no answer: counted (``audio_missing``) and scored as the empty caption
(it stays in the corpus, whose CIDEr-D IDF counts its references). Neither reference does that: Qwen-Audio's script
stops on a clip it cannot load, and caption-evaluation-tools scores only the clips its prediction file lists
(eval_metrics.py:269-297, audio-captioning/caption-evaluation-tools@c1798df). The answer is scored as the model wrote
it (the PTB tokenizer lower-cases it and drops punctuation).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import caption_sets, speech_sets
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="Clotho captioning", variable="CLOTHO_CAPTION_DATA_DIR", metadata_key="clotho_caption_data_dir", hub="mteb/Clotho",
    holds="data/test-*.parquet (columns audio, raw_text)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "raw_text"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:10


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "Clotho captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
