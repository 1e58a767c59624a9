"""Speech to text for the cascade: Whisper through faster-whisper (CTranslate2) or transformers.

A :class:`Transcriber` turns clips (16 kHz mono float32) into text. Decoding is greedy
or beam search at temperature 0 only: Whisper's usual fallback to higher temperatures
samples, and would make a transcript (and every score after it) change between runs.

:class:`TranscriptCache` keeps each transcript under a hash of the audio content and of
the recognizer (backend, model files, options), in memory for the run and in a SQLite
file across runs: two tasks over the same audio transcribe it once.

Each recognizer knows what it can transcribe (:attr:`Transcriber.language`, :meth:`Transcriber.hears`): an
English-only Whisper (``tiny.en``, ...) English, a multilingual one given ``asr_language=`` that language, any other
multilingual one every language (it detects each clip's). :func:`language_code` reads a language as a document or a
user may write it ("ja", "ja_jp", "zh-CN", "cmn_hans_cn", "Japanese") as Whisper's code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re

import numpy as np

from lm_eval_audio.storage import bundled_models
from lm_eval_audio.storage.text_store import TextStore, cache_home

log = logging.getLogger("lm_eval.audio.asr")

SAMPLING_RATE = 16000
BACKENDS = ("faster-whisper", "transformers")
_WINDOW_SECONDS = 30  # Whisper's input window
CASCADE_LANGUAGE = "cascade: asr_language"  # the setting that names a recognizer's language, for its error
# Codes for a language that Whisper spells otherwise (ISO 639-3 or -2 codes, Javanese, Norwegian Bokmål)
_WHISPER_CODES = {"cmn": "zh", "zho": "zh", "chi": "zh", "eng": "en", "jpn": "ja", "fil": "tl", "jv": "jw", "nb": "no"}
_CODE = re.compile(r"([a-z]{2,3})(?:[_-][a-z0-9_-]+)?")


def language_code(value) -> str | None:
    """Whisper's code for the language ``value`` names: a code, bare or with a script and region ("en", "en_us",
    "zh-CN", "cmn_hans_cn": the first part, "cmn" read as "zh"), Whisper's token ("<|ja|>") or the language's English
    name ("Japanese", "Mandarin"); None where ``value`` is none of these."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower().removeprefix("<|").removesuffix("|>")
    code = _CODE.fullmatch(text)
    if code:
        return _WHISPER_CODES.get(code.group(1), code.group(1))
    if not text:
        return None
    try:
        from transformers.models.whisper.tokenization_whisper import TO_LANGUAGE_CODE
    except ImportError:  # pragma: no cover - transformers comes with the plugin
        return None
    return TO_LANGUAGE_CODE.get(text)


def _fingerprint(model: str) -> str:
    """What identifies a model's weights: a local folder's files (name, size, mtime), or the hub id."""
    if os.path.isdir(model):
        entries = sorted(
            (name, st.st_size, st.st_mtime_ns)
            for name in os.listdir(model)
            if os.path.isfile(path := os.path.join(model, name)) and (st := os.stat(path))
        )
        return hashlib.sha256(json.dumps([os.path.realpath(model), entries]).encode()).hexdigest()[:16]
    return model


class Transcriber:
    backend: str
    model: str
    label: str = ""  # a readable model name, when the folder's own is not one
    options: dict
    english_only: bool = False  # an English-only Whisper (tiny.en, ...)
    language: str | None = None  # the one language it transcribes ("en" for an English-only one); None: it detects
    reads_files = False  # True: :meth:`transcribe` is handed the clips' paths, and decodes them itself

    def hears(self, language: str) -> bool:
        """Whether it transcribes speech in ``language`` (Whisper's code, see :func:`language_code`)."""
        return self.language is None or language_code(self.language) == language

    @property
    def languages(self) -> str:
        """What it transcribes, in words: for the messages and the results."""
        if self.english_only:
            return "English only (an English-only Whisper)"
        if self.language:
            return f"{self.language} only (asr_language={self.language})"
        return "any language (detected in each clip)"

    @property
    def name(self) -> str:
        return f"{self.backend}:{self.label or os.path.basename(os.path.normpath(self.model))}"

    def identity(self) -> str:
        """Everything that decides a transcript, for the cache key."""
        return json.dumps([self.backend, _fingerprint(self.model), self.options], sort_keys=True)

    def transcribe(self, clips: list[np.ndarray]) -> list[str]:
        raise NotImplementedError


class FasterWhisper(Transcriber):
    backend = "faster-whisper"

    def __init__(self, model: str | None = None, language: str | None = None, beam_size: int = 5,
                 device: str = "auto", compute_type: str | None = None, named_as: str = CASCADE_LANGUAGE) -> None:
        from faster_whisper import WhisperModel

        self.model = model or bundled_models.whisper_tiny_en()
        self.label = "" if model else bundled_models.WHISPER_TINY_EN
        self.english_only = model is None or _english_only(model)
        self.language = language = _language(self.english_only, language, named_as)
        if device == "auto":
            import ctranslate2

            device = "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
        compute_type = compute_type or ("int8" if device == "cpu" else "float16")
        self.options = {"language": language, "beam_size": int(beam_size), "compute_type": compute_type}
        self._model = WhisperModel(self.model, device=device, compute_type=compute_type)

    def transcribe(self, clips: list[np.ndarray]) -> list[str]:
        out = []
        for clip in clips:
            segments, _ = self._model.transcribe(
                clip, language=self.options["language"], beam_size=self.options["beam_size"], temperature=0.0,
                vad_filter=False,
            )
            out.append(" ".join(s.text.strip() for s in segments).strip())
        return out


