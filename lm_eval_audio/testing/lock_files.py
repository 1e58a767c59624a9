"""The lock files under ``requirements/`` (written by ``scripts/write_lock.sh``, installed by ``scripts/setup.sh``):
read into name -> version, and two compared, for ``tests/test_lock.py`` and ``scripts/check_newest.sh``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

_PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)")


def locked(path: Path) -> dict[str, str]:
    """name (canonical) -> version of a uv-written requirements file; a pin without a hash is an error, since pip
    could then install a file nobody checked."""
    from packaging.utils import canonicalize_name

    pins = {}
    for entry in re.split(r"\n(?=[A-Za-z0-9])", Path(path).read_text()):
        match = _PIN.match(entry)
        if not match:
            continue
        name = canonicalize_name(match.group(1).split("[")[0])
        if "--hash=sha256:" not in entry:
            raise ValueError(f"{Path(path).name}: {name} has no hash, so pip cannot check its files")
        pins[name] = match.group(2).rstrip(" \\;")
    return pins


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """'name old -> new' for each release that differs, 'name new (added)' and 'name old (gone)'."""
    lines = [f"{n} {before[n]} -> {after[n]}" for n in sorted(before.keys() & after.keys()) if before[n] != after[n]]
    lines += [f"{n} {after[n]} (added)" for n in sorted(after.keys() - before.keys())]
    return lines + [f"{n} {before[n]} (gone)" for n in sorted(before.keys() - after.keys())]


if __name__ == "__main__":  # python -m lm_eval_audio.testing.lock_files BEFORE AFTER
    for line in changed(locked(Path(sys.argv[1])), locked(Path(sys.argv[2]))):
        print(f"  {line}")
