"""No credential in lm-eval's evaluator log.

``simple_evaluate`` logs a model's arguments ("Initializing <model> model, with arguments: {...}") before it
builds the model, where our wrappers refuse a key or token among them
(``lm_eval_audio.endpoints.model_args.refuse_secrets``). This filter, on that module's logger, masks such a value
in every record first, so the refusal is all the user sees of it.
"""

from __future__ import annotations

import logging
import os
import re

from lm_eval_audio.endpoints.model_args import KEY_ARGUMENTS, KEY_SHAPE, KEY_VARIABLES

MASK = "<credential withheld>"
# 'api_key': 'value' (a dict's repr) and api_key=value (a model_args string)
_NAMED = re.compile(r"""(?P<name>['"]?\b(?:%s)\b['"]?\s*(?::|=)\s*)(?P<quote>['"]?)(?P<value>[^'",}\s]*)(?P=quote)"""
                    % "|".join(map(re.escape, KEY_ARGUMENTS)))


def masked(text: str) -> str:
    """``text`` with every credential replaced by :data:`MASK`: values of arguments named like keys, anything
    shaped like an OpenAI, Hugging Face or Google key, and the values of the key variables of the environment."""
    text = _NAMED.sub(lambda m: f"{m['name']}{m['quote']}{MASK}{m['quote']}" if m["value"] else m[0], text)
    text = KEY_SHAPE.sub(MASK, text)
    for variable in KEY_VARIABLES:
        secret = os.environ.get(variable) or ""
        if len(secret) >= 8:
            text = text.replace(secret, MASK)
    return text


class MaskCredentials(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        safe = masked(text)
        if safe != text:
            record.msg, record.args = safe, ()
        return True


def install(logger: logging.Logger) -> None:
    if not any(isinstance(f, MaskCredentials) for f in logger.filters):
        logger.addFilter(MaskCredentials())
