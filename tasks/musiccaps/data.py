"""MusicCaps's captioning evaluation set, read from a Hub copy in an ASSUMED layout that could NOT be confirmed.

``CLAPv2/MusicCaps`` exists (the CLAPv2 organisation's dataset listing on the Hub: about 5.35k rows), but no dataset
card, file listing or evaluation reading its test clips was found. Its readers on GitHub load ``split="train"`` and read
``caption`` (one string), ``aspect_list``, ``ytid``, ``start_s``, ``end_s``, ``index`` and ``audio``, and split it
themselves: evidence that it has no ``test`` split and no ``raw_text`` column. This task reads
``data/test-*.parquet`` with ``audio`` and ``raw_text`` (CLAPv2's Clotho schema), so against the Hub copy it most
likely stops with "holds no data/test-*.parquet". It does NOT select the ``is_audioset_eval`` clips either: a copy
holding all of MusicCaps would be scored whole.

MusicCaps (google/MusicCaps ``musiccaps-public.csv``, Agostinelli et al., 2023, MusicLM): 5,521 clips, one caption
each, 2,858 of them ``is_audioset_eval`` (google/MusicCaps has the captions and YouTube ids, no audio).

The instruction: UltraEval-Audio's caption prompt ``describe the audio:`` (OpenBMB/UltraEval-Audio@9b69da6
registry/prompt/caption.yaml:10). MiDashengLM's card used its own, ``Caption this music track``
(xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:18).

Scoring: CIDEr-D, SPICE, SPIDEr and METEOR 1.5 (``meteor_dcase``) over the whole set, each clip against its one
caption (``lm_eval_audio.metrics.captioning``). No reference evaluation computes these on MusicCaps: MiDashengLM's
card reports FENSE (xiaomi-research/dasheng-lm@2e3f2b0 evaluate/compute_fense.py:20-32, per item; not computed here:
its SBERT and error-checker weights come from outside PyPI), so these numbers compare with no card's.

A clip that is missing or unplayable has no answer: counted (``audio_missing``) and scored as the empty caption.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import caption_sets, speech_sets
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="MusicCaps captioning", variable="MUSICCAPS_DATA_DIR", metadata_key="musiccaps_data_dir", hub="CLAPv2/MusicCaps",
    holds=("data/test-*.parquet (columns audio, raw_text): an ASSUMED layout, not confirmed on the Hub, where "
           "CLAPv2/MusicCaps is read as split train with a caption column (tasks/musiccaps/README.md)"), sample=Path(__file__).resolve().parent / "sample_data",
    error=speech_sets.SpeechDataError)
REFERENCES = "raw_text"
PROMPT = "describe the audio:"  # OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/caption.yaml:10


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "MusicCaps captioning test" + (" sample" if sample else "")
    return caption_sets.load_docs(SPEC, label, REFERENCES, PROMPT, metadata, sample, notes=notes)
