"""A throw-away PowerDNS Authoritative server (Debian's pdns-server + pdns-backend-sqlite3) with its HTTP API on
free loopback ports, for pdns provider integration tests and benchmarks.

Pytest plugin: list `tests.servers.pdns` in `pytest_plugins` and use the session-scoped `pdns_server` fixture.
It yields a `PdnsServer` (`url`, `api_key`, `server_id`, `dns_port`); call `reset()` to get back the default
zones with only SOA and NS (the `pdns` fixture does that for each test).

Outside pytest (benchmarks): `with start_pdns() as srv: ...`.

pdns_server runs as a direct child in the foreground with its own config dir (Debian's default config would
start the bind backend), a sqlite3 database built from the packaged schema, a random API key, every cache off
(API changes visible at once) and the security poll off (no DNS lookups). The webserver's access log
(`webserver-loglevel=normal`, never headers: the API key stays out of it) is how tests count the requests
the server really received (`requests_since`). Readiness: `GET /api/v1/servers/localhost` answers 200.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.servers.process import free_port, stop_process

PDNS_SERVER = shutil.which("pdns_server") or "/usr/sbin/pdns_server"
SCHEMA = Path("/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql")
DEFAULT_ZONES = ("example.org", "example.com")
READY_TIMEOUT = 20.0
_ACCESS = re.compile(r'"([A-Z]+) (\S+) HTTP/1\.[01]" (\d{3})')


class PdnsStartError(RuntimeError):
    """pdns_server did not become ready; the message carries its log."""


def available() -> bool:
    return Path(PDNS_SERVER).exists() and SCHEMA.exists()


@dataclass
class PdnsServer:
    """A running pdns_server: where its API and DNS listen and the API key."""

    api_port: int
    dns_port: int
    api_key: str
    workdir: Path
    zones: tuple[str, ...] = DEFAULT_ZONES
    server_id: str = "localhost"
    host: str = "127.0.0.1"
    max_body_mb: int = 2  # webserver-max-bodysize (PowerDNS's default)
    process: subprocess.Popen[bytes] | None = None
    _log_file: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.api_port}"

    def pdns_flags(self) -> list[str]:
        """CLI flags pointing the pdns provider at this server (the key: prefer EXTERNAL_DNS_PDNS_API_KEY)."""
        return [f"--pdns-server={self.url}", f"--pdns-server-id={self.server_id}"]

    # -- raw API ---------------------------------------------------------------------------------------------
    def api(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
        """(status, decoded JSON or text) of one API call under /api/v1/servers/localhost."""
        conn = http.client.HTTPConnection(self.host, self.api_port, timeout=30)
        try:
            conn.request(method, f"/api/v1/servers/{self.server_id}{path}",
                         body=None if body is None else json.dumps(body),
                         headers={"X-API-Key": self.api_key if key is None else key,
                                  "Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        try:
            return resp.status, json.loads(data) if data else None
        except ValueError:
            return resp.status, data.decode(errors="replace")

    def _ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.api(method, path, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {status}: {data}")
        return data

    def create_zone(self, zone: str) -> None:
        name = zone.rstrip(".") + "."
        self._ok("POST", "/zones", {"name": name, "kind": "Native", "nameservers": [f"ns1.{name}"]})

    def delete_zone(self, zone: str) -> None:
        self._ok("DELETE", f"/zones/{zone.rstrip('.')}.")

    def zone_names(self) -> list[str]:
        return sorted(str(z["name"]).rstrip(".") for z in self._ok("GET", "/zones"))

    def patch(self, zone: str, rrsets: list[dict[str, Any]]) -> None:
        self._ok("PATCH", f"/zones/{zone.rstrip('.')}.", {"rrsets": rrsets})

    def rrsets(self, zone: str) -> dict[tuple[str, str], dict[str, Any]]:
        """(name without dot, type) -> the rrset as the API returns it (ttl, records, comments)."""
        data = self._ok("GET", f"/zones/{zone.rstrip('.')}.")
        return {(str(r["name"]).rstrip("."), str(r["type"])): r for r in data["rrsets"]}

    def records(self, zone: str) -> dict[tuple[str, str], tuple[int, list[str]]]:
        """(name, type) -> (ttl, sorted contents) for every rrset except SOA."""
        return {k: (int(r["ttl"]), sorted(x["content"] for x in r["records"]))
                for k, r in self.rrsets(zone).items() if k[1] != "SOA"}

    def reset(self, zones: Sequence[str] | None = None) -> None:
        """Delete every zone and create `zones` (default: the server's default zones) with SOA and NS only."""
        for name in self.zone_names():
            self.delete_zone(name)
        for zone in zones if zones is not None else self.zones:
            self.create_zone(zone)

    # -- request counting (the server's access log) ----------------------------------------------------------
    def log(self) -> str:
        try:
            return (self.workdir / "pdns.log").read_text(errors="replace")
        except OSError:
            return ""

    def mark(self) -> int:
        """A position in the access log; `requests_since(mark)` lists what came after it."""
        return len(self._settled_log())

    def requests_since(self, mark: int) -> list[tuple[str, str, int]]:
        """(method, path, status) of every API request the server answered after `mark`."""
        text = self._settled_log()[mark:]
        out = [(m.group(1), m.group(2), int(m.group(3))) for m in _ACCESS.finditer(text)]
        return [r for r in out if "/zones/sentinel-" not in r[1]]

    def _settled_log(self) -> str:
        """The log once a sentinel request shows in it and nothing more was written for 0.2 s: PowerDNS
        writes an access line just after sending its answer, so a client can be faster than the log."""
        token = secrets.token_hex(8)
        self.api("GET", f"/zones/sentinel-{token}.")  # a 404, logged with its path
        deadline = time.monotonic() + 10
        last, stable_since = "", time.monotonic()
        while True:
            text = self.log()
            now = time.monotonic()
            if text != last:
                last, stable_since = text, now
            elif token in text and now - stable_since >= 0.2:
                return text
            if now > deadline:
                raise RuntimeError("the pdns access log did not settle after the sentinel request")
            time.sleep(0.02)  # polling a log file another process writes, bounded by the deadline

    # -- process ---------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start (or restart after `stop`) on the same ports and database."""
        self._log_file = open(self.workdir / "pdns.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen([PDNS_SERVER, f"--config-dir={self.workdir}"], stdin=subprocess.DEVNULL,
                                        stdout=self._log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            with contextlib.suppress(OSError, http.client.HTTPException):
                if self.api("GET", "")[0] == 200:
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = self.log()
                self.stop()
                raise PdnsStartError(f"pdns_server did not start on {self.url}:\n{log[-4000:]}")
            time.sleep(0.02)  # polling a child process for readiness, bounded by the deadline

    def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is not None:
            stop_process(proc)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None


def _config(srv: PdnsServer) -> str:
    return "\n".join((
        "launch=gsqlite3",
        f"gsqlite3-database={srv.workdir / 'pdns.sqlite3'}",
        f"local-address={srv.host}",
        f"local-port={srv.dns_port}",
        "api=yes",
        f"api-key={srv.api_key}",
        "webserver=yes",
        f"webserver-address={srv.host}",
        f"webserver-port={srv.api_port}",
        "webserver-allow-from=127.0.0.0/8",
        "webserver-loglevel=normal",
        f"webserver-max-bodysize={srv.max_body_mb}",
        "loglevel=6",
        "allow-axfr-ips=127.0.0.0/8",
        "default-soa-content=ns1.@ hostmaster.@ 0 10800 3600 604800 3600",
        f"socket-dir={srv.workdir}",
        "daemon=no",
        "guardian=no",
        "disable-syslog=yes",
        "security-poll-suffix=",
        "cache-ttl=0",
        "query-cache-ttl=0",
        "negquery-cache-ttl=0",
        "",
    ))


@contextlib.contextmanager
def start_pdns(zones: Sequence[str] = DEFAULT_ZONES, max_body_mb: int = 2) -> Iterator[PdnsServer]:
    """Run pdns_server on free loopback ports with a random API key and `zones` created; stopped on exit.
    `max_body_mb`: the largest request body the API accepts (PowerDNS resets the connection above it)."""
    if not available():
        raise PdnsStartError("pdns_server or the sqlite3 schema is missing: apt-get install pdns-server "
                             "pdns-backend-sqlite3")
    workdir = Path(tempfile.mkdtemp(prefix="pdns-"))
    srv = PdnsServer(api_port=free_port(), dns_port=free_port(), api_key=secrets.token_urlsafe(24),
                     workdir=workdir, zones=tuple(zones), max_body_mb=max_body_mb)
    try:
        with sqlite3.connect(workdir / "pdns.sqlite3") as db:
            db.executescript(SCHEMA.read_text())
        db.close()
        (workdir / "pdns.conf").write_text(_config(srv))
        srv.start()
        srv.reset()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def pdns_server() -> Generator[PdnsServer, None, None]:
    """One pdns_server for the test session (skipped, which fails in CI, when PowerDNS is not installed)."""
    if not available():
        pytest.skip("PowerDNS is not installed (apt-get install pdns-server pdns-backend-sqlite3)")
    with start_pdns() as srv:
        yield srv


@pytest.fixture
def pdns(pdns_server: PdnsServer) -> PdnsServer:
    """The session's server with only the default zones, empty (SOA and NS), and running."""
    if pdns_server.process is None or pdns_server.process.poll() is not None:
        pdns_server.start()
    pdns_server.reset()
    return pdns_server
