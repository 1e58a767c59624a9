"""A local stand-in of the Hugging Face Hub's HTTP API, for testing data fetching with the real ``huggingface_hub``
client (``HF_ENDPOINT=http://127.0.0.1:<port>``), with no network.

It serves dataset repositories built from local folders, as the Hub serves them to ``huggingface_hub`` 2.x:
``GET /api/datasets/<repo>[/revision/<rev>]`` (the listing, ``?blobs=True`` with sizes and LFS sha256s) and
``HEAD``/``GET /datasets/<repo>/resolve/<rev>/<path>`` with ``X-Repo-Commit``, ``ETag`` (the git blob id, or for
LFS files the sha256 in ``X-Linked-Etag``), sizes and ``Range`` requests; errors carry ``X-Error-Code`` as the
Hub's do. No Xet headers, so the client downloads over plain HTTP. Every request is logged (method, path,
range, status, bytes sent) so a test can count what was fetched. It can refuse a repository (401, as a gated
one), cut a transfer after some bytes (the connection closes), or stall it (for a test that kills the client).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

LFS_SUFFIXES = (".wav", ".flac", ".mp3", ".parquet", ".arrow", ".gz", ".zip", ".tar")  # as .gitattributes tracks


@dataclass
class StandInRepo:
    files: dict[str, bytes]

    def etag(self, path: str) -> str:
        data = self.files[path]
        if self.is_lfs(path):
            return hashlib.sha256(data).hexdigest()
        return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()

    @staticmethod
    def is_lfs(path: str) -> bool:
        return path.endswith(LFS_SUFFIXES)

    @property
    def commit(self) -> str:
        digest = hashlib.sha1()
        for path in sorted(self.files):
            digest.update(f"{path}\0{self.etag(path)}\n".encode())
        return digest.hexdigest()

    def listing(self, repo_id: str) -> dict:
        siblings = []
        for path in sorted(self.files):
            size = len(self.files[path])
            entry = {"rfilename": path, "size": size, "blobId": hashlib.sha1(path.encode()).hexdigest()}
            if self.is_lfs(path):
                entry["lfs"] = {"size": size, "sha256": self.etag(path), "pointerSize": 130}
            else:
                entry["blobId"] = self.etag(path)
            siblings.append(entry)
        return {"id": repo_id, "sha": self.commit, "private": False, "siblings": siblings}


@dataclass
class StandInHub:
    repos: dict[str, StandInRepo] = field(default_factory=dict)
    refused: set[str] = field(default_factory=set)  # repositories answered 401 (gated, no token)
    cut_after: dict[str, int] = field(default_factory=dict)  # path -> bytes sent before the connection closes, once
    stall_after: dict[str, int] = field(default_factory=dict)  # path -> bytes sent before the transfer stalls
    # LFS files redirected to another host ("localhost" for "127.0.0.1"), as the Hub sends them to its CDN
    cdn: bool = False
    log: list[dict] = field(default_factory=list)

    def add_folder(self, repo_id: str, folder: Path) -> StandInRepo:
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        self.repos[repo_id] = StandInRepo(files)
        return self.repos[repo_id]

    def downloads(self) -> list[dict]:
        """The file transfers served (GETs of files, with bytes sent)."""
        return [e for e in self.log if e["method"] == "GET" and "/resolve/" in e["path"]]

    def bytes_sent(self) -> int:
        return sum(e["sent"] for e in self.downloads())

    def __enter__(self) -> StandInHub:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the log is hub.log
                pass

            def do_HEAD(self):
                hub._serve(self, head=True)

            def do_GET(self):
                hub._serve(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- serving ----------------------------------------------------------------------

    def _reply(self, handler, status: int, headers: dict, body: bytes = b"", head: bool = False,
               entry: dict | None = None) -> None:
        handler.send_response(status)
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.send_header("Content-Length", headers.get("Content-Length", str(len(body))))
        handler.end_headers()
        if entry is not None:
            entry["status"] = status
        if not head and body:
            if entry is not None:  # noted before the write: the client may read it all and look before we return
                entry["sent"] = len(body)
            handler.wfile.write(body)

    def _error(self, handler, status: int, code: str, message: str, head: bool, entry: dict) -> None:
        body = json.dumps({"error": message}).encode()
        self._reply(handler, status, {"X-Error-Code": code, "X-Error-Message": message,
                                      "Content-Type": "application/json"}, body, head, entry)

    def _serve(self, handler, head: bool) -> None:
        url = urlparse(handler.path)
        path = unquote(url.path)
        entry = {"method": "HEAD" if head else "GET", "path": path, "range": handler.headers.get("Range"),
                 "status": None, "sent": 0, "auth": handler.headers.get("Authorization") is not None}
        self.log.append(entry)
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
            repo_id = "/".join(parts[2:4])
            rev = parts[5] if len(parts) >= 6 and parts[4] == "revision" else "main"
            return self._listing(handler, repo_id, rev, head, entry)
        if parts[:1] == ["datasets"] and len(parts) >= 6 and parts[3] == "resolve":
            repo_id, rev, file = "/".join(parts[1:3]), parts[4], "/".join(parts[5:])
            return self._file(handler, repo_id, rev, file, head, entry)
        if parts[:1] == ["cdn"] and len(parts) >= 5:  # /cdn/<owner>/<name>/<commit>/<path>
            repo_id, rev, file = "/".join(parts[1:3]), parts[3], "/".join(parts[4:])
            return self._file(handler, repo_id, rev, file, head, entry, from_cdn=True)
        self._error(handler, 404, "EntryNotFound", f"no route {path}", head, entry)

    def _repo(self, handler, repo_id: str, rev: str, head: bool, entry: dict) -> StandInRepo | None:
        if repo_id in self.refused:
            self._error(handler, 401, "GatedRepo", f"Access to dataset {repo_id} is restricted. You must have access "
                        "to it and be authenticated to access it.", head, entry)
            return None
        repo = self.repos.get(repo_id)
        if repo is None:
            self._error(handler, 404, "RepoNotFound", f"Repository Not Found for url: {repo_id}", head, entry)
            return None
        if rev not in ("main", repo.commit):
            self._error(handler, 404, "RevisionNotFound", f"Invalid rev id: {rev}", head, entry)
            return None
        return repo

    def _listing(self, handler, repo_id: str, rev: str, head: bool, entry: dict) -> None:
        repo = self._repo(handler, repo_id, rev, head, entry)
        if repo is not None:
            self._reply(handler, 200, {"Content-Type": "application/json"},
                        json.dumps(repo.listing(repo_id)).encode(), head, entry)

    def _file(self, handler, repo_id: str, rev: str, file: str, head: bool, entry: dict, from_cdn: bool = False) -> None:
        repo = self._repo(handler, repo_id, rev, head, entry)
        if repo is None:
            return
        if self.cdn and not from_cdn and file in repo.files and repo.is_lfs(file):
            port = self.url.rsplit(":", 1)[1]
            return self._reply(handler, 302, {
                "X-Repo-Commit": repo.commit, "X-Linked-Etag": f'"{repo.etag(file)}"',
                "X-Linked-Size": str(len(repo.files[file])),
                "Location": f"http://localhost:{port}/cdn/{repo_id}/{repo.commit}/{file}"}, b"", head, entry)
        if file not in repo.files:
            self._reply(handler, 404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": repo.commit}, b"", head, entry)
            return
        data = repo.files[file]
        headers = {"X-Repo-Commit": repo.commit, "ETag": f'"{repo.etag(file)}"', "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream"}
        if repo.is_lfs(file):
            headers.update({"X-Linked-Etag": f'"{repo.etag(file)}"', "X-Linked-Size": str(len(data))})
        start = 0
        asked = handler.headers.get("Range")
        if asked and asked.startswith("bytes=") and not head:
            start = int(asked[6:].split("-")[0] or 0)
        status = 206 if start else 200
        if start:
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        body = data[start:]
        if head:
            return self._reply(handler, 200, {**headers, "Content-Length": str(len(data))}, b"", True, entry)
        cut, stall = self.cut_after.pop(file, None), self.stall_after.get(file)
        if cut is None and stall is None:
            return self._reply(handler, status, headers, body, False, entry)
        handler.send_response(status)
        for k, v in {**headers, "Content-Length": str(len(body))}.items():
            handler.send_header(k, v)
        handler.end_headers()
        entry["status"] = status
        n = max(0, (cut if cut is not None else stall) - start)
        entry["sent"] = min(n, len(body))  # noted first, as in _reply
        handler.wfile.write(body[:n])
        handler.wfile.flush()
        if stall is not None:
            time.sleep(3600)  # until the client is killed (the thread is a daemon)
        handler.close_connection = True
