"""Calling OpenAI-compatible chat-completions endpoints: the parts the judge and the API
model wrappers share.

* :func:`api_key` reads the key from a named environment variable, never from arguments;
* :func:`create_with_retries` retries 429, 5xx, timeouts, dropped connections and 200s whose
  body is not a chat completion with exponential backoff and jitter, honouring ``Retry-After``
  (the SDK's own retries are off, so that ours are counted and logged);
* :func:`served_models` asks ``GET /models`` before a long run, so that a dead server or a
  wrong model name fails in seconds rather than after the run;
* :func:`describe_error` words an error for logs and results with anything that looks like
  an API key masked (OpenAI's 401 message quotes part of the key).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import re
import time
from typing import Callable

log = logging.getLogger("lm_eval.audio.api")

MAX_BACKOFF_SECONDS = 60.0
MAX_RETRY_AFTER_SECONDS = 600.0
# A local OpenAI-compatible server (vLLM, SGLang) needs no key, but the SDK insists on one.
NO_KEY = "EMPTY"


class EndpointError(ValueError):
    """An endpoint that cannot be used: not answering, refusing the key, not serving the model."""


def api_key(env: str = "OPENAI_API_KEY", required: bool = False) -> str:
    key = os.environ.get(env)
    if key:
        return key
    if required:
        raise EndpointError(f"the API key variable {env} is not set: export {env}=... (keys are read from the environment only)")
    return NO_KEY


def describe_error(error: Exception, key_env: str = "OPENAI_API_KEY") -> str:
    status = getattr(error, "status_code", None)
    message = str(getattr(error, "message", None) or error)
    for env in {key_env, "OPENAI_API_KEY"}:
        key = os.environ.get(env)
        if key and len(key) >= 4:
            message = message.replace(key, "***")
    message = re.sub(r"sk-[A-Za-z0-9_\-*.]+", "sk-***", message)
    return f"{type(error).__name__}" + (f" (HTTP {status})" if status else "") + f": {message[:300]}"


def retry_after_seconds(error) -> float | None:
    """The server's own wait (``retry-after-ms`` or ``Retry-After``, seconds or a date)."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None  # unreadable: fall back to our own backoff
    return max(0.0, when.timestamp() - time.time())


class MalformedReply(Exception):
    """An HTTP 200 whose body is not a chat completion: a proxy's or load balancer's HTML error page (the SDK
    hands such a body back as a string), JSON without ``choices``, a body cut off mid-JSON. The fault is on the
    path to the endpoint, not in the request, so it is retried like a 5xx."""


def checked_completion(response):
    """``response`` if it is a chat completion (its ``choices`` a list of messages), else :class:`MalformedReply`."""
    choices = None if isinstance(response, str) else getattr(response, "choices", None)
    if isinstance(choices, list) and all(getattr(c, "message", None) is not None for c in choices):
        return response
    if isinstance(response, str):
        shown = " ".join(response.split())[:120]
    else:
        fields = getattr(response, "model_extra", None) or getattr(response, "__dict__", {})
        shown = f"{type(response).__name__} with fields {sorted(fields)[:8]}"
    raise MalformedReply(f"HTTP 200 whose body is not a chat completion: {shown!r}")


def retryable_errors() -> tuple:
    import json

    import openai

    # JSONDecodeError: a JSON content type over a body that is not JSON (cut off, or an error page).
    return (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError,
            MalformedReply, json.JSONDecodeError)


