"""Ask the judge many questions at once: concurrent, cached, retried, never silent.

:meth:`JudgeEngine.run` takes requests (an id and chat messages) and a parser, and
returns one :class:`JudgeOutcome` per request, in order. For each request:

1. the cache is asked first; a hit costs no call, and identical requests in one run are
   sent once (the others wait for that reply);
2. otherwise the endpoint is called, bounded by ``concurrency`` in flight. 429, 5xx,
   timeouts and dropped connections are retried with exponential backoff, honouring
   ``Retry-After``; other HTTP errors are not retried;
3. the parser reads the reply. A reply it cannot read is asked again up to
   ``max_parse_attempts``: as a follow-up turn carrying the request's ``reask`` text when it
   has one (a deterministic server would repeat itself otherwise); after that the outcome
   is a failure. Empty replies are never cached.

When the endpoint keeps failing (``max(10, 2 * concurrency)`` requests in a row, after their
retries), the
remaining requests fail at once instead of each waiting through its own retries.

A failure is an outcome with ``error`` set, never an exception and never a score: the
callers count failures and report them.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from lm_eval_audio.endpoints import chat_api
from lm_eval_audio.judges import judge_audio
from lm_eval_audio.judges.judge_cache import JudgeCache, cache_key
from lm_eval_audio.judges.judge_config import JudgeConfig
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio.judge")

@dataclass
class JudgeRequest:
    item_id: str
    messages: list[dict]
    parse: Callable[[str], Any] | None = None  # overrides the run's parser for this request
    reask: str | None = None  # the follow-up message after an unparsable reply
    sample: int = 0  # the k-th of several independent replies to the same messages (a cache key of its own)


@dataclass
class JudgeOutcome:
    item_id: str
    messages: list[dict]
    parsed: Any = None
    replies: list[str] = field(default_factory=list)
    cache: list[str] = field(default_factory=list)  # "hit" / "miss", one per attempt
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class JudgeStats:
    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    failures: int = 0


def check_cache(config: JudgeConfig) -> None:
    """The judge cache must open; raises JudgeConfigError naming the file and the setting."""
    from lm_eval_audio.judges.judge_config import JudgeConfigError

    try:
        JudgeCache(config.cache_path).close()
    except OSError as e:
        raise JudgeConfigError(str(e)) from None


def check_endpoint(config: JudgeConfig) -> None:
    """Fail before the model runs, not hours later in aggregation: the cache must open, the
    endpoint must answer and list the judge model (``GET /models``; a server without that
    route, or with an empty list, still passes).

    Raises JudgeConfigError naming what to fix.
    """
    from lm_eval_audio.judges.judge_config import JudgeConfigError

    check_cache(config)
    where = config.public()["base_url"]
    try:
        chat_api.check_serves(
            config.base_url, config.model, config.api_key_env, config.timeout, f"the judge endpoint {where}",
            "start it or fix OPENAI_BASE_URL (or judge_base_url), or run with --predict_only and score later "
            "with `lm-eval-audio judge`",
            "name the served model with LM_EVAL_AUDIO_JUDGE_MODEL (or judge_model in --metadata; one benchmark's "
            "with LM_EVAL_AUDIO_<BENCHMARK>_JUDGE_MODEL)", "the judge model",
        )
    except chat_api.EndpointError as e:
        raise JudgeConfigError(str(e)) from None


class JudgeEngine:
    def __init__(self, config: JudgeConfig, client=None):
        self.config = config
        self.cache = JudgeCache(config.cache_path)
        self._client = client
        self._breaker = chat_api.FailureBreaker(config.concurrency)

    def _make_client(self):
        return chat_api.ChatEndpoint(chat_api.api_key(self.config.api_key_env), self.config.base_url,
                                     self.config.timeout)

    def run(
        self,
        requests: list[JudgeRequest],
        parse: Callable[[str], Any],
        desc: str = "judge",
    ) -> tuple[list[JudgeOutcome], JudgeStats]:
        """Judge every request; blocks until all are answered or have failed."""
        if not requests:
            return [], JudgeStats()
        return chat_api.run_coroutine(self._run_all(requests, parse, desc))

    async def _run_all(self, requests, parse, desc):
        from tqdm.auto import tqdm

        client = self._client or self._make_client()
        stats = JudgeStats(requests=len(requests))
        # Identical judge prompts (two items with the same question, options and answer) are asked
        # once: the second waits for the first's reply and reads it from the cache.
        asking = collections.defaultdict(asyncio.Lock)
        bar = tqdm(total=len(requests), desc=desc, unit="item", disable=len(requests) < 2)
        outcomes: list[JudgeOutcome | None] = [None] * len(requests)
        queue = iter(enumerate(requests))

        # ``concurrency`` workers, each sending its next request as soon as its reply is handled, bound
        # what is in flight. Not a task per request behind a semaphore: a released semaphore wakes its
        # waiter behind every reply already received, so with a hundred in flight each wave of requests
        # left only after the whole previous wave had been handled (bench/bench_judge.py).
        async def worker():
            for index, request in queue:
                outcomes[index] = await self._judge_one(client, asking, request, parse, stats)
                bar.update(1)

        try:
            await asyncio.gather(*(worker() for _ in range(min(self.config.concurrency, len(requests)))))
        finally:
            bar.close()
            if self._client is None:
                await client.close()
        stats.failures = sum(o.failed for o in outcomes)
        return list(outcomes), stats

    async def _judge_one(self, client, asking, request, parse, stats) -> JudgeOutcome:
        cfg = self.config
        outcome = JudgeOutcome(request.item_id, request.messages)
        messages = list(request.messages)
        for attempt in range(cfg.max_parse_attempts):
            key = cache_key(cfg.model, judge_audio.for_key(messages), cfg.request_params(), attempt, request.sample)
            async with asking[key]:
                reply = self.cache.get(key)
                if reply is not None:
                    outcome.cache.append("hit")
                    stats.cache_hits += 1
                else:
                    outcome.cache.append("miss")
                    if self._breaker.tripped:
                        outcome.error = self._breaker.why()
                        return outcome
                    try:
                        reply = await self._call(client, messages, stats)
                    except Exception as e:  # every endpoint error becomes a counted failure
                        outcome.error = chat_api.describe_error(e, self.config.api_key_env)
                        self._breaker.failed(e, outcome.error)
                        return outcome
                    self._breaker.succeeded()
                    if reply:  # an empty reply (filtered, cut off) is worth asking again next run
                        self.cache.put(key, cfg.model, reply)
            outcome.replies.append(reply)
            reader = request.parse or parse
            try:
                parsed = reader(reply)
            except (ValueError, OverflowError) as e:  # a reply no reading expects (a 5,000-digit rating): unparsable
                parsed = None
                if run_state.current().first_time(("judge reader raised", getattr(reader, "__qualname__", ""))):
                    log.warning("a judge reply broke its reading (%s: %s): counted as an unparsable reply, and any "
                                "other one that does", type(e).__name__, str(e)[:200])
            if parsed is not None:
                outcome.parsed = parsed
                return outcome
            if attempt + 1 < cfg.max_parse_attempts:
                stats.reasks += 1
                if request.reask:
                    messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": request.reask}]
        outcome.error = f"unparsable judge reply after {cfg.max_parse_attempts} attempt(s)"
        return outcome

    async def _call(self, client, messages, stats) -> str:
        cfg = self.config

        def on_call():
            stats.calls += 1

        def on_retry(error):
            stats.retries += 1

        response = await chat_api.create_with_retries(
            [client], {"model": cfg.model, "messages": judge_audio.for_wire(messages), **cfg.request_params()},
            cfg.max_retries, cfg.retry_base_seconds, on_call, on_retry,
        )
        return chat_api.reply_text(response)
