"""MMAR's data in its official layout (ddlBoJack/MMAR), read by the shared multiple-choice loader
(``lm_eval_audio.benchmarks.choice_layout``).

``MMAR-meta.jsonl`` (GitHub since 2026-02-16, with ``thinking``, ``cue`` and ``rubric``) or ``MMAR-meta.json``
(the JSON list on HF ``BoJack/MMAR``, where 6 answers are none of their choices), 1,000 items with ``id,
audio_path, question, choices, answer, modality, category, sub-category``; ``audio_path`` is ``./audio/<id>.wav``
relative to the metadata's folder. ``code/evaluation.py`` reports accuracy per ``modality`` (7 mixes), per
``category`` (4 layers) and per ``sub-category``.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.model_wrappers.author_prompts import OwnFormat, Published, QWEN3_OMNI_OWN_FORMAT_SOURCE
from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.choice_layout import HubLayout, Layout
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.audio_flamingo import AUDIO_FLAMINGO_3
from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN3_OMNI

LAYOUT = Layout(
    DataSpec(
        "MMAR", "MMAR_DATA_DIR", "mmar_data_dir", sample=Path(__file__).resolve().parent / "sample_data",
        holds=("MMAR-meta.jsonl", "MMAR-meta.json"),
        download="Download MMAR-meta.json and mmar-audio.tar.gz from huggingface.co/datasets/BoJack/MMAR (or "
        "MMAR-meta.jsonl from github.com/ddlBoJack/MMAR) and unpack the audio beside it (audio/<id>.wav).",
        # HF BoJack/MMAR: MMAR-meta.json beside mmar-audio.tar.gz (about 3 GB), whose audio/ the items'
        # ./audio/<id>.wav name
        hub=HubLayout("BoJack/MMAR", "mmar-audio.tar.gz", "audio"), advice=choice_layout.advice,
        error=choice_layout.LayoutDataError),
    "audio_path",
    {"modality": ("sound", "music", "speech", "mix-sound-music", "mix-sound-speech", "mix-music-speech",
                  "mix-sound-music-speech"),
     "category": ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer")},
)

# The model authors' prompts (--model_args ...,prompts=authors). The format asks for no letter: official_acc (MMAR's
# string match) reads the option's text, glitters_acc reads a letter or the text.
# Audio Flamingo 3's multiple-choice format, verbatim in the one benchmark file its authors ship,
# NVIDIA/audio-flamingo@1337fb9 (branch audio_flamingo_3) static/mmar.json (MMAR), and in llava/eval/app.py:186-187:
# the question, one space, the sentence, each option on its own line; the gold output is the option's text
AF3_MCQ = "{question} Choose the correct option from the following options:\n{options}"
AF3_MCQ_SOURCE = "NVIDIA/audio-flamingo@1337fb9 (branch audio_flamingo_3) static/mmar.json; llava/eval/app.py:186-187"
AUTHORS_PROMPTS = {
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation": benchmarks with their own formatting keep it
    QWEN3_OMNI: OwnFormat(QWEN3_OMNI_OWN_FORMAT_SOURCE, "MMAR publishes no prompt: the one asked is arXiv "
                            "2604.24401's (metrics.choice_matching.mcq_prompt)"),
    AUDIO_FLAMINGO_3: Published(AF3_MCQ, AF3_MCQ_SOURCE),
}
