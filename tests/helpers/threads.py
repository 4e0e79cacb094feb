"""Thread-leak check shared by the autouse `no_thread_leak` fixtures of several test modules."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator


def thread_leak_check(ignore_prefix: str | None = None, timeout: float = 5.0) -> Iterator[None]:
    """Generator body for a fixture: fail if threads started during the test are still alive after `timeout`.

    Threads whose name starts with `ignore_prefix` (e.g. the session test API server's "kubeapi-") are ignored.
    Use as `yield from thread_leak_check(...)` inside a pytest fixture.
    """
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + timeout
    leaked: list[threading.Thread] = []
    while time.monotonic() < deadline:
        leaked = [t for t in threading.enumerate()
                  if t not in before and t.is_alive()
                  and not (ignore_prefix and t.name.startswith(ignore_prefix))]
        if not leaked:
            return
        leaked[0].join(0.1)
    raise AssertionError(f"threads leaked: {[t.name for t in leaked]}")
