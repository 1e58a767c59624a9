"""Audio for the bundled synthetic samples, made on this machine: speech from espeak-ng (through sox, with a
repeatable dither), tones, beeps and noise from numpy. Each benchmark folder's ``make_sample.py`` builds its
sample in the benchmark's official layout from these; with the same espeak-ng, sox and libsndfile builds a re-run
writes byte-identical files. Clips are mono 16-bit PCM at 16 kHz, at most 3.5 s.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

SR = 16000
MAX_SECONDS = 3.5
# The ``dataset`` / ``dataset_name`` / ``source`` of every item of every bundled sample: synthetic clips in a
# benchmark's layout, never benchmark data; whatever reports on them says so.
SYNTHETIC_SAMPLE_DATASET = "lm_eval_audio_synthetic"


def speak(text: str, voice: str = "en", pitch: int = 50, speed: int = 170) -> np.ndarray:
    """espeak-ng -> sox (16 kHz mono 16-bit, repeatable dither) -> float32 in [-1, 1], silence trimmed."""
    with tempfile.TemporaryDirectory() as tmp:
        raw, res = Path(tmp) / "raw.wav", Path(tmp) / "16k.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-b", "1", "-w", str(raw), text],
            check=True,
        )
        subprocess.run(["sox", "-R", str(raw), "-r", str(SR), "-c", "1", "-b", "16", str(res)], check=True)
        pcm, sr = sf.read(res, dtype="int16")
    assert sr == SR
    return trim_silence(pcm.astype(np.float32) / 32768.0)


def trim_silence(x: np.ndarray, threshold: float = 0.01, pad: float = 0.03) -> np.ndarray:
    loud = np.flatnonzero(np.abs(x) > threshold)
    if loud.size == 0:
        return x
    p = int(pad * SR)
    return x[max(0, loud[0] - p) : loud[-1] + p + 1]


def fit(x: np.ndarray, seconds: float) -> np.ndarray:
    """Cut to at most `seconds`, with a 30 ms fade-out if anything was cut."""
    n = int(round(seconds * SR))
    if len(x) <= n:
        return x
    x = x[:n].copy()
    f = int(0.03 * SR)
    x[-f:] *= np.linspace(1.0, 0.0, f, dtype=np.float32)
    return x


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(round(seconds * SR)), dtype=np.float32)


def envelope(n: int, attack: float = 0.01, release: float = 0.05) -> np.ndarray:
    env = np.ones(n, dtype=np.float64)
    a, r = min(int(attack * SR), n // 2), min(int(release * SR), n // 2)
    if a:
        env[:a] = np.linspace(0.0, 1.0, a)
    if r:
        env[-r:] = np.linspace(1.0, 0.0, r)
    return env


def midi_hz(p: int) -> float:
    return 440.0 * 2.0 ** ((p - 69) / 12)


def harmonic_tone(pitch: int, seconds: float = 1.0, peak: float = 0.6) -> np.ndarray:
    """Fundamental + 5 harmonics (amplitude 1/k**1.5, higher ones decaying faster), attack/release envelope."""
    t = np.arange(int(round(seconds * SR))) / SR
    f0 = midi_hz(pitch)
    x = np.zeros_like(t)
    for k in range(1, 7):
        if k * f0 < SR / 2 - 500:
            x += np.sin(2 * np.pi * k * f0 * t) * np.exp(-t * (1.0 + 1.5 * k)) / k**1.5
    x *= envelope(len(t), 0.01, 0.08)
    return (x * (peak / np.max(np.abs(x)))).astype(np.float32)


def beep(hz: float, seconds: float, amp: float) -> np.ndarray:
    t = np.arange(int(round(seconds * SR))) / SR
    return (amp * np.sin(2 * np.pi * hz * t) * envelope(len(t), 0.005, 0.005)).astype(np.float32)


def noise(rng: np.random.Generator, seconds: float, amp: float) -> np.ndarray:
    return rng.uniform(-amp, amp, int(round(seconds * SR))).astype(np.float32)


def place(base: np.ndarray, clip: np.ndarray, start: float) -> None:
    i = int(round(start * SR))
    base[i : i + len(clip)] += clip[: max(0, len(base) - i)]


def to_pcm16(x: np.ndarray) -> np.ndarray:
    assert len(x) <= int(MAX_SECONDS * SR), f"clip too long: {len(x) / SR:.2f} s"
    return np.clip(np.round(x.astype(np.float64) * 32767.0), -32768, 32767).astype(np.int16)


def write_audio(x: np.ndarray, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fmt = "FLAC" if out.suffix == ".flac" else "WAV"
    sf.write(out, to_pcm16(x), SR, format=fmt, subtype="PCM_16")


def beeps(count: int, hz: float = 880.0) -> np.ndarray:
    x = silence(0.3 + 0.45 * count)
    for i in range(count):
        place(x, beep(hz, 0.2, 0.5), 0.15 + 0.45 * i)
    return x


def melody(pitches: list[int], note: float = 0.45) -> np.ndarray:
    return np.concatenate([harmonic_tone(p, note, 0.5) for p in pitches])


def mix(*parts: np.ndarray) -> np.ndarray:
    n = max(len(p) for p in parts)
    out = np.zeros(n, dtype=np.float32)
    for p in parts:
        out[: len(p)] += p
    return np.clip(out, -0.99, 0.99)


def said(text: str, voice: str = "en") -> np.ndarray:
    return fit(speak(text, voice), 3.2)


def said_whole(text: str, voice: str = "en") -> np.ndarray:
    """The text said by espeak-ng, whole: faster where needed to stay within a sample's clip length (``said`` cuts a
    clip to length, which would cut off a spoken question's end)."""
    for speed in (175, 210, 250, 300):
        x = speak(text, voice, speed=speed)
        if len(x) <= int((MAX_SECONDS - 0.05) * SR):
            return x
    raise SystemExit(f"{text!r} is too long to say in {MAX_SECONDS} s: shorten it")


