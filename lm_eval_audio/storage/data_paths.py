"""Paths read from data files (meta JSONs, table cells), checked before they are opened."""


def leaves_folder(path: str) -> bool:
    """Whether a path from a data file would lead out of the folder it is relative to: absolute
    (a drive letter too), or climbing with ``..``. Such paths in metadata are refused."""
    text = str(path)
    return text.startswith(("/", "\\")) or (len(text) > 1 and text[1] == ":") or ".." in text.replace("\\", "/").split("/")


def audio_file_problem(path: str) -> str:
    """Why a clip named by the metadata cannot be played ("" when it can be opened): missing, or empty."""
    import os

    try:
        return "" if os.stat(path).st_size > 0 else f"empty audio file (0 bytes): {path}"
    except FileNotFoundError:
        return f"missing audio file: {path}"
