"""A misbehaving HTTP server on loopback for the pdns client and provider tests (what a real PowerDNS will not do
on demand): `RawServer` hands each connection to a handler; the `raw` fixture (conftest.py) starts them."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

Handler = Callable[[socket.socket, int], None]


@dataclass
class RawServer:
    """Accepts connections on 127.0.0.1 and hands each to `handler(sock, n)` (n = connection number)."""

    handler: Handler
    sock: socket.socket = field(default_factory=lambda: socket.create_server(("127.0.0.1", 0)))
    count: int = 0
    heads: list[bytes] = field(default_factory=list)
    read_body: bool = True
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def serve(self) -> None:
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.count += 1
            t = threading.Thread(target=self._one, args=(conn, self.count), daemon=True)
            self.threads.append(t)
            t.start()

    def _one(self, conn: socket.socket, n: int) -> None:
        with conn:
            conn.settimeout(5)
            self.heads.append(read_request(conn, self.read_body))
            with contextlib.suppress(OSError):  # the client may hang up first
                self.handler(conn, n)


def read_request(conn: socket.socket, read_body: bool = True) -> bytes:
    """Read one request; returns its head (request line and headers)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not read_body:
        return head
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            need = int(line.split(b":")[1]) - len(body)
            while need > 0:
                chunk = conn.recv(need)
                if not chunk:
                    return head
                need -= len(chunk)
    return head


def answer(status: str, body: bytes, extra: str = "") -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n").encode() + body
