"""Which judge to call and how: read from the environment and ``--metadata``.

The API key is read from ``OPENAI_API_KEY`` when the client is made and is never part
of a :class:`JudgeConfig`, so it cannot reach the cache, the judge log or the results.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from lm_eval_audio.endpoints import chat_api
from lm_eval_audio.endpoints.model_args import refuse_secrets

# The paper's judge (AIR-Bench section 4.2 and score_chat.py's default).
DEFAULT_MODEL = "gpt-4-0125-preview"

# --metadata key -> (environment variable, type, default)
SETTINGS = {
    "judge_model": ("LM_EVAL_AUDIO_JUDGE_MODEL", str, DEFAULT_MODEL),
    "judge_base_url": ("OPENAI_BASE_URL", str, None),
    "judge_concurrency": ("LM_EVAL_AUDIO_JUDGE_CONCURRENCY", int, 16),
    "judge_cache": ("LM_EVAL_AUDIO_JUDGE_CACHE", str, None),
    "judge_temperature": ("LM_EVAL_AUDIO_JUDGE_TEMPERATURE", float, 0.0),
    "judge_max_tokens": ("LM_EVAL_AUDIO_JUDGE_MAX_TOKENS", int, 1024),
    "judge_top_p": ("LM_EVAL_AUDIO_JUDGE_TOP_P", float, None),  # None: not sent (the server's default)
    "judge_timeout": ("LM_EVAL_AUDIO_JUDGE_TIMEOUT", float, 120.0),
    "judge_max_retries": ("LM_EVAL_AUDIO_JUDGE_MAX_RETRIES", int, 6),
    "judge_retry_base_seconds": ("LM_EVAL_AUDIO_JUDGE_RETRY_BASE_SECONDS", float, 1.0),
    "judge_max_parse_attempts": ("LM_EVAL_AUDIO_JUDGE_MAX_PARSE_ATTEMPTS", int, 3),
}
HOW_TO_CONFIGURE = (
    "set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server, e.g. "
    "http://localhost:8000/v1), and optionally LM_EVAL_AUDIO_JUDGE_MODEL, "
    "LM_EVAL_AUDIO_JUDGE_CONCURRENCY and LM_EVAL_AUDIO_JUDGE_CACHE (or judge_model, judge_base_url, "
    "judge_concurrency, judge_cache in --metadata)"
)


class JudgeConfigError(ValueError):
    """A judge setting that cannot be used; the message names the setting."""


@dataclass(frozen=True)
class JudgeConfig:
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    concurrency: int = 16
    cache_path: str = ""
    temperature: float = 0.0
    max_tokens: int = 1024
    top_p: float | None = None
    timeout: float = 120.0
    max_retries: int = 6
    retry_base_seconds: float = 1.0
    max_parse_attempts: int = 3
    smoke_test: bool = False  # the bundled in-process judge (judges/smoke_test_judge.py)

    def request_params(self) -> dict:
        """What, besides the model and the messages, decides a judge reply (the cache key)."""
        params = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_p is not None:  # only where set: the keys of judges without it stay as they were
            params["top_p"] = self.top_p
        return params

    def public(self) -> dict:
        """For the results JSON and logs: no key, and no credentials inside the URL."""
        out = asdict(self)
        out["base_url"] = chat_api.without_credentials(self.base_url) if self.base_url else chat_api.OPENAI_URL
        return out


def default_cache_path() -> str:
    from lm_eval_audio.storage.text_store import cache_home

    return os.path.join(cache_home(), "judge_cache.sqlite")


def _settings(metadata: dict) -> dict:
    """Each judge setting from ``--metadata``, else its environment variable, else the task's
    ``<setting>_default`` (a YAML may name its benchmark's own judge), else ours."""
    values = {}
    for key, (env, kind, default) in SETTINGS.items():
        default = metadata.get(f"{key}_default", default)
        raw = metadata.get(key, os.environ.get(env) or None)
        if raw is None or raw == "":
            values[key] = default
            continue
        try:
            values[key] = kind(raw)
        except (TypeError, ValueError):
            raise JudgeConfigError(
                f"judge setting {key} (environment {env}) must be a {kind.__name__}, got {raw!r}"
            ) from None
    return values


def resolve(metadata: dict | None = None) -> JudgeConfig | None:
    """The judge configured for this run, or None when no endpoint is configured.

    ``--metadata`` keys win over environment variables, which win over a task's
    ``<setting>_default`` metadata (AudioBench tasks name Llama-3-70B-Instruct there).
    """
    metadata = dict(metadata or {})
    try:
        refuse_secrets("the judge", metadata, where="metadata")
    except ValueError as e:
        raise JudgeConfigError(str(e)) from None
    values = _settings(metadata)
    if not values["judge_base_url"] and not os.environ.get("OPENAI_API_KEY"):
        return None
    if "judge_base_url" in metadata:
        try:
            chat_api.refuse_credentials(str(metadata["judge_base_url"]), "judge_base_url in --metadata")
        except chat_api.EndpointError as e:
            raise JudgeConfigError(str(e)) from None
    if values["judge_concurrency"] < 1:
        raise JudgeConfigError(f"judge_concurrency must be at least 1, got {values['judge_concurrency']}")
    if values["judge_max_parse_attempts"] < 1:
        raise JudgeConfigError("judge_max_parse_attempts must be at least 1")
    return JudgeConfig(
        model=values["judge_model"],
        base_url=values["judge_base_url"],
        concurrency=values["judge_concurrency"],
        cache_path=values["judge_cache"] or default_cache_path(),
        temperature=values["judge_temperature"],
        max_tokens=values["judge_max_tokens"],
        top_p=values["judge_top_p"],
        timeout=values["judge_timeout"],
        max_retries=values["judge_max_retries"],
        retry_base_seconds=values["judge_retry_base_seconds"],
        max_parse_attempts=values["judge_max_parse_attempts"],
    )
