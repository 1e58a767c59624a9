"""Text to speech for the cascade's spoken answers: espeak-ng, offline.

espeak-ng (a formant synthesizer, installed by ``scripts/setup.sh``) reads the LLM's answer aloud, so the offline
baseline answers spoken tasks too. Its speech is robotic: the bundled recognizer mishears some of it, which the
cascade's ``speech_text_wer`` measures (docs/SPOKEN.md gives the figure). No better offline TTS on PyPI carries its
weights (Piper, Kokoro and the rest download their voices on first use). A text is read as it is, deterministically:
the same text gives the same samples.
"""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np

NAME = "espeak-ng"
DEFAULT_VOICE = "en-us"
WORDS_PER_MINUTE = 175  # espeak-ng's own default speed


class EspeakSpeech:
    """espeak-ng with one voice."""

    def __init__(self, voice: str | None = None) -> None:
        self.voice = voice or DEFAULT_VOICE
        binary = shutil.which(NAME)
        if binary is None:
            raise ValueError(f"cascade: spoken answers are read aloud by {NAME}, which is not installed: "
                             f"sudo apt-get install {NAME} (scripts/setup.sh installs it)")
        self.binary = binary
        try:  # the voice tried once now, before any model loads: an answer read aloud later never meets an unknown one
            self.speak("yes")
        except subprocess.CalledProcessError as e:
            said = (e.stderr or b"").decode(errors="replace").strip().splitlines()
            raise ValueError(f"cascade: voice={self.voice}: {said[0] if said else 'espeak-ng failed'}; `{NAME} "
                             f"--voices` lists them (default {DEFAULT_VOICE})") from None
        self.version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()

    def speak(self, text: str) -> tuple[np.ndarray, int]:
        """``text`` read aloud: mono float32 samples and their rate (22,050 Hz); no samples for an empty text."""
        if not text.strip():
            return np.zeros(0, dtype=np.float32), 22050
        done = subprocess.run([self.binary, "-v", self.voice, "-s", str(WORDS_PER_MINUTE), "--stdout"],
                              input=text.encode("utf-8"), capture_output=True, check=True)
        import soundfile

        samples, rate = soundfile.read(io.BytesIO(done.stdout), dtype="float32")
        return samples.reshape(-1), int(rate)

    def record(self) -> dict:
        return {"tts": NAME, "version": self.version, "voice": self.voice, "words_per_minute": WORDS_PER_MINUTE}
