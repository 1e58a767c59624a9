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
    smoke_test: bool = False  # the bundled in-process judge (judges/smoke_test_judge.py)

    def request_params(self) -> dict:
        """What, besides the model and the messages, decides a judge reply (the cache key)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}

    def public(self) -> dict:
        """For the results JSON and logs: no key, and no credentials inside the URL."""
        out = asdict(self)
        out["base_url"] = chat_api.without_credentials(self.base_url) if self.base_url else "https://api.openai.com/v1"
        return out


def default_cache_path() -> str:
    from lm_eval_audio.storage.text_store import cache_home

    return os.path.join(cache_home(), "judge_cache.sqlite")


def for_task(metadata: dict | None = None) -> JudgeConfig | None:
    """The judge of a task: the configured endpoint, else the bundled smoke-test judge when
    the task's YAML asks for it (``smoke_test_judge: smollm2``), else None."""
    config = resolve(metadata)
    if config is not None:
        return config
    from lm_eval_audio.judges import smoke_test_judge

    metadata = dict(metadata or {})
    if not smoke_test_judge.requested(metadata):
        return None
    return JudgeConfig(
        model=smoke_test_judge.NAME, base_url=smoke_test_judge.url(), concurrency=1,
        cache_path=_settings(metadata)["judge_cache"] or default_cache_path(),
        max_tokens=smoke_test_judge.MAX_TOKENS, max_parse_attempts=smoke_test_judge.MAX_PARSE_ATTEMPTS, smoke_test=True,
    )


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
    from lm_eval_audio.judges import smoke_test_judge

    return resolve(_run_metadata) is not None or smoke_test_judge.in_this_run()


def preflight(tasks: dict) -> None:
    """Before the model runs: refuse tasks that need a judge when none is configured.

    A task says so in its YAML ``metadata: {judge: required}`` (or ``optional``, where it
    falls back to its judge-free metrics). ``--predict_only`` needs no judge: score its
    samples later with ``lm-eval-audio judge``. Tasks that name a ``smoke_test_judge`` get
    it, started here, when no endpoint is configured.
    """
    import logging

    from lm_eval_audio.judges import smoke_test_judge
    from lm_eval_audio.judges.judge_engine import check_cache, check_endpoint

    smoke_test_judge.use_in_this_run(False)
    optional_without, configs, smoke = [], [], []
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
        if smoke_test_judge.requested(metadata):
            smoke.append((name, metadata))
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
    if smoke:
        if optional_without:
            # Their items would go to the judge (the run has one) with no judge of their own to take them.
            raise JudgeConfigError(
                f"{', '.join(sorted(n for n, _ in smoke))} fall back to the bundled smoke-test judge when no judge "
                f"is configured, and {', '.join(sorted(optional_without))} in the same run would get no judge: "
                "configure a judge "
                f"({HOW_TO_CONFIGURE}) or run them separately"
            )
        # Started, and its cache opened, before the model runs, not in the middle of aggregation.
        check_cache(for_task(smoke[0][1]))
        smoke_test_judge.use_in_this_run(True)
    if optional_without:
        shown = ", ".join(sorted(optional_without)[:5]) + (" ..." if len(optional_without) > 5 else "")
        logging.getLogger("lm_eval.audio.judge").warning(
            "no LLM judge configured: %d task(s) (%s) report their judge-free metrics only (AIR-Bench foundation: "
            "exact_match, without gpt_align; AudioBench captioning: meteor, without judge_score); to add them, %s",
            len(optional_without), shown, HOW_TO_CONFIGURE,
        )
