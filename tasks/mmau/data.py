"""MMAU's data in its official layout (Sakshi113/MMAU), read by the shared multiple-choice loader
(``lm_eval_audio.benchmarks.choice_layout``).

``mmau-test-mini.json`` (1,000 items) and ``mmau-test.json`` (9,000, answers withheld), JSON lists with ``id,
audio_id, question, choices, answer, dataset, task, split, category, sub-category, difficulty``; ``audio_id`` is
the clip's path relative to the JSON's folder (``./test-mini-audios/<id>.wav``). ``category`` is a string or, 13
times in test-mini, a one-element list. ``evaluation.py`` reports accuracy per ``task`` (sound, music, speech), per
``difficulty`` and per ``sub-category``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lm_eval_audio.model_wrappers.author_prompts import OwnFormat, Published, QWEN3_OMNI_OWN_FORMAT_SOURCE
from lm_eval_audio.benchmarks import choice_layout
from lm_eval_audio.benchmarks.choice_layout import Layout
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.tasks.mmau.hub_audio import ParquetClips
from lm_eval_audio.model_wrappers.family_adapters.audio_flamingo import AUDIO_FLAMINGO_3
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN3_OMNI

GROUPS = {"task": ("sound", "music", "speech"), "difficulty": ("easy", "hard", "medium")}
MINI_DATA = DataSpec(
    "MMAU test-mini", "MMAU_DATA_DIR", "mmau_data_dir", sample=Path(__file__).resolve().parent / "sample_data",
    holds=("mmau-test-mini.json",),
    download="Download mmau-test-mini.json from github.com/Sakshi113/MMAU and its clips into test-mini-audios/ beside "
    "it (the authors publish them in huggingface.co/datasets/gamma-lab-umd/MMAU-test-mini).",
    # The Hub holds the clips in parquet rows; the questions scored are the bundled official JSON (hub_audio.py)
    hub=ParquetClips(), advice=choice_layout.advice, error=choice_layout.LayoutDataError)
TEST_MINI = Layout(MINI_DATA, "audio_id", GROUPS)
# Not fetched: the submission file is mmau-test.json's records with the answers added, and the Hub holds the
# test set as re-packed parquet rows (gamma-lab-umd/MMAU-test), not that file.
TEST = Layout(replace(
    MINI_DATA, name="MMAU test", hub=None, holds=("mmau-test.json",),
    download="Download mmau-test.json from github.com/Sakshi113/MMAU and its clips into test-audios/ beside it (the "
    "authors publish them in huggingface.co/datasets/gamma-lab-umd/MMAU-test)."), "audio_id", GROUPS,
    answers_withheld=True)

# The model authors' prompts (--model_args ...,prompts=authors). Both formats ask for no letter: official_acc (MMAU's
# string match) reads the option's text, glitters_acc reads a letter or the text.
# Audio Flamingo 3's multiple-choice format, verbatim in the one benchmark file its authors ship,
# NVIDIA/audio-flamingo@1337fb9 (branch audio_flamingo_3) static/mmar.json (MMAR), and in llava/eval/app.py:186-187:
# the question, one space, the sentence, each option on its own line; the gold output is the option's text
AF3_MCQ = "{question} Choose the correct option from the following options:\n{options}"
AF3_MCQ_SOURCE = "NVIDIA/audio-flamingo@1337fb9 (branch audio_flamingo_3) static/mmar.json; llava/eval/app.py:186-187"
# Kimi-Audio-Evalkit's MMAU test-mini question: MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:626-630
KIMI_MCQ = "{question}\n{options_inline}"
AUTHORS_PROMPTS = {
    # QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation": benchmarks with their own formatting keep it
    QWEN3_OMNI: OwnFormat(QWEN3_OMNI_OWN_FORMAT_SOURCE, "MMAU publishes no prompt: the one asked is arXiv "
                            "2604.24401's (metrics.choice_matching.mcq_prompt)"),
    AUDIO_FLAMINGO_3: Published(AF3_MCQ, AF3_MCQ_SOURCE,
                                  "the authors' MMAU file is not published (llava/eval/eval_audio_bench.py:115 reads "
                                  "each question from it; llava/eval/registry_audio.yaml lists MMAU): the format is "
                                  "that of the file they ship, MMAR's"),
    KIMI_AUDIO: Published(KIMI_MCQ, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:626-630",
                            "the evalkit reads the answer with an LLM judge that takes a bare letter "
                            "(almeval/datasets/ds_mqa.py:16-34); here official_acc reads only the option's text (a "
                            "bare letter counts wrong), glitters_acc reads letters too"),
}
