"""Which judge to call and how: read from the environment and ``--metadata``.

The API key is read from ``OPENAI_API_KEY`` when the client is made and is never part
of a :class:`JudgeConfig`, so it cannot reach the cache, the judge log or the results.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from urllib.parse import urlsplit, urlunsplit

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
    timeout: float = 120.0
    max_retries: int = 6
    retry_base_seconds: float = 1.0
    max_parse_attempts: int = 3

    def request_params(self) -> dict:
        """What, besides the model and the messages, decides a judge reply (the cache key)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}

    def public(self) -> dict:
        """For the results JSON and logs: no key, and no credentials inside the URL."""
        out = asdict(self)
        out["base_url"] = _without_credentials(self.base_url) if self.base_url else "https://api.openai.com/v1"
        return out


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        parts = parts._replace(netloc=host)
    return urlunsplit(parts)


def default_cache_path() -> str:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "lm_eval_audio", "judge_cache.sqlite")


def resolve(metadata: dict | None = None) -> JudgeConfig | None:
    """The judge configured for this run, or None when no endpoint is configured.

    ``--metadata`` keys win over environment variables, which win over a task's
    ``<setting>_default`` metadata (AudioBench tasks name Llama-3-70B-Instruct there).
    """
    metadata = dict(metadata or {})
    for forbidden in ("judge_api_key", "api_key", "openai_api_key"):
        if forbidden in metadata:
            raise JudgeConfigError(
                f"--metadata has {forbidden!r}: API keys are read from the environment only "
                "(export OPENAI_API_KEY=...), so that they never land in results or logs"
            )
    values = {}
    for key, (env, kind, default) in SETTINGS.items():
        # A task's YAML may name its benchmark's own judge (``judge_model_default``); the
        # environment and --metadata still win.
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
    if not values["judge_base_url"] and not os.environ.get("OPENAI_API_KEY"):
        return None
    if "judge_base_url" in metadata and (urlsplit(str(metadata["judge_base_url"])).password is not None):
        raise JudgeConfigError(
            "judge_base_url in --metadata carries credentials, and --metadata is copied into the results: "
            "put the key in OPENAI_API_KEY and pass the URL without it"
        )
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
        timeout=values["judge_timeout"],
        max_retries=values["judge_max_retries"],
        retry_base_seconds=values["judge_retry_base_seconds"],
        max_parse_attempts=values["judge_max_parse_attempts"],
    )


_run_metadata: dict = {}


def remember_run_metadata(metadata: dict) -> None:
    """The run's ``--metadata``, as a task loader sees it (``process_results`` does not)."""
    _run_metadata.clear()
    _run_metadata.update(metadata)


def configured_for_run() -> bool:
    """Whether this run has a judge, so per-item results should carry the judge's inputs."""
    return resolve(_run_metadata) is not None


def preflight(tasks: dict) -> None:
    """Before the model runs: refuse tasks that need a judge when none is configured.

    A task says so in its YAML ``metadata: {judge: required}`` (or ``optional``, where it
    falls back to its judge-free metrics). ``--predict_only`` needs no judge: score its
    samples later with ``lm-eval-audio judge``.
    """
    import logging

    from lm_eval_audio.judges.judge_engine import check_endpoint

    optional_without, configs = [], []
    for name, task in tasks.items():
        metadata = getattr(getattr(task, "config", None), "metadata", None) or {}
        need = metadata.get("judge")
        if not need or "bypass" in getattr(task, "_metric_fn_list", {}):
            continue
        config = resolve(metadata)
        if config is not None:
            if config not in configs:
                configs.append(config)
            continue
        if need == "required":
            raise JudgeConfigError(
                f"task {name} is scored by an LLM judge and no judge is configured: {HOW_TO_CONFIGURE}. "
                "Or run it with --predict_only --log_samples and score the samples later with "
                "`lm-eval-audio judge SAMPLES.jsonl`"
            )
        optional_without.append(name)
    for config in configs:
        check_endpoint(config)
    if optional_without:
        shown = ", ".join(sorted(optional_without)[:5]) + (" ..." if len(optional_without) > 5 else "")
        logging.getLogger("lm_eval.audio.judge").warning(
            "no LLM judge configured: %d task(s) (%s) report their judge-free metrics only (AIR-Bench foundation: "
            "exact_match, without gpt_align; AudioBench captioning: meteor, without judge_score); to add them, %s",
            len(optional_without), shown, HOW_TO_CONFIGURE,
        )
