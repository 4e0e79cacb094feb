"""Streaming one watch to its client: chunked newline-delimited events drained from the `Watcher` queue,
periodic / requested / final BOOKMARKs, silence, cuts, malformed-line injection and dead-peer detection.
"""

from __future__ import annotations

import io
import json
import math
import select
import socket
import time
from typing import TYPE_CHECKING, Any

from tests.kubeapi.objects import StoredObject
from tests.kubeapi.watchers import Watcher

if TYPE_CHECKING:
    from tests.kubeapi.server import KubeAPIServer

_LIVENESS_SECONDS = 1.0
_CHUNK_TARGET = 256 * 1024


class WatchStreamer:
    """Writes one watch's events to `wfile` (the HTTP body, chunked) until it ends; see `run()`."""

    def __init__(self, api: KubeAPIServer, wfile: io.BufferedIOBase, connection: socket.socket) -> None:
        self.api = api
        self.wfile = wfile
        self.connection = connection

    def _write_lines(self, lines: list[bytes]) -> None:
        buf: list[bytes] = []
        size = 0
        for line in lines:
            buf.append(line)
            size += len(line)
            if size >= _CHUNK_TARGET:
                self._write_chunk(b"".join(buf))
                buf, size = [], 0
        if buf:
            self._write_chunk(b"".join(buf))

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _client_gone(self) -> bool:
        """True when the peer closed its end (the only thing it can send while we stream)."""
        sock = self.connection
        try:
            poller = select.poll()  # not select(): no FD_SETSIZE limit in long sessions with many sockets
            poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
            if not poller.poll(0):
                return False
            data: bytes = sock.recv(1, socket.MSG_PEEK)
            return data == b""
        except (OSError, ValueError):
            return True

    def run(self, w: Watcher, deadline: float, bookmarks: bool) -> bool:
        """Feed `w` to the client until timeout (True: end cleanly) or cut/peer gone (False: abort)."""
        api = self.api
        interval = api.bookmark_interval
        next_bookmark = time.monotonic() + interval if bookmarks else math.inf
        final_bookmark_queued = False
        while True:
            with w.cond:
                now = time.monotonic()
                idle = not w.queue and not w.closed and not w.bookmark_requested
                silenced = w.silence_until > now
                if (idle or silenced) and not w.cut and not api._stopping.is_set():
                    target = min(deadline, next_bookmark, now + _LIVENESS_SECONDS)
                    if silenced:
                        target = min(w.silence_until, now + _LIVENESS_SECONDS)
                    w.cond.wait(max(0.0, target - now))
                if w.cut:
                    return False
                if api._stopping.is_set():
                    return True
                now = time.monotonic()
                if w.silence_until > now:
                    batch: list[tuple[str, Any]] = []
                    want_bookmark = False
                    closed = False
                    silenced = True
                else:
                    silenced = False
                    batch = list(w.queue)
                    w.queue.clear()
                    want_bookmark = w.bookmark_requested
                    w.bookmark_requested = False
                    closed = w.closed
            if batch:
                self._write_lines([self._event_line(w, etype, payload) for etype, payload in batch])
            elif self._client_gone():
                return False
            if silenced:
                continue
            if closed:
                return True
            if now >= deadline:
                if bookmarks and not final_bookmark_queued:
                    final_bookmark_queued = True
                    api.store.queue_bookmark(w)
                    continue
                return True
            if bookmarks and (want_bookmark or now >= next_bookmark):
                api.store.queue_bookmark(w)
                next_bookmark = now + interval

    def _event_line(self, w: Watcher, etype: str, payload: Any) -> bytes:
        if etype == "ERROR":
            line = b'{"type":"ERROR","object":' + json.dumps(payload, separators=(",", ":")).encode() + b"}\n"
        elif etype in ("BOOKMARK", "BOOKMARK_END"):
            meta: dict[str, Any] = {"resourceVersion": str(payload)}
            if w.rt.builtin:
                meta["creationTimestamp"] = None
            if etype == "BOOKMARK_END":
                meta["annotations"] = {"k8s.io/initial-events-end": "true"}
            obj = {"kind": w.rt.kind, "apiVersion": w.rt.api_version, "metadata": meta}
            line = b'{"type":"BOOKMARK","object":' + json.dumps(obj, separators=(",", ":")).encode() + b"}\n"
        else:
            assert isinstance(payload, StoredObject)
            line = b'{"type":"' + etype.encode() + b'","object":' + payload.full_json + b"}\n"
        if self.api.faults.take_malformed():
            return line[: max(1, len(line) // 2)] + b"\n"
        return line
