"""The two programs under comparison, each writing to a BIND9 server of its own (same named, same
configuration, same zones), started as whole processes with the same flags:

- `go`: the Go ExternalDNS v0.22.0, built from its Go module (tests/differential/peer.py);
- `py`: this project, `python -m external_dns` from this checkout.

`run_both` starts the two side by side and returns when both exited.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers.bind import BindServer
from tests.servers.process import free_port

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 120.0
OWNER = "diff"


@dataclass(frozen=True)
class Run:
    """One finished process: its flags, exit status, output and wall time."""

    program: str
    flags: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        tail = "\n".join((self.stderr + self.stdout).strip().splitlines()[-40:])
        return f"{self.program} exited {self.returncode} after {self.seconds:.1f} s\n{tail}"


@dataclass
class Program:
    """How to start one program (the command before its flags, its environment) and its DNS server."""

    name: str
    command: tuple[str, ...]
    bind: BindServer
    env: Mapping[str, str] = field(default_factory=dict)

    def flags(self, kubeconfig: str, namespace: str) -> list[str]:
        """The flags every run of a scenario has: where the API server and the DNS server are."""
        return [f"--kubeconfig={kubeconfig}", f"--namespace={namespace}", "--provider=rfc2136",
                *self.bind.rfc2136_flags(), f"--metrics-address=127.0.0.1:{free_port()}"]

    def run(self, flags: Sequence[str], timeout: float = RUN_TIMEOUT) -> Run:
        started = time.monotonic()
        proc = subprocess.run([*self.command, *flags], capture_output=True, text=True, env=dict(self.env),
                              cwd=ROOT, timeout=timeout, check=False)
        return Run(self.name, tuple(flags), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


def base_env() -> dict[str, str]:
    """The caller's environment without EXTERNAL_DNS_* (both programs read flags from such variables)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")}


def go_program(binary: Path, bind: BindServer) -> Program:
    return Program("go", (str(binary),), bind, base_env())


def py_program(bind: BindServer) -> Program:
    env = base_env()
    env["PYTHONPATH"] = str(ROOT)
    # The safety checks are ours alone (Go has none): a scenario that removes every object of a zone is a
    # wipe they refuse without --force, where Go deletes. The records written are what is compared here;
    # the checks have tests of their own (tests/plan/test_safety.py, tests/cli/test_wipe_guard.py). Given
    # through the environment, so both programs keep the same flags.
    env["EXTERNAL_DNS_FORCE"] = "true"
    return Program("py", (sys.executable, "-m", "external_dns"), bind, env)


def run_both(go: Program, py: Program, go_flags: Sequence[str], py_flags: Sequence[str]) -> tuple[Run, Run]:
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="differential") as pool:
        go_run = pool.submit(go.run, go_flags)
        py_run = pool.submit(py.run, py_flags)
        return go_run.result(), py_run.result()