def shuffled(rng, correct: str, others: list[str]) -> list[str]:
    options = [correct, *others]
    return [options[i] for i in rng.permutation(len(options))]




def fresh_folder(out: Path, marker: str) -> None:
    """Delete ``out`` before it is written again, only if a README holding ``marker`` says this script made it."""
    if out.exists():
        readme = out / "README.md"
        if any(out.iterdir()) and not (readme.is_file() and marker in readme.read_text(encoding="utf-8")):
            raise SystemExit(f"refusing to delete {out}: it is not a folder this script made")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def write_sample(benchmark: str, folder: Path, make) -> None:
    """Make a benchmark's sample in ``folder/sample_data`` (``make(out) -> items``) with the README saying what it is;
    the folder is replaced only if that README says this script made it."""
    script = f"tasks/{folder.name}/make_sample.py"
    marker = f"SYNTHETIC data generated by {script}"
    out = folder / "sample_data"
    fresh_folder(out, marker)
    count = make(out)
    (out / "README.md").write_text(
        f"# {marker}\n\nA few items in {benchmark}'s official layout, whose answers are known by construction "
        f"(espeak-ng speech, numpy tones, beeps and noise): {count} items. **None of this is {benchmark} data**; its "
        "numbers say nothing about the benchmark. It lets the tasks, their scoring and `lm-eval-audio diagnose` run "
        f"offline. Regenerate with `.venv/bin/python {script}`.\n", encoding="utf-8")
    print(f"{benchmark}: {count} items in {out}")


def wav_bytes(x: np.ndarray) -> bytes:
    """A clip as the bytes of a 16 kHz mono 16-bit WAV file (a table's ``Audio`` cell, a tar member)."""
    import io

    buffer = io.BytesIO()
    sf.write(buffer, to_pcm16(x), SR, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def write_audio_parquet(path: Path, rows: list[dict]) -> None:
    """``rows`` as one parquet file, an ``Audio`` cell (``{"bytes", "path"}``) where a row holds one: the layout the
    Hub's parquet datasets publish (a benchmark's make_sample lists the columns in its official order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def write_transcript_splits(out: Path, items: dict) -> int:
    """Spoken sentences laid out as a dataset script's per-language test split (``benchmarks.split_layouts``'s
    transcript layout): ``data/<lang>/test.tsv`` (no header, tab-separated: ``id``, ``file_name``,
    ``raw_transcription``, ``transcription``, its characters with ``|`` between words, ``num_samples``, ``gender``)
    beside ``data/<lang>/audio/test.tar.gz`` holding ``test/<file_name>``. ``items``: language -> (espeak-ng voice,
    [(sentence id, raw transcription, transcription, gender)]); a sentence id given twice is two speakers of it.
    Returns the number of clips written."""
    import io
    import tarfile

    count = 0
    for language, (voice, rows) in items.items():
        folder = out / "data" / language
        (folder / "audio").mkdir(parents=True)
        lines = []
        with tarfile.open(folder / "audio" / "test.tar.gz", "w:gz") as tar:
            for k, (sentence_id, raw, text, gender) in enumerate(rows):
                samples = said_whole(raw, voice)
                buffer = io.BytesIO(wav_bytes(samples))
                name = f"{sentence_id}{k:04d}.wav"
                info = tarfile.TarInfo(f"test/{name}")
                info.size, info.mtime = len(buffer.getvalue()), 0
                buffer.seek(0)
                tar.addfile(info, buffer)
                characters = " | ".join(" ".join(word) for word in text.split()) + " |"
                lines.append("\t".join([str(sentence_id), name, raw, text, characters, str(len(samples)), gender]))
                count += 1
        (folder / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count
