"""The judge's replies on disk, so that a re-run, or a run restarted after a kill,
asks the endpoint nothing it has already answered.

The key is a SHA-256 of the judge model, the full messages, the request parameters and
the attempt number (a re-ask after an unparsable reply is its own entry), so a changed
prompt or temperature never reuses a reply. Only the reply text is stored: no API key,
no endpoint address.
"""

from __future__ import annotations

import hashlib
import json

from lm_eval_audio.storage.text_store import TextStore


def cache_key(model: str, messages: list[dict], params: dict, attempt: int, sample: int = 0) -> str:
    """``sample``: which of several independent replies to the same messages (a judge that reads several samples);
    the first one's key is what it was before samples were counted, so caches made then are still read."""
    payload = {"model": model, "messages": messages, "params": params, "attempt": attempt}
    if sample:
        payload["sample"] = sample
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class JudgeCache(TextStore):
    def __init__(self, path: str):
        super().__init__(path, "judge cache", "LM_EVAL_AUDIO_JUDGE_CACHE (or judge_cache in --metadata)")
