"""AudioCaps's captioning test set as read from the Hub: the TwinkStart/AudioCaps copy UltraEval-Audio reads
(OpenBMB/UltraEval-Audio@9b69da6 registry/dataset/AudioCaps.yaml:5-7: split ``test``, ``ref_col: caption``).
Its dataset card (huggingface.co/datasets/TwinkStart/AudioCaps README.md at 7405ddc): files ``data/test-*``
(``data/test-000NN-of-01670.parquet``), columns ``audiocap_id``, ``youtube_id``, ``start_time``, ``caption`` (ONE
caption, a string), ``WavPath``, ``audio``; 3,985 rows. AudioCaps' test split is 975 clips with 5 captions each
(cdjkim/audiocaps dataset/test.csv, Kim et al., NAACL 2019): this copy holds one ROW per caption (3,985 rows: 797 clips if each
kept its five, the clips YouTube still had; not counted here).

As UltraEval-Audio scores it (audio_evals/agg/base.py:141-155: a string reference read as a list of one), every row
is an item: the clip is asked once per caption and each answer is scored against that ONE caption. This is not
AudioCaps' usual evaluation (one answer a clip against its five captions, as DCASE's caption-evaluation-tools does):
CIDEr-D, METEOR and SPICE come out different (fewer references, a different IDF). The README says so.

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6
registry/prompt/caption.yaml:10). MiDashengLM's card used its own (xiaomi-research/dasheng-lm@2e3f2b0
evaluate/prompt.csv:19); Qwen-Audio's base model is asked with task tags, no text
(QwenLM/Qwen-Audio@0b0e882 eval_audio/evaluate_caption.py:143).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set (``lm_eval_audio.metrics.
captioning``, coco-caption's code as UltraEval-Audio's ``audio_evals/lib/coco.py:137-167`` runs it from PyPI's
pycocoevalcap). Audio Flamingo 3 and MiDashengLM print AudioCaps numbers (CIDEr; FENSE) from their own evaluation
files, not reproduced here.

A clip that is missing or unplayable has no answer: counted (``audio_missing``) and scored as the empty caption
(it stays in the corpus, whose CIDEr-D IDF counts its references; UltraEval-Audio would stop, unable to load it).
The answer is scored as the model wrote it (the PTB tokenizer lower-cases it and drops punctuation).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import caption_sets, speech_sets
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="AudioCaps captioning", variable="AUDIOCAPS_CAPTION_DATA_DIR", metadata_key="audiocaps_caption_data_dir", hub="TwinkStart/AudioCaps",
    holds="data/test-*.parquet (columns audio, caption: one caption a row)", sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "caption"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:10


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "AudioCaps captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
