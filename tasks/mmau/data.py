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

FOLDER = str(Path(__file__).resolve().parent)
GROUPS = {"task": ("sound", "music", "speech"), "difficulty": ("easy", "hard", "medium")}
_DOWNLOAD = ("Download mmau-test-mini.json (and mmau-test.json) from github.com/Sakshi113/MMAU and their audio "
             "(test-mini-audios/, test-audios/) beside them, as the MMAU README says.")
TEST_MINI = Layout("MMAU test-mini", "MMAU_DATA_DIR", "mmau_data_dir", ("mmau-test-mini.json",), "audio_id",
                   GROUPS, _DOWNLOAD, "mmau_sample", FOLDER)
TEST = Layout("MMAU test", "MMAU_DATA_DIR", "mmau_data_dir", ("mmau-test.json",), "audio_id", GROUPS,
              _DOWNLOAD, "mmau_sample", FOLDER, answers_withheld=True)
