"""A judge that listens: a spoken answer given to the judge as part of its prompt.

A judge request names a saved WAV file (:func:`audio_part`: its path and sha256); what the endpoint gets is the
file itself, as OpenAI's chat completions take audio input (``{"type": "input_audio", "input_audio": {"data":
<base64>, "format": "wav"}}``; Gemini's OpenAI-compatible endpoint reads the same). The cache keys the clip by its
sha256 alone (:func:`for_key`), so the same answer saved in another folder is the same question; the judge log keeps
the path and sha256, not the bytes.
"""

from __future__ import annotations

import base64
import hashlib

from lm_eval_audio.storage.digests import file_sha256

KIND = "audio_file"  # a judge message part of ours, never sent as it is


def audio_part(path: str, sha256: str | None = None) -> dict:
    """The part that gives the judge the WAV file at ``path``; ``sha256``: its content as it was saved (a spoken
    answer's sidecar records it), read now where not given."""
    return {"type": KIND, "path": str(path), "sha256": sha256 or file_sha256(str(path))}


def _parts(messages: list[dict], change) -> list[dict]:
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [change(part) if part.get("type") == KIND else part for part in content]
        out.append({**message, "content": content})
    return out


def for_key(messages: list[dict]) -> list[dict]:
    """The messages as the cache keys them: each clip by its content alone."""
    return _parts(messages, lambda part: {"type": KIND, "sha256": part["sha256"]})


def for_wire(messages: list[dict]) -> list[dict]:
    """The messages as the endpoint gets them: each clip's file, base64, checked against the sha256 it was named
    with (an answer changed on disk since is an error of that request, not another answer judged)."""
    def sent(part: dict) -> dict:
        with open(part["path"], "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != part["sha256"]:
            raise ValueError(f"{part['path']} is not the file given to the judge (its sha256 differs): it changed since")
        return {"type": "input_audio", "input_audio": {"data": base64.b64encode(data).decode("ascii"), "format": "wav"}}

    return _parts(messages, sent)

