"""MMAU's data in its official layout (Sakshi113/MMAU), read by the shared multiple-choice loader
(``lm_eval_audio.benchmarks.choice_layout``).

``mmau-test-mini.json`` (1,000 items) and ``mmau-test.json`` (9,000, answers withheld), JSON lists with ``id,
audio_id, question, choices, answer, dataset, task, split, category, sub-category, difficulty``; ``audio_id`` is
the clip's path relative to the JSON's folder (``./test-mini-audios/<id>.wav``). ``category`` is a string or, 13
times in test-mini, a one-element list. ``evaluation.py`` reports accuracy per ``task`` (sound, music, speech), per
``difficulty`` and per ``sub-category``.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import Layout
from lm_eval_audio.tasks.mmau.hub_audio import ParquetClips

FOLDER = str(Path(__file__).resolve().parent)
GROUPS = {"task": ("sound", "music", "speech"), "difficulty": ("easy", "hard", "medium")}
TEST_MINI = Layout(
    "MMAU test-mini", "MMAU_DATA_DIR", "mmau_data_dir", ("mmau-test-mini.json",), "audio_id", GROUPS,
    "Download mmau-test-mini.json from github.com/Sakshi113/MMAU and its clips into test-mini-audios/ beside it "
    "(the authors publish them in huggingface.co/datasets/gamma-lab-umd/MMAU-test-mini).",
    "mmau_sample", FOLDER,
    # The Hub holds the clips in parquet rows; the questions scored are the bundled official JSON (hub_audio.py)
    hub=ParquetClips())
# Not fetched: the submission file is mmau-test.json's records with the answers added, and the Hub holds the
# test set as re-packed parquet rows (gamma-lab-umd/MMAU-test), not that file.
TEST = Layout(
    "MMAU test", "MMAU_DATA_DIR", "mmau_data_dir", ("mmau-test.json",), "audio_id", GROUPS,
    "Download mmau-test.json from github.com/Sakshi113/MMAU and its clips into test-audios/ beside it (the authors "
    "publish them in huggingface.co/datasets/gamma-lab-umd/MMAU-test).",
    "mmau_sample", FOLDER, answers_withheld=True)
