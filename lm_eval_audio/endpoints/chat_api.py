"""Calling OpenAI-compatible chat-completions endpoints: the parts the judge and the API
model wrappers share.

* :func:`api_key` reads the key from a named environment variable, never from arguments;
* :class:`ChatEndpoint` sends ``POST /chat/completions`` over one aiohttp session;
* :func:`create_with_retries` retries 429, 5xx, timeouts, dropped connections and 200s whose
  body is not a chat completion with exponential backoff and jitter, honouring ``Retry-After``
  (counted and logged);
* :func:`check_serves` asks ``GET /models`` before a long run, so that a dead server or a
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
from collections.abc import Callable

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
    """An HTTP 200 whose body is not a chat completion: a proxy's or load balancer's HTML error page, JSON
    without ``choices``, a body cut off mid-JSON. The fault is on the path to the endpoint, not in the
    request, so it is retried like a 5xx."""


def checked_completion(data):
    """``data`` if it is a chat completion (its ``choices`` a list of messages), else :class:`MalformedReply`."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if isinstance(choices, list) and all(isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices):
        return data
    shown = f"fields {sorted(data)[:8]}" if isinstance(data, dict) else repr(data)[:120]
    raise MalformedReply(f"HTTP 200 whose body is not a chat completion: {shown}")


OPENAI_URL = "https://api.openai.com/v1"


class ChatEndpoint:
    """``POST <base_url>/chat/completions`` over one aiohttp session, for the judge and ``openai-audio``.

    Not the OpenAI SDK's client: its request building, typed body transform and response models cost about
    2.8 ms of CPU per call against 0.7 ms here (bench/bench_judge.py), and with a hundred requests in flight
    that CPU, not the endpoint, set the pace. Errors are raised as the SDK's own exception classes (status
    errors carry the response and its headers, for ``Retry-After``), so the retry rules and messages are the
    SDK's. As the SDK does, a missing ``base_url`` means ``OPENAI_BASE_URL``, else OpenAI's API, and
    ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID`` are sent when set.
    """

    def __init__(self, api_key_value: str, base_url: str | None, timeout: float) -> None:
        self.url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/") + "/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key_value}"}
        for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            if os.environ.get(env):
                self._headers[header] = os.environ[env]
        self._timeout = timeout
        self._session = None

    def _request(self):
        import httpx2

        return httpx2.Request("POST", self.url)

    async def complete(self, request: dict) -> dict:
        """The endpoint's chat completion for ``request`` (a JSON body), as a dict; raises the SDK's
        exception for an HTTP error, a timeout or a dropped connection, :class:`MalformedReply` for a 200
        that is not a chat completion."""
        import json

        import aiohttp
        import openai

        if self._session is None:  # inside the running event loop, as aiohttp wants
            proxy, proxy_auth = self._env_proxy()
            self._session = aiohttp.ClientSession(
                headers=self._headers, timeout=aiohttp.ClientTimeout(total=self._timeout),
                connector=aiohttp.TCPConnector(limit=0),  # the callers bound what is in flight
                proxy=proxy, proxy_auth=proxy_auth,
            )
        try:
            async with self._session.post(self.url, json=request) as response:
                status, headers, body = response.status, response.headers, await response.read()
        except TimeoutError:
            raise openai.APITimeoutError(request=self._request()) from None
        except aiohttp.ClientError as e:
            raise openai.APIConnectionError(message=f"Connection error: {e}", request=self._request()) from None
        if status >= 400:
            raise self._status_error(status, headers, body)
        try:
            data = json.loads(body)
        except ValueError:
            shown = " ".join(body.decode("utf-8", "replace").split())[:120]
            raise MalformedReply(f"HTTP {status} whose body is not JSON: {shown!r}") from None
        return checked_completion(data)

    def _env_proxy(self):
        """The proxy that ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``NO_PROXY`` give for this URL, as the SDK honours
        them, or ``(None, None)``; looked up once. aiohttp's ``trust_env`` would look it up, and ``~/.netrc``,
        on a worker thread for every request: with a hundred in flight those hops queued behind each wave of
        replies and delayed every next request by the whole wave's turnover (bench/bench_judge.py)."""
        from aiohttp.helpers import get_env_proxy_for_url
        from yarl import URL

        try:
            return get_env_proxy_for_url(URL(self.url))
        except LookupError:
            return None, None

    def _status_error(self, status: int, headers, body: bytes):
        import json

        import httpx2
        import openai

        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        response = httpx2.Response(status, headers=list(headers.items()), content=body, request=self._request())
        kinds = {400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
                 404: openai.NotFoundError, 409: openai.ConflictError, 422: openai.UnprocessableEntityError,
                 429: openai.RateLimitError}
        kind = kinds.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
        return kind(f"Error code: {status} - {parsed}", response=response, body=parsed)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def retryable_errors() -> tuple:
    import openai

    # MalformedReply covers a body that is not JSON too (ChatEndpoint.complete).
    return (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError,
            MalformedReply)


async def create_with_retries(
    clients: list,
    request: dict,
    max_retries: int,
    retry_base_seconds: float,
    on_call: Callable[[], None] | None = None,
    on_retry: Callable[[Exception], None] | None = None,
    first: int = 0,
):
    """``request`` sent to ``ChatEndpoint.complete``, retried; the last error is raised.

    Attempt k goes to ``clients[(first + k) % len(clients)]``: with several servers, a
    retry goes to the next one, so a server that dies mid-run costs retries, not answers.
    """
    retryable = retryable_errors()
    for attempt in range(max_retries + 1):
        client = clients[(first + attempt) % len(clients)]
        try:
            if on_call:
                on_call()
            return await client.complete(request)
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
    (a notebook): there it runs on a thread of its own, in the caller's context (the run under way)."""
    import contextvars
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

    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,))
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def reply_text(response: dict) -> str:
    """The first choice's text; an empty string when the server sent none."""
    choices = response["choices"]
    return (choices[0]["message"].get("content") if choices else None) or ""


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
