"""The smoke-test judge: the bundled SmolLM2-135M-Instruct, served inside the process.

A task whose YAML says ``metadata: {smoke_test_judge: smollm2}`` (only the synthetic
``airbench_sample`` tasks do) is judged by it when no judge endpoint is configured, so
that the offline default run shows every stage, judge included, with no server to start.
A 135M model checks the plumbing (prompts out, replies parsed, logs written), not the
answers: its numbers are not benchmark numbers, and the results say so (the judge's model
name and ``smoke_test: true``). With ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY`` set, the
configured endpoint judges instead. The real benchmark tasks never fall back to it on their
own (a user who names it in ``--metadata`` gets it, labelled as above).

It is ``lm-eval-audio serve-judge --model smollm2`` on a loopback port of this process,
so the judge engine talks to it exactly as to a remote endpoint.
"""

from __future__ import annotations

import atexit
import logging
import threading

from lm_eval_audio.judges.judge_config import JudgeConfigError
from lm_eval_audio.storage import bundled_models

log = logging.getLogger("lm_eval.audio.judge")

NAME = "SmolLM2-135M-Instruct (bundled smoke-test judge, not a benchmark judge)"
SUPPORTED = (bundled_models.SMOLLM2,)
# Enough for a letter or "8 6"; a 135M model rambles, and every token costs CPU time.
MAX_TOKENS = 16
# Asked again, a 135M model rewords the same unusable reply; one attempt, and the failure is counted.
MAX_PARSE_ATTEMPTS = 1

_lock = threading.Lock()
_url: str | None = None


def requested(metadata: dict) -> bool:
    which = metadata.get("smoke_test_judge")
    if which and which not in SUPPORTED:
        raise JudgeConfigError(f"smoke_test_judge: {which!r} is not a bundled judge (known: {', '.join(SUPPORTED)})")
    return bool(which)


def url() -> str:
    """The in-process server's base URL; loads the model and starts serving on first use."""
    global _url
    with _lock:
        if _url is None:
            from lm_eval_audio.judges import local_server

            server, address, engine = local_server.start(bundled_models.SMOLLM2, port=0, max_new_tokens=MAX_TOKENS,
                                                         served_name=NAME)
            threading.Thread(target=server.serve_forever, name="smoke-test-judge", daemon=True).start()

            def shut_down():
                server.shutdown()
                local_server.stop(server, engine)

            atexit.register(shut_down)
            _url = address
            log.warning(
                "no judge endpoint configured: judging with the bundled SmolLM2-135M-Instruct, a SMOKE-TEST judge "
                "(it checks the pipeline; its scores are not benchmark scores). Set OPENAI_BASE_URL or OPENAI_API_KEY "
                "for a real judge, or --metadata '{\"smoke_test_judge\": null}' to run without it"
            )
        return _url


def judged_by_it(results: dict, task: str) -> bool:
    """Whether a run's results say ``task``'s judge metrics came from this judge, which checks the pipeline, not
    the answers: its verdicts are no score to read."""
    judge = (results.get("lm_eval_audio_judge") or {}).get(task, {}).get("judge") or {}
    return bool(judge.get("smoke_test"))
