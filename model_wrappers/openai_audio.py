"""``openai-audio``: audio-language models behind an OpenAI-compatible chat-completions API.

    lm_eval --model openai-audio --model_args model=gpt-4o-audio-preview --tasks ...
    lm_eval --model openai-audio --model_args base_url=http://gpu-host:8000/v1,model=Qwen/Qwen2-Audio-7B-Instruct,num_concurrent=64 ...

The second form is how an evaluation outgrows one GPU: vLLM (or SGLang) serves the model
with tensor and data parallelism, and this wrapper keeps ``num_concurrent`` requests in
flight, spread round robin over one or more servers (``base_url=URL1|URL2``).

Each clip becomes a content part of the user turn: OpenAI's ``input_audio`` (base64 WAV
or MP3) by default, or ``audio_part=audio_url`` (a ``data:audio/wav;base64,...`` URL),
which vLLM also accepts. Clips are encoded in memory (``lm_eval_audio.audio.encoding``)
while the request waits for its slot, so at most ``num_concurrent`` are held at once.

lm-eval's own API models carry only images: an audio task on ``local-chat-completions``
passes lm-eval's multimodal gate and then fails with a KeyError.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os


from lm_eval_audio.audio import encoding
from lm_eval_audio.endpoints import chat_api
from lm_eval_audio.model_wrappers import failed_requests, reasoning, speech_out
from lm_eval_audio.endpoints import model_args
from lm_eval_audio.audio.errors import AudioError
from lm_eval_audio.audio.markers import encode_chat_context, place_audio
from lm_eval_audio.endpoints.model_args import Arg
from lm_eval_audio.model_wrappers.wrapper_base import AudioLM, audio_arg, lm_eval_args, prompts_arg
from lm_eval_audio.model_wrappers.request_parts import chat_messages, generation_settings, split_request
from lm_eval_audio.model_wrappers.spoken_answers import SpeakingMixin, Speech, speaking_args

log = logging.getLogger("lm_eval.audio.openai_audio")

WHO = "openai-audio"
AUDIO_PARTS = ("input_audio", "audio_url")
# OpenAI accepts at most four stop sequences; the rest are cut here after the reply.
_MAX_STOPS = 4
DEFAULT_VOICE = "alloy"
# Task generation settings the chat API also takes.
_PASSED_GEN_KWARGS = ("top_p", "seed", "frequency_penalty", "presence_penalty")


def base_urls(value: str | None) -> list[str | None]:
    """One or more endpoints: ``URL`` or ``URL1|URL2`` (lm-eval splits model_args at commas)."""
    value = value or os.environ.get("OPENAI_BASE_URL") or None
    if value is None:
        return [None]  # the SDK's default, api.openai.com
    urls = [u.strip() for u in str(value).replace(" ", "|").split("|") if u.strip()]
    for url in urls:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{WHO}: base_url {url!r} is not an http(s) URL (several servers: base_url=URL1|URL2)")
        chat_api.refuse_credentials(url, f"{WHO}: base_url {chat_api.without_credentials(url)!r}")
    return urls


def _model(who: str, name: str, value):
    if not value:
        raise ValueError(
            f"{who}: name the served model with model=... (vLLM: the --served-model-name, by default the "
            "checkpoint given to `vllm serve`; OpenAI: e.g. gpt-4o-audio-preview)"
        )
    return str(value)


# openai-audio's model arguments, each declared once (endpoints.model_args.Arg).
OPENAI_AUDIO_ARGS = (
    Arg("model", None, "the served model's name (vLLM: `--served-model-name`, by default the checkpoint); the results "
        "folder is named after it", "(required)", read=_model),
    Arg("base_url", None, "the endpoint, or several joined with `\\|`", "`OPENAI_BASE_URL`, else OpenAI",
        read=lambda who, name, value: tuple(base_urls(value))),
    Arg("num_concurrent", 8, "requests in flight (over all servers)", read=model_args.whole()),
    Arg("max_retries", 6, "retries of a request on 429, 5xx, timeouts, dropped connections and an HTTP 200 whose body "
        "is not a chat completion (a proxy's HTML error page, JSON without `choices` or cut off mid-body), with "
        "exponential backoff and jitter (`retry_base_seconds`, default 1), honouring `Retry-After`",
        read=model_args.whole(0)),
    Arg("timeout", 300.0, "seconds per call", "300", read=model_args.real(0.001)),
    Arg("max_tokens", 256, "used when a task sets no `max_gen_toks`", read=model_args.whole(), recorded_as="max_tokens"),
    Arg("temperature", None, "when given, sent on every request. A task's `top_p`, `seed`, `frequency_penalty` and "
        "`presence_penalty` are passed on; other generation settings are logged as ignored",
        "the task's (0 for greedy tasks)", read=model_args.real(0, optional=True), recorded_as="temperature"),
    Arg("system_prompt", None, "prepended as a system turn", recorded_as="system_prompt"),
    Arg("audio_format", "wav", "`wav` or `mp3` (OpenAI accepts these two)", read=model_args.choice(*encoding.FORMATS)),
    Arg("audio_part", "input_audio", "`input_audio` (OpenAI's form: base64 and a format) or `audio_url` (a "
        "`data:audio/wav;base64,...` URL, which vLLM also accepts)", read=model_args.choice(*AUDIO_PARTS)),
    Arg("api_key_env", "OPENAI_API_KEY", "the environment variable holding the key; a local server needs none"),
    Arg("retry_base_seconds", 1.0, "the first retry's wait, doubled at each retry (with jitter)", "1",
        read=model_args.real(0)),
    Arg("check_model", True, "at start, ask `GET /models` that every server answers and serves `model`",
        "`true`", read=model_args.flag),
    audio_arg(),
    Arg("thinking_budget", None, "the served model thinks: no stop strings are sent (they cut the answer after the "
        "trace), each reply gets at least this many tokens; its trace is removed and kept as for hf-audio "
        "(\"Thinking models\" above). A trace a server hands over apart (`reasoning`, `reasoning_content`) is kept "
        "beside the answer for any model", read=model_args.whole(optional=True)),
    prompts_arg("`authors`: the model's authors' prompts per benchmark, as for hf-audio"),
    *speaking_args(f"`{DEFAULT_VOICE}` (OpenAI's; vLLM-Omni's Qwen3-Omni speaks as Ethan whatever is asked)"),
    *lm_eval_args(1, None),
)


class OpenAIAudioLM(SpeakingMixin, AudioLM):
    WHO = WHO
    ARGS = OPENAI_AUDIO_ARGS

    def __init__(self, **given) -> None:
        super().__init__(**given)
        settings = self.settings
        self.model = settings.model
        self.urls = list(settings.base_url)  # the endpoints: base_url, or OPENAI_BASE_URL; None: api.openai.com
        self.num_concurrent = settings.num_concurrent
        self.max_retries = settings.max_retries
        self.timeout = settings.timeout
        self.max_tokens = settings.max_tokens
        self.temperature = settings.temperature
        self.retry_base_seconds = settings.retry_base_seconds
        if self.temperature:
            log.warning("%s: temperature=%g samples every request; lm-eval's --use_cache would still store and "
                        "replay these answers", WHO, self.temperature)
        self.system_prompt = settings.system_prompt
        self.audio_format = settings.audio_format
        self.audio_part = settings.audio_part
        self.api_key_env = settings.api_key_env
        # The OpenAI API itself needs a key; a local server does not.
        self._key = chat_api.api_key(self.api_key_env,
                                     required=None in self.urls or self.api_key_env != "OPENAI_API_KEY")
        # A served model's template is the server's: thinking_budget= says it thinks (no stop strings are sent, so
        # that they cut the answer and not the trace). A trace handed over apart, or left in the content, is
        # removed from every model's answers all the same.
        self.thinking = reasoning.Thinking.of(reasoning.THINK if settings.thinking_budget else None,
                                              settings.thinking_budget, None, WHO)
        # Into the results JSON (lm_eval_audio_model): what decoded the answers.
        self.run_record = {**self.recorded_settings(), "reasoning_trace": self.thinking.record(),
                           "trace_fields_read": ["message.reasoning", "message.reasoning_content",
                                                 "<think>...</think> in message.content"]}
        if settings.check_model:
            self._check_servers()
        self.voice = settings.voice or DEFAULT_VOICE
        if settings.spoken_answers:
            self.run_record["speech"] = {"request": self._audio_request(), "read": speech_out.READ}
            speech_out.check_speaks(self.urls, self._key, self.api_key_env, self.model, self.timeout,
                                    self._audio_request())
        self._last_stats: dict = {}
        self._ignored_gen_kwargs: set[str] = set()

    def _fresh_requests(self, source) -> None:
        """Under another ``audio=`` condition (:meth:`under`): the endpoints and key shared, the request state its
        own."""
        self._last_stats, self._ignored_gen_kwargs = {}, set()

    # --- lm-eval's interface -----------------------------------------------------------

    @property
    def tokenizer_name(self) -> str:
        return self.model.replace("/", "__")

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return None  # the server applies its own

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        # The turns go to the API as messages, with the audio parts placed once the request is built.
        return encode_chat_context(chat_history, add_generation_prompt)

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError(
            f"{WHO}: a chat-completions API returns no log-likelihood of a given continuation, so multiple-choice "
            "(output_type: multiple_choice) and perplexity tasks cannot run on it; run them with hf-audio, or use "
            "a generation variant of the task (output_type: generate_until)"
        )

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        self.loglikelihood(requests, disable_tqdm)

    def _generate_until(self, requests, disable_tqdm: bool) -> list[str]:
        if not requests:
            return []
        return self.with_spoken(requests, lambda asked: self._answers(asked, disable_tqdm),
                                lambda todo, keep: self._answers([requests[i] for i, _ in todo], disable_tqdm,
                                                                 lambda k, answer: keep(todo[k][0], answer)))

    def _answers(self, requests, disable_tqdm: bool, keep=None) -> list:
        """The answers of ``requests``; with ``keep``, spoken ones, each handed to ``keep(position, answer)`` as it
        comes."""
        answers = chat_api.run_coroutine(self._generate_all(requests, disable_tqdm, keep))
        failed_requests.summarize(self.notes, WHO, answers, self._last_stats["unavailable"])
        return answers

    def _audio_request(self) -> dict:
        """What a request for a spoken answer adds (OpenAI's chat completions audio output)."""
        return {"modalities": ["text", "audio"], "audio": {"voice": self.voice, "format": "wav"}}

    def speech_identity(self) -> dict:
        return {**super().speech_identity(), "audio": self._audio_request()}

    # --- the work ---------------------------------------------------------------------

    def _check_servers(self) -> None:
        for url in self.urls:
            chat_api.check_serves(
                url, self.model, self.api_key_env, self.timeout, f"{WHO}: the endpoint {url or chat_api.OPENAI_URL}",
                "start the server or fix base_url in --model_args",
                "set model= to a served name (or check_model=false for a server whose /models list is incomplete)",
            )

    def _messages(self, parts) -> list[dict]:
        messages = chat_messages(parts.context, self.system_prompt)[0]
        messages = place_audio(messages, [1] * len(parts.refs), where=f"request {parts.index}")
        clips = iter(parts.refs)
        out = []
        for message in messages:
            content = message["content"]
            if isinstance(content, list):
                content = [self._audio_part(next(clips)) if p.get("type") == "audio" else p for p in content]
            out.append({"role": message["role"], "content": content})
        return out

    def _audio_part(self, ref) -> dict:
        data = base64.b64encode(encoding.encode(ref, self.audio_format)).decode("ascii")
        if self.audio_part == "input_audio":
            return {"type": "input_audio", "input_audio": {"data": data, "format": self.audio_format}}
        return {"type": "audio_url", "audio_url": {"url": f"data:{encoding.MIME[self.audio_format]};base64,{data}"}}

    def _request(self, parts, messages) -> tuple[dict, list[str]]:
        settings = self.thinking.settings(generation_settings(parts.second, self.max_tokens))
        kwargs, until = dict(settings.other), settings.until
        request = {"model": self.model, "messages": messages, "max_tokens": settings.max_new_tokens,
                   "temperature": self.temperature if self.temperature is not None else settings.temperature}
        request.update({k: kwargs.pop(k) for k in _PASSED_GEN_KWARGS if k in kwargs})
        if kwargs.keys() - self._ignored_gen_kwargs:
            self._ignored_gen_kwargs |= kwargs.keys()
            log.warning("%s: the chat API takes no %s; ignored (sent: max_tokens, temperature, stop, %s)",
                        WHO, sorted(kwargs), ", ".join(_PASSED_GEN_KWARGS))
        if until and not self.thinking.markers:  # a thinking model's stop strings cut its answer, after the trace
            request["stop"] = until[:_MAX_STOPS]
        return request, until

    async def _generate_all(self, requests, disable_tqdm: bool, keep=None) -> list:
        from tqdm.auto import tqdm

        clients = [chat_api.ChatEndpoint(self._key, url, self.timeout) for url in self.urls]
        gate = asyncio.Semaphore(self.num_concurrent)
        stats = {"calls": 0, "retries": 0, "unavailable": []}
        breaker = chat_api.FailureBreaker(self.num_concurrent)
        bar = tqdm(total=len(requests), desc=f"{WHO} {self.model}", unit="req", disable=disable_tqdm)

        def count(key):
            def bump(*_):
                stats[key] += 1

            return bump

        async def one(i, request):
            parts = split_request(i, request.args, WHO, condition=self.audio_condition)
            try:
                if parts.unavailable is not None:
                    stats["unavailable"].append(parts.unavailable)
                    return failed_requests.not_run(parts.unavailable, "generate_until")  # the loader counted it
                async with gate:
                    if breaker.tripped:
                        return failed_requests.record(self.notes, WHO, request, breaker.why())
                    # Encoding inside the gate: only the requests in flight hold their audio.
                    try:
                        messages = await asyncio.to_thread(self._messages, parts)
                    except AudioError as e:  # this clip only: counted and named, the run goes on
                        return failed_requests.record(self.notes, WHO, request, str(e))
                    body, until = self._request(parts, messages)
                    if keep is not None:
                        body.update(self._audio_request())
                    try:
                        response = await chat_api.create_with_retries(
                            clients, body, self.max_retries, self.retry_base_seconds, count("calls"), count("retries"),
                            first=i,
                        )
                    except Exception as e:  # after the retries: a counted failure, the run goes on
                        error = chat_api.describe_error(e, self.api_key_env)
                        breaker.failed(e, error)
                        return failed_requests.record(self.notes, WHO, request, error)
                    breaker.succeeded()
                if keep is not None:  # the reply's speech, or a counted failure naming what the server sent
                    try:
                        samples, rate = speech_out.audio_of(response, f"{WHO}: {self.model}")
                        answer = Speech(speech_out.text_of(response), samples, rate)
                    except speech_out.NoSpeech as e:
                        answer = failed_requests.record(self.notes, WHO, request, str(e))
                    keep(i, answer)
                    return answer
                text = self.thinking.answer_of_reply(response, until)
                self.thinking.count(self.notes, [getattr(request, "task_name", None)], [text])
                # Into lm-eval's --use_cache database now, not when every request is done: a run
                # killed midway keeps what it was answered.
                self.cache_hook.add_partial("generate_until", request.args, text)
                return text
            finally:
                bar.update(1)

        try:
            answers = await asyncio.gather(*(one(i, r) for i, r in enumerate(requests)))
        finally:
            bar.close()
            for client in clients:
                await client.close()
        self._last_stats = stats
        log.info("%s: %d requests, %d calls, %d retries, %d failed", WHO, len(requests), stats["calls"],
                 stats["retries"], sum(map(failed_requests.counted_failure, answers)))
        return list(answers)
