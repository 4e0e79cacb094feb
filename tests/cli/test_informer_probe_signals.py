"""`informer-probe` and SIGTERM landing while its main thread writes a log line: the signal must still stop it
(exit 0, its 'signal received' line written). A Python signal handler runs in the main thread between two
bytecodes, here inside structlog's write, which holds the stream's (non-reentrant) lock: a handler that
logged itself waited for that lock for ever. The probe uses cmd/signals.install_signal_handlers (a watcher
thread sets the stop and logs) as `run` and `webhook-server` do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import ROOT, clean_env
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

# The probe in a child interpreter whose main thread logs once the informers started; the write of that line
# sends SIGTERM to the process, so the Python-level handler runs inside it.
SCRIPT = """
import os, signal, sys, threading
from external_dns.cmd import informer_probe
from external_dns.informers.factory import SharedInformerFactory

start = SharedInformerFactory.start

def start_and_log(self):
    start(self)
    informer_probe.log.info("informers started")

class Stream:
    def __init__(self, raw):
        self.raw = raw

    def write(self, text):
        if "informers started" in text and threading.current_thread() is threading.main_thread():
            os.kill(os.getpid(), signal.SIGTERM)
        return self.raw.write(text)

    def flush(self):
        self.raw.flush()

SharedInformerFactory.start = start_and_log
sys.stderr = Stream(sys.stderr)
raise SystemExit(informer_probe.main(sys.argv[1:]))
"""


def test_sigterm_during_a_main_thread_log_line_stops_the_probe(kubeapi: KubeAPIServer, tmp_path: Path) -> None:
    kubeconfig = kubeapi.write_kubeconfig(tmp_path / "kubeconfig")
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "--kubeconfig", kubeconfig, "--resource", "services"],
                            cwd=ROOT, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate(timeout=5)
        raise AssertionError(f"the probe hung on SIGTERM:\n{err}") from None
    assert proc.returncode == 0, err
    assert "informers started" in err and "signal received; stopping" in err and "signal=SIGTERM" in err, err
    assert "Traceback" not in err, err
