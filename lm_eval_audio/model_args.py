"""Reading ``--model_args`` values: each wrong one is an error that names the argument.

lm-eval hands model arguments over as the strings (or the numbers and booleans it guessed)
that followed ``key=``; a typo such as ``check_model=flase`` must not quietly mean true.
"""

from __future__ import annotations

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}
# Never accepted in model_args, which lm-eval copies into the results.
KEY_ARGUMENTS = ("api_key", "key", "openai_api_key", "judge_api_key", "llm_api_key")


def as_bool(who: str, name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ValueError(f"{who}: {name} must be true or false, got {value!r}")


def number(who: str, name: str, value, kind=int, minimum: float = 1):
    """``value`` as ``kind``, at least ``minimum``."""
    try:
        result = kind(value)
        if kind is int and float(value) != result:
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"{who}: {name} must be {'an integer' if kind is int else 'a number'}, got {value!r}") from None
    if result < minimum:
        raise ValueError(f"{who}: {name} must be at least {minimum:g}, got {value!r}")
    return result


# Passed by lm-eval to every model, whatever the user wrote.
_FROM_LM_EVAL = {"self", "batch_size", "max_batch_size", "device", "unknown"}


def refuse_unknown(who: str, unknown: dict, init) -> None:
    """An API key, or any argument ``init`` (the wrapper's ``__init__``) does not take, is an error."""
    import inspect

    for name in KEY_ARGUMENTS:
        if name in unknown:
            raise ValueError(
                f"{who}: {name}= would be copied into the results; API keys are read from the environment only: "
                "export OPENAI_API_KEY=... (or name another variable with api_key_env=)"
            )
    if unknown:
        accepted = [p for p in inspect.signature(init).parameters if p not in _FROM_LM_EVAL]
        raise TypeError(f"{who}: unknown model_args {sorted(unknown)}. Accepted: {', '.join(accepted)}")
