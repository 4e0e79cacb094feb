"""`Partition`: a TCP forwarder on loopback between a client and the real API server that a test can cut (a
network partition: open connections closed, new ones closed at once) and heal. TLS passes through untouched,
so the client still verifies the real server's certificate (its SAN 127.0.0.1 holds)."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading

_BUF = 65536


class Partition:
    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._cut = False
        self._conns: set[socket.socket] = set()
        self._threads: set[threading.Thread] = set()
        self._stopping = threading.Event()
        self._accept_thread = threading.Thread(target=self._accept, name="partition-accept", daemon=True)
        self._accept_thread.start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """Close every open connection; connections made until `heal()` are closed at once."""
        with self._lock:
            self._cut = True
            conns = list(self._conns)
        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)

    def heal(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._stopping.set()
        self.cut()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._accept_thread.join(5)
        with self._lock:
            threads = list(self._threads)
        for t in threads:
            t.join(5)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                cut = self._cut
            if cut:
                client.close()
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            t = threading.Thread(target=self._pipe, args=(client, server), name="partition-pipe", daemon=True)
            with self._lock:
                self._conns.update((client, server))
                self._threads.add(t)
            t.start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        peers = {a: b, b: a}
        for s in peers:
            s.setblocking(True)
            s.settimeout(None)
            sel.register(s, selectors.EVENT_READ)
        try:
            while not self._stopping.is_set():
                for key, _ in sel.select(timeout=1.0):
                    src: socket.socket = key.fileobj  # type: ignore[assignment]
                    data = src.recv(_BUF)
                    if not data:
                        return
                    peers[src].sendall(data)
        except OSError:
            return
        finally:
            sel.close()
            with self._lock:
                self._conns.difference_update((a, b))
                self._threads.discard(threading.current_thread())
            for s in (a, b):
                s.close()
