"""The loopback HTTP(S) server under the strict vendor fakes (cloudflare.py, google.py, azure.py).

A fake subclasses `FakeAPI` and implements `handle(request) -> Reply`; this module owns the socket side: a
`ThreadingHTTPServer` on 127.0.0.1:<free port> (TLS with a throw-away CA when asked: azure-core and MSAL refuse
bearer tokens over plain http), a bounded request body, per-connection socket deadlines, the request log the
benchmarks count calls with, and the faults every fake shares:

- `throttle(n, retry_after)`: the next n API requests answer 429 with `Retry-After` (the vendor's body shape);
- `fail(n, status, after=k, match=...)`: after k more matching requests, the next n answer `status` (a 5xx
  mid-batch, a dropped connection with status 0).

Nothing here knows a vendor: error bodies come from the fake's `error_reply`.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

MAX_BODY = 64 * 1024 * 1024
SOCKET_TIMEOUT = 30.0


@dataclass
class Request:
    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode()) if self.body else None

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else default


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-encoded unless bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Fault:
    status: int
    count: int
    after: int
    match: Callable[[Request], bool]
    retry_after: str = ""


class FakeAPI:
    """Base of a vendor fake: `start()`/`stop()` (or a context manager), `url`, `calls`, faults."""

    def __init__(self, tls: bool = False, cert_dir: Path | None = None) -> None:
        self.lock = threading.RLock()
        self.calls: list[tuple[str, str]] = []  # (method, path) of every request answered, faults included
        self._faults: list[_Fault] = []
        self._tls = tls
        self._cert_dir = cert_dir
        self.ca_file: str = ""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- what a fake implements ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Reply:
        raise NotImplementedError

    def error_reply(self, status: int, message: str) -> Reply:
        return Reply(status, {"error": message})

    def is_api(self, request: Request) -> bool:
        """Whether faults apply to this request (token endpoints and the like say no)."""
        return True

    # -- faults -------------------------------------------------------------------------------------------
    def throttle(self, count: int, retry_after: str = "0", match: Callable[[Request], bool] | None = None) -> None:
        with self.lock:
            self._faults.append(_Fault(429, count, 0, match or (lambda r: True), retry_after))

    def fail(self, count: int, status: int = 500, after: int = 0,
             match: Callable[[Request], bool] | None = None) -> None:
        """After `after` more matching requests, answer the next `count` with `status` (0: drop the connection
        without an answer)."""
        with self.lock:
            self._faults.append(_Fault(status, count, after, match or (lambda r: True)))

    def _fault_for(self, request: Request) -> _Fault | None:
        with self.lock:
            for fault in self._faults:
                if fault.count <= 0 or not fault.match(request):
                    continue
                if fault.after > 0:
                    fault.after -= 1
                    continue
                fault.count -= 1
                return fault
        return None

    def count(self, method: str | None = None, contains: str = "") -> int:
        with self.lock:
            return sum(1 for m, p in self.calls if (method is None or m == method) and contains in p)

    def reset_calls(self) -> None:
        with self.lock:
            self.calls.clear()

    # -- serving --------------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"{'https' if self._tls else 'http'}://{host!s}:{port}"

    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall
            timeout = SOCKET_TIMEOUT

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    self._send(fake.error_reply(413, "request body too large"))
                    return
                body = self.rfile.read(length) if length else b""
                parts = urllib.parse.urlsplit(self.path)
                request = Request(self.command, urllib.parse.unquote(parts.path),
                                  urllib.parse.parse_qs(parts.query, keep_blank_values=True),
                                  {k.lower(): v for k, v in self.headers.items()}, body)
                with fake.lock:
                    fake.calls.append((request.method, request.path))
                fault = fake._fault_for(request) if fake.is_api(request) else None
                if fault is not None and fault.status == 0:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if fault is not None:
                    reply = fake.error_reply(fault.status, "rate limited" if fault.status == 429 else
                                             "injected server failure")
                    if fault.retry_after:
                        reply.headers["Retry-After"] = fault.retry_after
                else:
                    try:
                        reply = fake.handle(request)
                    except Exception as exc:  # a fake bug answers 500 with the reason (seen in the test)
                        reply = fake.error_reply(500, f"fake error: {type(exc).__name__}: {exc}")
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                raw = reply.body if isinstance(reply.body, bytes) else (
                    b"" if reply.body is None else json.dumps(reply.body).encode())
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        if self._tls:
            assert self._cert_dir is not None, "TLS needs a directory for the throw-away CA"
            cert, key, self.ca_file = _self_signed(self._cert_dir)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            server.socket = ctx.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"{type(self).__name__}-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _self_signed(directory: Path) -> tuple[str, str, str]:
    """A CA and a server certificate for 127.0.0.1 / localhost signed by it; returns (cert, key, ca) paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "external-dns-py test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False),
                         critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    directory.mkdir(parents=True, exist_ok=True)
    paths = directory / "server.pem", directory / "server.key", directory / "ca.pem"
    paths[0].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    paths[2].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return str(paths[0]), str(paths[1]), str(paths[2])
