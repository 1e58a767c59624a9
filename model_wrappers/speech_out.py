"""Spoken answers from an OpenAI-compatible server: the chat completions audio output.

A request for speech adds ``modalities: ["text", "audio"]`` and ``audio: {voice, format: "wav"}`` (OpenAI's
chat completions; openai-python ``types/chat/completion_create_params.py`` and ``chat_completion_audio_param.py``).
The speech comes back as ``message.audio.data``, base64 (``chat_completion_audio.py``: ``id``, ``data``,
``expires_at``, ``transcript``). OpenAI puts it in the one choice, with the text as ``message.audio.transcript``
and ``content`` empty; vLLM-Omni returns one choice per modality, the text in one choice's ``content`` and the
audio in another's ``message.audio`` (vllm-project/vllm-omni docs/user_guide/examples/online_serving/qwen3_omni.md),
so every choice is read. A server that ignores the request for audio (mainline vLLM does) answers in text alone:
the wrapper asks once before the run (:func:`check_speaks`) and stops with one line naming it; a reply without
audio in the run is a counted failure (:class:`NoSpeech`), never a silently text-only answer.
"""

from __future__ import annotations

import base64
import binascii
import io

import numpy as np

READ = ("the audio of the first choice holding message.audio.data (base64 WAV; vLLM-Omni returns it in a choice of its "
        "own); the text of the first choice with message.content, else message.audio.transcript")
_PROBE = [{"role": "user", "content": "Say yes."}]


class NoSpeech(ValueError):
    """A reply to a request for speech that holds none."""


def audio_of(response: dict, who: str) -> tuple[np.ndarray, int]:
    """The speech of a chat completion: mono float32 samples and their rate, or :class:`NoSpeech`."""
    import soundfile

    for choice in response.get("choices") or []:
        audio = (choice.get("message") or {}).get("audio") or {}
        data = audio.get("data") if isinstance(audio, dict) else None
        if data:
            try:
                samples, rate = soundfile.read(io.BytesIO(base64.b64decode(data)), dtype="float32")
            except (binascii.Error, RuntimeError, ValueError) as e:
                raise NoSpeech(f"{who}: message.audio.data is not a WAV file ({e})") from None
            return (samples.mean(axis=1) if samples.ndim > 1 else samples).astype(np.float32), int(rate)
    raise NoSpeech(f"{who}: the reply to a request for speech (modalities text and audio) holds no message.audio: "
                   "the server ignores the request for audio (mainline vLLM does); serve the model with vLLM-Omni "
                   "(docs/SERVING.md, 'Spoken answers') or use an audio model that speaks")


def text_of(response: dict) -> str:
    """The model's own text channel beside its speech."""
    choices = response.get("choices") or []
    for choice in choices:
        content = (choice.get("message") or {}).get("content")
        if isinstance(content, str) and content.strip():
            return content
    for choice in choices:
        audio = (choice.get("message") or {}).get("audio") or {}
        if isinstance(audio, dict) and audio.get("transcript"):
            return str(audio["transcript"])
    return ""


def check_speaks(urls: list, key: str, key_env: str, model: str, timeout: float, audio_request: dict) -> None:
    """Before the run: each server answers a short request for speech with speech, or one line names it."""
    from lm_eval_audio.endpoints import chat_api

    async def ask(url):
        client = chat_api.ChatEndpoint(key, url, timeout)
        try:
            return await client.complete({"model": model, "messages": _PROBE, "max_tokens": 16, **audio_request})
        finally:
            await client.close()

    for url in urls:
        where = f"openai-audio: the endpoint {chat_api.without_credentials(url or chat_api.OPENAI_URL)} ({model})"
        try:
            response = chat_api.run_coroutine(ask(url))
        except Exception as e:
            raise ValueError(f"{where} did not answer a request for speech: {chat_api.describe_error(e, key_env)}") from None
        try:
            audio_of(response, where)
        except NoSpeech as e:
            raise ValueError(str(e)) from None