class TransformersWhisper(Transcriber):
    backend = "transformers"

    def __init__(self, model: str, language: str | None = None, beam_size: int = 5, device: str = "auto",
                 batch_size: int = 8, named_as: str = CASCADE_LANGUAGE) -> None:
        import torch
        from transformers import AutoModelForSpeechSeq2Seq, AutoProcessor

        self.model = model
        self.device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        self.processor = AutoProcessor.from_pretrained(model)
        self._model = AutoModelForSpeechSeq2Seq.from_pretrained(model).to(self.device).eval()
        multilingual = bool(getattr(self._model.generation_config, "is_multilingual", False))
        self.english_only = not multilingual
        self.language = language = _language(not multilingual, language, named_as)
        # An English-only checkpoint takes no language argument in generate().
        self.options = {"language": language if multilingual else None, "beam_size": int(beam_size)}
        self.batch_size = batch_size

    def transcribe(self, clips: list[np.ndarray]) -> list[str]:
        import torch

        # Whisper hears 30 s at a time: a longer clip is cut into windows and their text rejoined.
        window = _WINDOW_SECONDS * SAMPLING_RATE
        pieces, owners = [], []
        for i, clip in enumerate(clips):
            for start in range(0, max(len(clip), 1), window):
                pieces.append(clip[start:start + window])
                owners.append(i)
        texts = []
        extra = {"task": "transcribe", "language": self.options["language"]} if self.options["language"] else {}
        for start in range(0, len(pieces), self.batch_size):
            batch = pieces[start:start + self.batch_size]
            features = self.processor(batch, sampling_rate=SAMPLING_RATE, return_tensors="pt").input_features
            with torch.inference_mode():
                ids = self._model.generate(features.to(self.device, self._model.dtype),
                                           num_beams=self.options["beam_size"], do_sample=False, **extra)
            texts += [t.strip() for t in self.processor.batch_decode(ids, skip_special_tokens=True)]
        joined = [[] for _ in clips]
        for owner, text in zip(owners, texts):
            if text:
                joined[owner].append(text)
        return [" ".join(parts) for parts in joined]


def _english_only(model: str) -> bool:
    return os.path.basename(os.path.normpath(model)).endswith(".en")


def _language(english_only: bool, language: str | None, named_as: str) -> str | None:
    """English-only checkpoints (tiny.en, ...) hear English; others detect the language unless told (``named_as``:
    the setting that names the language, for the error)."""
    if english_only and language not in (None, "en"):
        raise ValueError(f"{named_as}={language!r}, but the recognizer is an English-only (.en) Whisper")
    return "en" if english_only else language


def make(backend: str, model: str | None, language: str | None, beam_size: int, device: str) -> Transcriber:
    """The recognizer of ``backend`` (one of ``BACKENDS``; the cascade's settings checked it, and that
    ``transformers`` comes with a model)."""
    return (FasterWhisper if backend == "faster-whisper" else TransformersWhisper)(model, language, beam_size, device)


def transcript_store(path: str | None = None) -> TextStore:
    """The transcript cache's file (``path``, else ``LM_EVAL_AUDIO_TRANSCRIPT_CACHE``, else the default), opened;
    raises ``OSError`` naming the setting where it cannot be."""
    path = path or os.environ.get("LM_EVAL_AUDIO_TRANSCRIPT_CACHE") or os.path.join(cache_home(), "transcripts.sqlite")
    return TextStore(path, "transcript cache", "LM_EVAL_AUDIO_TRANSCRIPT_CACHE (or transcript_cache= in --model_args)")


class TranscriptCache:
    """Transcripts by (recognizer, audio content digest)."""

    def __init__(self, transcriber: Transcriber, path: str | None = None) -> None:
        self.transcriber = transcriber
        self._store = transcript_store(path)
        self.path = self._store.path
        self._identity = transcriber.identity()
        self._memory: dict[str, str] = {}

    def _key(self, digest: str) -> str:
        return hashlib.sha256(f"{self._identity}|{digest}".encode()).hexdigest()

    def get_all(self, clips: dict[str, object], decode, desc: str = "transcribing",
                disable_tqdm: bool = False) -> tuple[dict[str, str], int, dict[str, str]]:
        """Transcripts for ``{digest: reference}``, how many had to be transcribed, and why each
        clip that could not be decoded was not (``decode(ref)`` gives the samples of a clip, or
        raises ``AudioError``). A progress bar (``desc``) counts the clips transcribed."""
        from tqdm import tqdm

        from lm_eval_audio.audio.refs import AudioError

        out, missing, errors = {}, [], {}
        for digest in clips:
            text = self._memory.get(digest)
            if text is None:
                text = self._store.get(self._key(digest))
            if text is None:
                missing.append(digest)
            else:
                out[digest] = self._memory[digest] = text
        # A few clips at a time: decoded audio is dropped once transcribed.
        with tqdm(total=len(missing), desc=desc, unit="clip", disable=disable_tqdm or not missing) as bar:
            for start in range(0, len(missing), 8):
                chunk, samples = [], []
                for digest in missing[start:start + 8]:
                    try:
                        samples.append(decode(clips[digest]))
                        chunk.append(digest)
                    except AudioError as e:
                        errors[digest] = str(e)
                for digest, text in zip(chunk, self.transcriber.transcribe(samples) if samples else []):
                    self._store.put(self._key(digest), self.transcriber.name, text)
                    out[digest] = self._memory[digest] = text
                bar.update(len(missing[start:start + 8]))
        return out, len(missing) - len(errors), errors
