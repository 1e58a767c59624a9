"""Spoken answers: what a model says, kept as an audio file, transcribed, and scored by its transcript.

A task is answered in speech where its metadata says ``spoken_answers: true``: its YAML (``bigbench_audio_s2s``,
``voicebench_spoken_*``), or the run's ``--model_args ...,spoken_answers=true`` (lm-eval merges ``--model_args``
into every task's metadata) or ``--metadata``. The run resolves which tasks speak and their recognizer once
(``harness.spoken_preflight``, into the run state); each wrapper that can speak (``hf-audio`` on a family with a talker,
``openai-audio`` on a server that returns ``message.audio``, ``cascade`` with its TTS) hands this module, for the
requests of those tasks, the model's own text and its waveform (:class:`Speech`); :func:`answered_in_speech`

* keeps each answer as a WAV file (:class:`AnswerStore`: one per document and repeat, with a JSON sidecar holding
  the request's key, the model's text, the sample rate, duration and sha256), written as it comes, so memory stays
  flat and a killed run resumes: an answer whose file and sidecar match the request is read back, not generated;
* transcribes it with the run's recognizer of answers (``answer_recognizer``);
* returns a :class:`SpokenAnswer`: the transcript (a ``str``, what the task's own scoring reads) carrying the text
  channel and the file, which the seam writes into the logged sample (``spoken_answer``) and the task's spoken
  metrics read (``metrics.spoken_scores``). It pickles whole, so ``--use_cache`` replays it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass

import numpy as np

from lm_eval_audio.endpoints.model_args import Arg, flag
from lm_eval_audio.metrics.spoken_answer import KEY, SpokenAnswer
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.storage import run_state
from lm_eval_audio.storage.digests import file_sha256

log = logging.getLogger("lm_eval.audio.spoken")


def speaking_args(voice_default: str) -> tuple[Arg, ...]:
    """The model arguments of a wrapper that can speak."""
    return (
        Arg(KEY, False, "(`true`/`false`) ready the model to answer in speech (its talker loaded, audio asked of the "
            "server, the cascade's TTS): every generation task of the run is then answered in speech and scored by "
            "the transcript of what was said (docs/SPOKEN.md). A task whose YAML says `spoken_answers: true` turns "
            "it on by itself", read=flag, recorded_as=KEY),
        Arg("voice", None, "the voice of spoken answers", voice_default, recorded_as="voice"),
        Arg("answers_dir", None, "the folder spoken answers are saved in: a folder per model in it, one WAV file per "
            "document and repeat", "`spoken_answers/` in `--output_path`'s folder"),
    )


@dataclass
class Speech:
    """What a wrapper's model said for one request: its text channel and its waveform (mono float32)."""

    text: str
    samples: np.ndarray
    sample_rate: int
    seed: int | None = None  # the seed it was sampled with, where the model samples


def folder_for(answers_dir: str | None, model_name: str) -> str:
    """Where a model's spoken answers go: a folder named after it in ``answers_dir=``, else in the run's
    ``spoken_answers/`` beside the results (``Run.answers_root``); a ValueError where neither is known (from Python,
    with no ``--output_path``)."""
    answers_dir = answers_dir or run_state.current().answers_root
    if not answers_dir:
        raise ValueError(f"spoken answers are saved as audio files beside the results: give --output_path FOLDER "
                         f"(or answers_dir= in --model_args), for {model_name}")
    return os.path.join(str(answers_dir), model_name.replace("/", "__"))


