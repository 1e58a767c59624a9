"""JSON-lines files (lm-eval's sample logs, pair lists): every bad line named by file and number."""

from __future__ import annotations

import json
from collections.abc import Iterator


def records(path, error: type[Exception] = ValueError, hint: str = "", encoding: str = "utf-8") -> Iterator[tuple[int, object]]:
    """(line number, value) for each non-blank line; a line that is not JSON raises ``error``."""
    with open(path, encoding=encoding) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as e:
                    raise error(f"{path} line {number}: not JSON ({e}){hint}") from None


def json_list(path, error: type[Exception] = ValueError, hint: str = "; download it again") -> tuple:
    """A file holding one JSON list (a benchmark's metadata), as a tuple; anything else raises ``error``."""
    try:
        with open(path, encoding="utf-8") as f:
            items = json.load(f)
    except json.JSONDecodeError as e:
        raise error(f"{path} is not valid JSON ({e}){hint}") from None
    if not isinstance(items, list):
        raise error(f"{path} must hold a JSON list of items, got {type(items).__name__}")
    return tuple(items)
