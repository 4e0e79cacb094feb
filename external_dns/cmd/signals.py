"""SIGTERM/SIGINT for the long-running commands: they set a stop Event, whatever the main thread is doing and
whatever writing the log line about them does."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable


def install_signal_handlers(stop: threading.Event,
                            announce: Callable[[signal.Signals], None] = lambda _sig: None) -> Callable[[], None]:
    """SIGTERM/SIGINT set `stop` (then `announce(signal)` logs it); returns a function restoring the previous
    handlers. A no-op outside the main thread (a command run in-process by a test).

    The Python-level handler does nothing: it may run while the main thread holds the log stream's lock or
    the Event's lock, so it must not log or set the Event itself. The interpreter writes the signal number
    to a wake-up pipe (`signal.set_wakeup_fd`); a watcher thread reads it, sets `stop`, then announces."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)

    def watch() -> None:
        while True:
            data = os.read(read_fd, 1)
            if not data or data[0] == 0:  # 0: our own shutdown byte (no signal has number 0)
                return
            stop.set()  # first: nothing the log line does may keep the signal from stopping the process
            with contextlib.suppress(Exception):
                announce(signal.Signals(data[0]))

    watcher = threading.Thread(target=watch, name="signal-watcher", daemon=True)
    watcher.start()
    previous_wakeup = signal.set_wakeup_fd(write_fd)
    previous = {sig: signal.signal(sig, lambda _signum, _frame: None) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)
        signal.set_wakeup_fd(previous_wakeup)
        os.write(write_fd, b"\0")
        watcher.join(timeout=5)
        os.close(write_fd)
        os.close(read_fd)

    return restore