async def create_with_retries(
    clients: list,
    request: dict,
    max_retries: int,
    retry_base_seconds: float,
    on_call: Callable[[], None] | None = None,
    on_retry: Callable[[Exception], None] | None = None,
    first: int = 0,
):
    """``chat.completions.create(**request)``, retried; the last error is raised.

    Attempt k goes to ``clients[(first + k) % len(clients)]``: with several servers, a
    retry goes to the next one, so a server that dies mid-run costs retries, not answers.
    """
    retryable = retryable_errors()
    for attempt in range(max_retries + 1):
        client = clients[(first + attempt) % len(clients)]
        try:
            if on_call:
                on_call()
            return checked_completion(await client.chat.completions.create(**request))
        except retryable as e:
            if attempt == max_retries:
                raise
            if on_retry:
                on_retry(e)
            delay = retry_after_seconds(e)
            if delay is None:
                delay = min(retry_base_seconds * (2**attempt) * (0.5 + random.random()), MAX_BACKOFF_SECONDS)
            delay = min(delay, MAX_RETRY_AFTER_SECONDS)
            log.debug("%s, retrying in %.2f s", type(e).__name__, delay)
            await asyncio.sleep(delay)
    raise AssertionError("unreachable")


def run_coroutine(coro):
    """Run ``coro`` to completion from synchronous code, even inside a running event loop
    (a notebook): there it runs on a thread of its own."""
    import threading

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box = {}

    def target():
        try:
            box["result"] = asyncio.run(coro)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def reply_text(response) -> str:
    """The first choice's text; an empty string when the server sent none."""
    return (response.choices[0].message.content if response.choices else None) or ""


def check_serves(base_url: str | None, model: str, key_env: str, timeout: float, where: str, fix: str,
                 model_fix: str, what: str = "model") -> None:
    """Before a long run: the endpoint answers ``GET /models`` and lists ``model`` (a server
    without that route, or with an empty list, passes: the first call will tell).

    Raises EndpointError naming ``where``; ``fix`` says what to change when the endpoint
    does not answer, ``model_fix`` when it does not serve the model.
    """
    import openai

    client = openai.OpenAI(api_key=api_key(key_env), base_url=base_url, max_retries=0, timeout=min(timeout, 30.0))
    try:
        served = [m.id for m in client.models.list()]
    except (openai.APIConnectionError, openai.APITimeoutError) as e:
        raise EndpointError(f"{where} does not answer ({describe_error(e, key_env)}); {fix}") from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
        raise EndpointError(f"{where} refuses the API key ({describe_error(e, key_env)}); check {key_env}") from None
    except openai.APIStatusError:
        return
    finally:
        client.close()
    if served and model not in served:
        shown = ", ".join(served[:10]) + (f" and {len(served) - 10} more" if len(served) > 10 else "")
        raise EndpointError(f"{where} does not serve {what} {model!r} (it serves {shown}); {model_fix}")


# Refusals of one request's content (too long, malformed): the endpoint itself is fine.
_REQUEST_FAULTS = (400, 413, 422)


class FailureBreaker:
    """Stops sending once an endpoint has failed ``max(10, 2 * concurrency)`` requests in a
    row (after their retries), instead of each remaining request waiting through its own.
    A refusal of one request's content (HTTP 400, 413, 422) says nothing about the endpoint
    and neither counts nor resets."""

    def __init__(self, concurrency: int) -> None:
        self.threshold = max(10, 2 * concurrency)
        self.in_a_row = 0
        self.last_error = ""

    @property
    def tripped(self) -> bool:
        return self.in_a_row >= self.threshold

    def why(self) -> str:
        return f"not sent: the endpoint failed {self.in_a_row} requests in a row (last: {self.last_error})"

    def failed(self, error: Exception, described: str) -> None:
        if getattr(error, "status_code", None) in _REQUEST_FAULTS:
            return
        self.in_a_row += 1
        self.last_error = described

    def succeeded(self) -> None:
        self.in_a_row = 0


def without_credentials(url: str) -> str:
    """The URL with any ``user:password@`` removed, for results and logs."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        parts = parts._replace(netloc=host)
    return urlunsplit(parts)


def refuse_credentials(url: str, where: str) -> None:
    """Arguments that lm-eval copies into the results must not carry a password."""
    from urllib.parse import urlsplit

    if urlsplit(url).password is not None:
        raise EndpointError(
            f"{where} carries credentials, and it is copied into the results: put the key in an environment "
            "variable (OPENAI_API_KEY, or the one named by api_key_env) and pass the URL without it"
        )
