"""The one way the plugin runs FFmpeg: for codecs libsndfile cannot read, and to encode MP3."""

from __future__ import annotations

import shutil
import subprocess

from lm_eval_audio.audio.errors import AudioError


def run(args: list[str], data: bytes | None, where: str, needed_for: str, failure: str) -> bytes:
    """``ffmpeg -nostdin -v error ARGS`` with ``data`` on standard input; its standard output.
    Raises :class:`AudioError` naming ``where`` when the binary is missing (``needed_for``
    says what it was needed for) or, as ``failure`` with FFmpeg's last error line, when it
    fails or writes nothing."""
    exe = shutil.which("ffmpeg")
    if exe is None:
        raise AudioError(f"{where}: {needed_for} needs the `ffmpeg` binary, which is not on PATH; install FFmpeg "
                         "(apt-get install ffmpeg)")
    proc = subprocess.run([exe, "-nostdin", "-v", "error", *args], input=data, capture_output=True)
    if proc.returncode != 0 or not proc.stdout:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise AudioError(f"{where}: {failure} ({err[-1] if err else 'ffmpeg wrote nothing'})")
    return proc.stdout
