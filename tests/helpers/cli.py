"""Running the real CLI (`python -m external_dns`) as a subprocess in tests: a clean environment, the exit-code
check with the output in the message, a DNSEndpoint manifest, reading back a zone file and the long-running CLI as
a subprocess (`Controller`, `running`, `one_fatal_line`)."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

import dns.rdatatype
import dns.zone

ROOT = Path(__file__).resolve().parents[2]


def clean_env(extra: Mapping[str, str] | None = None, drop: Sequence[str] = ()) -> dict[str, str]:
    """os.environ without EXTERNAL_DNS_* (and the names in `drop`), PYTHONPATH set to the repo, then `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_") and k not in drop}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


def check_exit(proc: subprocess.CompletedProcess[str], expect: int) -> None:
    assert proc.returncode == expect, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def run_cli(args: Sequence[str], env: Mapping[str, str] | None = None, expect: int | None = 0,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m external_dns *args` from the repo root with clean_env(env); checks the exit code unless None."""
    proc = subprocess.run([sys.executable, "-m", "external_dns", *args], capture_output=True, text=True,
                          env=clean_env(env), cwd=ROOT, timeout=timeout, check=False)
    if expect is not None:
        check_exit(proc, expect)
    return proc


def dns_endpoint(name: str, fqdn: str, target: str, rtype: str = "A") -> str:
    """A DNSEndpoint manifest (namespace default) with one endpoint."""
    return textwrap.dedent(f"""\
        apiVersion: externaldns.k8s.io/v1alpha1
        kind: DNSEndpoint
        metadata:
          name: {name}
          namespace: default
        spec:
          endpoints:
          - dnsName: {fqdn}
            recordType: {rtype}
            targets: ["{target}"]
        """)


def zone_records(zone_file: Path) -> dict[tuple[str, str], list[str]]:
    """{(name, type): sorted rdata} of a zone file, without the SOA; {} when the file does not exist."""
    if not zone_file.exists():
        return {}
    z = dns.zone.from_file(str(zone_file), origin=None, relativize=False, check_origin=False)
    out: dict[tuple[str, str], list[str]] = {}
    for name, node in z.nodes.items():
        for rds in node.rdatasets:
            if rds.rdtype != dns.rdatatype.SOA:
                out[(name.to_text(omit_final_dot=True), dns.rdatatype.to_text(rds.rdtype))] = sorted(
                    r.to_text() for r in rds)
    return out


class Env:
    """A manifest dir and a zone dir, and a way to run the CLI on them."""

    def __init__(self, tmp: Path) -> None:
        self.manifests = tmp / "manifests"
        self.zones = tmp / "zones"
        self.manifests.mkdir()
        self.zone_file = self.zones / "example.org.zone"

    def write(self, filename: str, text: str) -> None:
        (self.manifests / filename).write_text(text)

    def args(self, *extra: str, policy: str | None = "sync") -> list[str]:
        base = ["--once", "--source=manifest", f"--manifest-dir={self.manifests}", "--provider=zonefile",
                f"--zonefile-dir={self.zones}", "--zonefile-create-zone=example.org", "--txt-owner-id=cli-test"]
        if policy is not None:
            base.append(f"--policy={policy}")
        return [*base, *extra]

    def run(self, *extra: str, policy: str | None = "sync", env: Mapping[str, str] | None = None,
            expect: int = 0) -> subprocess.CompletedProcess[str]:
        return run_cli(self.args(*extra, policy=policy), env=env, expect=expect)

    def records(self) -> dict[tuple[str, str], list[str]]:
        return zone_records(self.zone_file)


def service(name: str, hostname: str, ip: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Service
        metadata:
          name: {name}
          namespace: default
          annotations:
            external-dns.kubernetes.io/hostname: {hostname}
        spec:
          type: LoadBalancer
          ports: [{{port: 80}}]
        status:
          loadBalancer:
            ingress: [{{ip: {ip}}}]
        """)


class LogTail:
    """Collects a subprocess's stderr on a thread; `wait_for(text, timeout)` blocks on a Condition."""

    def __init__(self, proc: subprocess.Popen[bytes], name: str) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.closed = False
        self.thread = threading.Thread(target=self._read, name=f"logtail-{name}", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self.cond:
                self.lines.append(raw.decode(errors="replace"))
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def text(self) -> str:
        with self.cond:
            return "".join(self.lines)

    def count(self, needle: str) -> int:
        with self.cond:
            return sum(needle in line for line in self.lines)

    def wait_for(self, needle: str, timeout: float, occurrences: int = 1) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while sum(needle in line for line in self.lines) < occurrences:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    return False
                self.cond.wait(remaining)
            return True

    def join(self) -> None:
        self.thread.join(10)


class Controller:
    """The long-running CLI as a subprocess; `stop()` sends SIGTERM and returns (exit code, output)."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(args, cwd=ROOT, env=clean_env(drop=["KUBECONFIG"]), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)

    def stop(self) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate(timeout=10)
        return self.proc.returncode, out

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> float | None:
        """Seconds until `predicate()` held (checked every 50 ms), or None (also when the process died)."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if predicate():
                return time.monotonic() - start
            if self.proc.poll() is not None:
                return None
            time.sleep(0.05)  # observing another process's file: there is nothing to wait on
        return None


@contextlib.contextmanager
def running(args: Sequence[str], env: Mapping[str, str] | None = None,
            name: str = "cli") -> Iterator[tuple[subprocess.Popen[bytes], LogTail]]:
    """The long-running CLI (`python -m external_dns *args`, environment `env` or clean_env()) with its stderr
    tailed; afterwards it is gone (killed if it still runs) and its log read to the end."""
    proc = subprocess.Popen([sys.executable, "-m", "external_dns", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=ROOT, env=dict(env) if env is not None else clean_env())
    tail = LogTail(proc, name)
    try:
        yield proc, tail
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        tail.join()


def ends_fatally(args: Sequence[str], env: Mapping[str, str] | None = None, name: str = "cli",
                 timeout: float = 30.0) -> tuple[str, str]:
    """The long-running CLI run until a failure no retry can fix ends it: exit 1 within `timeout` seconds
    (else it is killed and the test fails with its log) and exactly one `level=fatal` line. Returns
    (that line, the whole log)."""
    with running(args, env, name) as (proc, tail):
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
    text = tail.text()
    assert code == 1, f"exit {code} (None: still running after {timeout} s):\n{text[-4000:]}"
    return one_fatal_line(text), text


def one_fatal_line(text: str) -> str:
    """The one `level=fatal` line of a log (a failure that ended the process); fails unless there is exactly one."""
    fatal = [line for line in text.splitlines() if "level=fatal" in line]
    assert len(fatal) == 1, text
    return fatal[0]


def read_until(stream: IO[bytes] | None, needle: bytes, timeout: float) -> bytes:
    """What a subprocess wrote to `stream` (its stdout or stderr pipe) up to and including the chunk holding
    `needle`; fails, with the output so far, when `needle` does not come within `timeout` seconds or the
    process closes the stream first."""
    assert stream is not None
    fd, seen, deadline = stream.fileno(), b"", time.monotonic() + timeout
    while needle not in seen:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {needle!r} within {timeout} s:\n" + seen.decode(errors="replace")
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, "the process ended early:\n" + seen.decode(errors="replace")
            seen += chunk
    return seen