class AnswerStore:
    """The spoken answers of one model, one WAV file and one JSON sidecar per (task, document, repeat)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def _stem(self, where: tuple) -> str:
        """``where``: (task, document, request index within it, repeat)."""
        task, doc_id, idx, repeat = where
        return os.path.join(self.folder, str(task), f"doc{doc_id}_r{repeat}" if not idx else
                            f"doc{doc_id}_{idx}_r{repeat}")

    def saved(self, where: tuple, key: str) -> dict | None:
        """The sidecar of an answer already saved for this request (same key, file intact), or None."""
        stem = self._stem(where)
        try:
            with open(stem + ".json", encoding="utf-8") as f:
                side = json.load(f)
        except (OSError, ValueError):
            return None
        if side.get("key") != key or not os.path.isfile(side["audio"]["path"]):
            return None
        if file_sha256(side["audio"]["path"]) != side["audio"]["sha256"]:
            log.warning("spoken answer %s changed on disk since it was saved: generated again", side["audio"]["path"])
            return None
        return side

    def save(self, where: tuple, key: str, speech: Speech) -> dict:
        """``speech`` written (16-bit PCM WAV at the model's own rate) with its sidecar, written last so that a run
        killed between the two generates the answer again."""
        import soundfile

        stem = self._stem(where)
        os.makedirs(os.path.dirname(stem), exist_ok=True)
        samples = np.asarray(speech.samples, dtype=np.float32).reshape(-1)
        soundfile.write(stem + ".wav", samples, int(speech.sample_rate), subtype="PCM_16")
        audio = {"path": os.path.abspath(stem + ".wav"), "sample_rate": int(speech.sample_rate),
                 "seconds": round(len(samples) / float(speech.sample_rate), 3), "sha256": file_sha256(stem + ".wav")}
        side = {"key": key, "text": speech.text, "audio": audio, "seed": speech.seed}
        with open(stem + ".json.tmp", "w", encoding="utf-8") as f:
            json.dump(side, f, ensure_ascii=False)
        os.replace(stem + ".json.tmp", stem + ".json")
        return side


def request_key(model_identity: dict, args, repeat: int) -> str:
    """What decides a spoken answer: the model (every setting that can change an answer, its voice) and the request
    (its text, settings and each clip's content digest), and which repeat it is."""
    from lm_eval_audio.audio.refs import cache_key_args

    blob = json.dumps([model_identity, cache_key_args(args), repeat], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def seed_of(key: str) -> int:
    """The seed a model that samples its speech gets for a request: from the request's key (each repeat its own), so
    an answer does not depend on the order or the company it is generated in."""
    return int(key[:8], 16) & 0x7FFFFFFF


def cache_args(request) -> tuple:
    """A request's arguments as ``--use_cache`` keys them: a request of a task answered in speech with the recognizer
    of its answers added, so that a spoken answer is never replayed for the text task of the same request, nor for
    another recognizer (like lm-eval's own cache, other model settings are not in the key)."""
    spec = run_state.current().spoken.get(getattr(request, "task_name", None))
    if spec is None:
        return request.args
    return (*request.args, {"lm_eval_audio_spoken": {"answer_asr": spec.model, "language": spec.language}})


def spoken_tasks() -> dict:
    """task -> its recognizer's settings, for the tasks of the run answered in speech (``harness.preflight``)."""
    return run_state.current().spoken


def answered_in_speech(who: str, requests, indexes: list[int], store: AnswerStore, identity: dict, notes,
                       speak, cache_hook=None) -> dict[int, str]:
    """The answers of ``requests[i]`` for ``i`` in ``indexes`` (requests of tasks answered in speech): each read
    back from ``store`` where saved for the same request and repeat, else spoken by ``speak(list of (index, key),
    keep)``, which hands each answer to ``keep(index, Speech or failed answer)`` as it comes (saved at once) and may
    return every answer (a failure it did not keep is taken from there); then each transcribed by its task's
    recognizer. A request that fails is a counted failure (``failed_requests``), never a silent text answer."""
    from lm_eval_audio.model_wrappers import answer_recognizer

    out: dict[int, str] = {}
    repeats: dict[tuple, int] = {}
    todo, sides, places = [], {}, {}
    for index in indexes:
        request = requests[index]
        first = (request.task_name, request.doc_id, getattr(request, "idx", 0))
        repeat = repeats[first] = repeats.get(first, -1) + 1
        places[index] = where = (*first, repeat)
        key = request_key(identity, request.args, repeat)
        side = store.saved(where, key)
        if side is not None:
            sides[index] = side
        else:
            todo.append((index, key))
    if sides:
        log.info("%s: %d spoken answer(s) read back from %s (already saved), %d to generate", who, len(sides),
                 store.folder, len(todo))
    if todo:
        keys = dict(todo)

        def keep(index: int, speech) -> None:  # each answer saved as it comes: a killed run keeps it
            if not isinstance(speech, Speech):
                out[index] = speech  # a counted failure already
                return
            try:
                sides[index] = store.save(places[index], keys[index], speech)
            except (OSError, RuntimeError) as e:  # a disk full or unwritable: this answer fails, counted and named
                out[index] = failed_requests.record(notes, who, requests[index], f"the spoken answer could not be "
                                                    f"saved in {store.folder}: {e}")

        returned = speak(todo, keep) or []
        for (index, _), answer in zip(todo, returned):  # a request that failed before it was kept
            if index not in sides and index not in out and failed_requests.is_failed(answer):
                out[index] = answer
    by_task: dict[str, list[int]] = {}
    for index in sides:
        by_task.setdefault(requests[index].task_name, []).append(index)
    for task, group in by_task.items():
        recognizer = answer_recognizer.for_task(task)
        try:
            transcripts = recognizer.transcribe_files([sides[i]["audio"] for i in group])
        except Exception as e:  # the answers are saved (a re-run reads them back): counted and named, the run goes on
            for index in group:
                out[index] = failed_requests.record(notes, who, requests[index], f"{recognizer.name} could not "
                                                    f"transcribe the spoken answer: {type(e).__name__}: {e}")
            continue
        for index, transcript in zip(group, transcripts):
            side = sides[index]
            answer = SpokenAnswer(transcript, side["text"], side["audio"], recognizer.name)
            out[index] = answer
            if cache_hook is not None:
                cache_hook.add_partial("generate_until", cache_args(requests[index]), answer)
    for index in (i for i in indexes if i not in out):  # not reachable unless speak() skipped one: counted
        out[index] = failed_requests.record(notes, who, requests[index], "no spoken answer was returned")
    return out


class SpeakingMixin:
    """What a wrapper that can speak shares: ``SPEAKS``, its answers' folder and the split of a call's requests.
    A wrapper adds to :meth:`speech_identity` what it derives from its settings, and answers through
    :meth:`with_spoken` with its own text generation and ``speak``."""

    SPEAKS = True
    # Settings that cannot change an answer: left out of the key a saved answer is read back by.
    NOT_IN_ANSWERS = ("batch_size", "max_batch_size", "device", "device_map", "answers_dir", "num_concurrent",
                      "max_retries", "timeout", "retry_base_seconds", "check_model", "api_key_env", "llm_api_key_env",
                      "transcript_cache")

    def speech_identity(self) -> dict:
        """What decides this model's spoken answers besides the request: every setting that can change one (a
        wrapper adds what it derives from them)."""
        return {"who": self.WHO, **{arg.name: getattr(self.settings, arg.name) for arg in self.ARGS
                                    if arg.name not in self.NOT_IN_ANSWERS}}

    def spoken_indexes(self, requests) -> list[int]:
        """The requests of tasks the run answers in speech, for a model readied to speak (a cascade's LLM is not:
        the cascade speaks its answers). The run refuses a spoken task for a model not readied, before any request
        (``harness.spoken_preflight.decide``)."""
        tasks = spoken_tasks()
        if not tasks or not self.settings.spoken_answers:
            return []
        return [i for i, r in enumerate(requests) if getattr(r, "task_name", None) in tasks]

    def answer_store(self) -> AnswerStore:
        """Where this model's spoken answers go (found before any answer of the call): a folder per model, and per
        ``audio=`` condition for an ablated copy (``AudioLM.under``), so that no run overwrites another's files."""
        named = getattr(self, "results_name", None) or next(
            (str(getattr(self.settings, name)) for name in ("pretrained", "model") if hasattr(self.settings, name)),
            self.WHO)
        condition = str(self.audio_condition)
        store = AnswerStore(folder_for(self.settings.answers_dir, named if condition == "full" else
                                       f"{named}__audio-{condition}"))
        if self.notes.first_time(("spoken answers folder", store.folder)):
            log.info("%s: spoken answers are saved in %s", self.WHO, store.folder)
        return store

    def with_spoken(self, requests, text_answers, speak) -> list[str]:
        """Every request's answer: those of spoken tasks by :func:`answered_in_speech` (``speak(asked, keep)``: the
        requests to speak and ``keep(index, answer)`` for each, see :func:`answered_in_speech`), the others by
        ``text_answers(requests) -> answers`` (the wrapper's own generation, unchanged). The two parts are one call:
        only where every request of it failed does the run stop (``failed_requests.stop_if_every_request_failed``)."""
        spoken = set(self.spoken_indexes(requests))
        if not spoken:
            return text_answers(requests)
        textual = [i for i in range(len(requests)) if i not in spoken]
        store = self.answer_store()
        outer = self.notes.requests_in_call
        self.notes.requests_in_call = max(outer or 0, len(requests))
        try:
            out = dict(zip(textual, text_answers([requests[i] for i in textual]) if textual else []))
            out.update(answered_in_speech(self.WHO, requests, sorted(spoken), store, self.speech_identity(), self.notes,
                                          speak, self.cache_hook))
        finally:
            self.notes.requests_in_call = outer
        answers = [out[i] for i in range(len(requests))]
        failed_requests.stop_if_every_request_failed(self.WHO, answers, outer)  # each part warned of its own
        return answers
