"""cmd/signals.py (the long-running commands' signal handling): SIGTERM/SIGINT set the stop event through the
wake-up pipe watcher, even when writing the log line about it fails, and the previous handlers come back
afterwards."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest
import structlog

from external_dns.cmd.signals import install_signal_handlers


class RaisingLogger:
    def msg(self, *_args: Any, **_kwargs: Any) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    info = warning = error = debug = msg


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_process_even_when_its_log_line_cannot_be_written(
        signum: signal.Signals) -> None:
    structlog.configure(logger_factory=lambda *_args: RaisingLogger(), cache_logger_on_first_use=False)
    stop = threading.Event()
    before = signal.getsignal(signum)
    announced: list[signal.Signals] = []

    def announce(sig: signal.Signals) -> None:
        announced.append(sig)
        structlog.get_logger("t").info("Received it")  # raises: the stream is broken

    restore = install_signal_handlers(stop, announce)
    try:
        os.kill(os.getpid(), signum)
        assert stop.wait(5)
        stop.clear()
        os.kill(os.getpid(), signum)  # the watcher survived the failed log line: a second signal is seen too
        assert stop.wait(5)
    finally:
        restore()
    assert signal.getsignal(signum) is before and announced == [signum, signum]
    assert not [t for t in threading.enumerate() if t.name == "signal-watcher"]


def test_outside_the_main_thread_nothing_is_installed() -> None:
    before = signal.getsignal(signal.SIGTERM)
    restores: list[Any] = []
    worker = threading.Thread(target=lambda: restores.append(install_signal_handlers(threading.Event())))
    worker.start()
    worker.join(timeout=5)
    assert signal.getsignal(signal.SIGTERM) is before and len(restores) == 1
    restores[0]()  # a no-op restore
    assert not [t for t in threading.enumerate() if t.name == "signal-watcher"]
