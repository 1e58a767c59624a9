"""A local OpenAI-compatible server with scripted replies, injected faults and latency: the
judge for the judge tests, and the served audio model for the ``openai-audio`` tests.

The tests (and ``bench/bench_judge.py``) start it in-process on a free port; lm-eval runs
in a subprocess and reaches it through ``OPENAI_BASE_URL``. Replies come from
``reply(prompt) -> str``; the default answers AIR-Bench's two judge prompts and
AudioBench's rubric and binary prompts with fixed, known values, so the resulting scores
are exact numbers.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_CHOICE = "A"
DEFAULT_PAIR = "8 6"
# The benchmarks' default judge models (AIR-Bench, AudioBench), as a server serving them lists them.
SERVED_MODELS = ("gpt-4-0125-preview", "meta-llama/Meta-Llama-3-70B-Instruct")
DEFAULT_RUBRIC = 4  # AudioBench 0-5 rubric: judge_score 80
DEFAULT_BINARY = 1  # AudioBench binary: judge_score 100


def default_reply(prompt: str) -> str:
    if prompt.startswith("You are a helpful and precise assistant"):
        return DEFAULT_PAIR
    if prompt.lstrip().startswith("[Reference Answer]"):
        rating = DEFAULT_BINARY if "Please give a score of 0 or 1" in prompt else DEFAULT_RUBRIC
        return f"Explanation: The reference answer is [scripted], while the model's answer is [scripted].\nRating: {rating}"
    return DEFAULT_CHOICE


def prompt_text(body: dict) -> str:
    """The last message's text; audio parts (an audio model's request) left out."""
    content = body["messages"][-1]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if part.get("type") == "text")
    return content


def audio_parts(body: dict) -> list[dict]:
    return [part for m in body["messages"] if isinstance(m["content"], list)
            for part in m["content"] if part.get("type") in ("input_audio", "audio_url")]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the listen backlog: 32 clients connect at once

    def handle_error(self, request, client_address):
        pass  # clients that time out or are killed mid-request are part of the tests


class ScriptedJudge:
    """``faults``: a list consumed one per request, each None (answer normally),
    ``(status, headers)`` or ``(status, headers, message)`` for an HTTP error,
    ``("sleep", seconds)`` to stall, or a 200 that is not a chat completion: ``("html",)`` (a
    proxy's error page), ``("no_choices",)`` (JSON without ``choices``) or ``("cut_off",)`` (a JSON body
    that ends mid-object)."""

    def __init__(self, reply=default_reply, latency: float = 0.0, faults=None, models=SERVED_MODELS, fault_for=None,
                 reply_for=None):
        self.reply = reply
        self.reply_for = reply_for  # request body -> a reply, or None for ``reply(prompt)``: replies that hear the audio
        self.fault_for = fault_for  # request body -> a fault as above, or None: faults tied to an item
        self.models = list(models)  # what GET /v1/models lists
        self.latency = latency
        self.faults = list(faults or [])
        self.requests: list[dict] = []  # every request body received, faults included
        self.completed = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.authorization: set[str] = set()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                # Headers and body go out in two writes; without this, Nagle's algorithm and
                # the client's delayed ACK add ~40 ms to every keep-alive response.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _send(self, status, body, headers=None, content_type="application/json"):
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list",
                                     "data": [{"id": m, "object": "model"} for m in judge.models]})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with judge._lock:
                    judge.requests.append(body)
                    judge.authorization.add(self.headers.get("Authorization", ""))
                    fault = judge.faults.pop(0) if judge.faults else None
                    judge.in_flight += 1
                    judge.max_in_flight = max(judge.max_in_flight, judge.in_flight)
                try:
                    self._answer(body, fault)
                finally:
                    with judge._lock:
                        judge.in_flight -= 1

            def _answer(self, body, fault):
                fault = fault or (judge.fault_for(body) if judge.fault_for else None)
                if fault and fault[0] == "sleep":
                    time.sleep(fault[1])
                elif fault and fault[0] == "html":
                    self._send(200, "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>", content_type="text/html")
                    return
                elif fault and fault[0] == "cut_off":
                    self._send(200, '{"id": "chatcmpl-scripted", "choices": [{"index": 0, "mess')
                    return
                elif fault and fault[0] == "no_choices":
                    self._send(200, {"id": "chatcmpl-scripted", "object": "chat.completion",
                                     "model": body.get("model")})
                    return
                elif fault:
                    status, headers, *message = fault
                    message = message[0] if message else f"injected {status}"
                    self._send(status, {"error": {"message": message, "type": "injected"}}, headers)
                    return
                if judge.latency:
                    time.sleep(judge.latency)
                content = judge.reply_for(body) if judge.reply_for else None
                if content is None:
                    content = judge.reply(prompt_text(body))
                with judge._lock:
                    judge.completed += 1
                # a dict reply is the message itself (a reasoning server's: content and reasoning_content), and may
                # carry the finish_reason
                message = dict(content) if isinstance(content, dict) else {"content": content}
                finish = message.pop("finish_reason", "stop")
                self._send(200, {
                    "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

        return Handler


if __name__ == "__main__":
    # A server in its own process (the benchmark's): prints its URL, serves until killed.
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--model", action="append", default=[], help="another model name for GET /models to list")
    args = parser.parse_args()
    with ScriptedJudge(latency=args.latency, models=SERVED_MODELS + tuple(args.model)) as served:
        print(served.base_url, flush=True)
        threading.Event().wait()
