"""What the real-server test fixtures share: a free loopback port for both TCP and UDP, and stopping a child
server process within a deadline."""

from __future__ import annotations

import socket
import subprocess
import threading

_port_lock = threading.Lock()


def free_port() -> int:
    """A port free for both TCP and UDP on 127.0.0.1 (a DNS listener takes both)."""
    with _port_lock:
        for _ in range(100):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                t.bind(("127.0.0.1", 0))
                port = int(t.getsockname()[1])
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                    try:
                        u.bind(("127.0.0.1", port))
                    except OSError:
                        continue
                return port
    raise RuntimeError("no free TCP+UDP port on 127.0.0.1")


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Terminate `proc` if it still runs; killed when it has not exited after `timeout` seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
