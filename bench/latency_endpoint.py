"""An OpenAI-compatible chat endpoint that costs almost no CPU: the remote judge of ``bench_judge.py``.

    .venv/bin/python bench/latency_endpoint.py --latency 0.2     # prints its base URL, serves until killed

A remote judge spends its time on another machine; on this one the endpoint shares the client's two
cores. The tests' scripted server (``tests/scripted_judge.py``: a thread per connection, faults,
request logs) costs about 1 ms of CPU a call, so at a few hundred calls a second it, not the client,
set the pace. This one answers on one asyncio event loop with a timer per call and no thread, so the
measured time is the client's and the latency's. Replies are the scripted server's
(``default_reply``), so every judge in the benchmark parses the same scores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from scripted_judge import default_reply, prompt_text


class _ChatProtocol(asyncio.Protocol):
    """HTTP/1.1 with keep-alive: POST .../chat/completions answered after ``latency`` seconds."""

    latency = 0.0

    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""
        transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data):
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].decode("latin-1").split("\r\n")
            length = next((int(line.split(":", 1)[1]) for line in head[1:]
                           if line.lower().startswith("content-length:")), 0)
            if len(self.buffer) < head_end + 4 + length:
                return
            body = self.buffer[head_end + 4:head_end + 4 + length]
            self.buffer = self.buffer[head_end + 4 + length:]
            asyncio.get_running_loop().call_later(self.latency, self._answer, body)

    def _answer(self, body: bytes):
        if self.transport.is_closing():
            return
        request = json.loads(body)
        content = default_reply(prompt_text(request))
        data = json.dumps({
            "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": request.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(data)).encode() + b"\r\n\r\n" + data)


async def _serve(latency: float) -> None:
    _ChatProtocol.latency = latency
    server = await asyncio.get_running_loop().create_server(_ChatProtocol, "127.0.0.1", 0, backlog=1024)
    print(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each call waits before its reply")
    asyncio.run(_serve(parser.parse_args().latency))
