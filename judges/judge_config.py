"""Which judge to call and how, per benchmark: read from ``--metadata``, the environment and the task's YAML.

Each setting is looked for from the most specific place to the least: the benchmark's own (``--metadata``
``<benchmark>_judge_model``, then ``LM_EVAL_AUDIO_<BENCHMARK>_JUDGE_MODEL``, the benchmark being its folder's name
under ``tasks/``), the run's (``judge_model``, then ``LM_EVAL_AUDIO_JUDGE_MODEL``), the task's YAML
(``judge_model_default``: the paper's judge), ours. So one run can score each benchmark with its paper's judge.
The endpoint and the variable holding its key (``judge_base_url``, ``judge_api_key_env``) are taken together
from the first place that names either, so a key is never sent to an endpoint another place named.

The API key is read from the variable ``judge_api_key_env`` names (``OPENAI_API_KEY`` unless told) when the
client is made and is never part of a :class:`JudgeConfig`, so it cannot reach the cache, the judge log or the
results.
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
    "judge_api_key_env": ("LM_EVAL_AUDIO_JUDGE_API_KEY_ENV", str, "OPENAI_API_KEY"),  # its name, never the key
}
ENDPOINT = ("judge_base_url", "judge_api_key_env")  # taken together from one place
HOW_TO_CONFIGURE = (
    "set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server, e.g. "
    "http://localhost:8000/v1), and optionally LM_EVAL_AUDIO_JUDGE_MODEL, "
    "LM_EVAL_AUDIO_JUDGE_CONCURRENCY and LM_EVAL_AUDIO_JUDGE_CACHE (or judge_model, judge_base_url, "
    "judge_concurrency, judge_cache in --metadata); one benchmark's own judge: LM_EVAL_AUDIO_<BENCHMARK>_JUDGE_MODEL, "
    "_JUDGE_BASE_URL, _JUDGE_API_KEY_ENV (docs/TASKS.md, 'Judges per benchmark')"
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
    api_key_env: str = "OPENAI_API_KEY"  # the variable the key is read from (its name only)
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


def scoped_names(key: str, benchmark: str) -> tuple[str, str]:
    """One benchmark's own name for a setting: its ``--metadata`` key and its environment variable."""
    return f"{benchmark}_{key}", f"LM_EVAL_AUDIO_{benchmark.upper()}_{key.upper()}"


def _places(metadata: dict, benchmark: str | None) -> list[tuple[str, object]]:
    """Where a setting is looked for, the most specific first: (what the place is, setting -> raw value)."""
    places = []
    if benchmark:
        places += [(f"--metadata {benchmark}_judge_*", lambda key: metadata.get(scoped_names(key, benchmark)[0])),
                   (f"LM_EVAL_AUDIO_{benchmark.upper()}_JUDGE_*",
                    lambda key: os.environ.get(scoped_names(key, benchmark)[1]))]
    places += [("--metadata", lambda key: metadata.get(key)),
               ("the environment", lambda key: os.environ.get(SETTINGS[key][0])),
               ("the task's YAML", lambda key: metadata.get(f"{key}_default"))]
    return places


def _first(places, keys: tuple[str, ...]) -> tuple[str | None, dict]:
    """The first place giving any of ``keys`` a value, and the values it gives them."""
    for where, get in places:
        given = {key: get(key) for key in keys}
        given = {key: value for key, value in given.items() if value is not None and value != ""}
        if given:
            return where, given
    return None, {}


def _settings(metadata: dict, benchmark: str | None = None) -> dict:
    """Each judge setting from the most specific place that gives it (the module docstring); the endpoint and
    its key variable from one place. ``endpoint_from`` says which place that was (None: ours)."""
    places = _places(metadata, benchmark)
    values = {}
    endpoint_from, endpoint = _first(places, ENDPOINT)
    if endpoint_from == "the task's YAML" and _first(places, ("judge_model",))[0] not in (None, endpoint_from):
        endpoint_from, endpoint = None, {}  # a YAML's endpoint goes with its model: another model, our endpoint
    for key, (_env, kind, default) in SETTINGS.items():
        if key in ENDPOINT:
            where, raw = endpoint_from, endpoint.get(key)
        else:
            where, given = _first(places, (key,))
            raw = given.get(key)
        if raw is None:
            values[key] = default
            continue
        try:
            values[key] = kind(raw)
        except (TypeError, ValueError):
            raise JudgeConfigError(
                f"judge setting {key} (from {where}) must be a {kind.__name__}, got {raw!r}"
            ) from None
    values["endpoint_from"] = endpoint_from
    return values


def resolve(metadata: dict | None = None, benchmark: str | None = None) -> JudgeConfig | None:
    """The judge configured for a task of ``benchmark`` (its folder's name), or None when none is: no key in
    the variable the endpoint's place names, and no endpoint named by the user (a YAML's endpoint needs its key).

    The places a setting comes from, in order, are in the module docstring (AudioBench's tasks name
    Llama-3-70B-Instruct in their YAML, MMAU's Claude Haiku 4.5 at Anthropic's endpoint).
    """
    metadata = dict(metadata or {})
    values = _settings(metadata, benchmark)
    try:
        refuse_secrets("the judge", metadata, key_env=values["judge_api_key_env"], where="metadata")
    except ValueError as e:
        raise JudgeConfigError(str(e)) from None
    named_by_user = values["judge_base_url"] and values["endpoint_from"] != "the task's YAML"
    if not named_by_user and not os.environ.get(values["judge_api_key_env"]):
        return None
    for key in [k for k in metadata if k == "judge_base_url" or k.endswith("_judge_base_url")]:
        try:
            chat_api.refuse_credentials(str(metadata[key]), f"{key} in --metadata")
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
        api_key_env=values["judge_api_key_env"],
    )
