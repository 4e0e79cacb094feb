"""A throw-away BIND9 (`named`) on a free loopback port, for RFC2136 integration tests and benchmarks.

Pytest plugin: list `tests.servers.bind` in `pytest_plugins` and use the session-scoped `bind_server`
fixture. It yields a `BindServer` with `host`, `port`, `key_name`, `key_secret`, `key_algorithm`, `zones`
(plus one extra key per TSIG algorithm in `keys`, and `tls_port` for DNS over TLS). Tests share one server;
isolate them by record names, or call `bind_server.reset()` to empty every zone back to SOA/NS.

Outside pytest (benchmarks): `with start_bind(["bench.test"]) as srv: ...`.

named runs as a direct child in the foreground (`-f` with logging to stderr, update logging off), as the
unprivileged `bind` user when we are root, in a fresh temp dir (no stale journals), with its own rndc port
and key; readiness is every zone answering SOA with
NOERROR and the AA bit (named logs `running` even when a zone failed to load).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdatatype
import dns.tsigkeyring
import dns.update
import pytest

from tests.servers.process import free_port, stop_process

NAMED = shutil.which("named") or "/usr/sbin/named"
DEFAULT_ZONES = ("example.org", "example.com", "sub.example.org")
TSIG_ALGORITHMS = ("hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384", "hmac-sha512")
MAIN_KEY = "externaldns-key"
NAMED_USER = "bind"  # Debian's bind9 package creates it
READY_TIMEOUT = 20.0


class BindStartError(RuntimeError):
    """named did not become ready; the message carries its log."""


@dataclass
class BindServer:
    """A running named: where it listens and the TSIG key that may UPDATE and AXFR every zone."""

    host: str
    port: int
    key_name: str
    key_secret: str
    key_algorithm: str
    zones: tuple[str, ...]
    workdir: Path
    tls_port: int = 0
    # algorithm -> (key name, secret): one key per TSIG algorithm, all allowed to update and transfer.
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None

    # Other spellings of the key fields (flag-style names).
    @property
    def tsig_keyname(self) -> str:
        return self.key_name

    @property
    def tsig_secret(self) -> str:
        return self.key_secret

    @property
    def tsig_algorithm(self) -> str:
        return self.key_algorithm

    def rfc2136_flags(self) -> list[str]:
        """CLI flags that point the rfc2136 provider at this server (every zone, AXFR on). The secret is a
        flag too: for a subprocess prefer EXTERNAL_DNS_RFC2136_TSIG_SECRET in its environment."""
        return [f"--rfc2136-host={self.host}", f"--rfc2136-port={self.port}",
                *(f"--rfc2136-zone={z}" for z in self.zones), f"--rfc2136-tsig-keyname={self.key_name}",
                f"--rfc2136-tsig-secret-alg={self.key_algorithm}", f"--rfc2136-tsig-secret={self.key_secret}",
                "--rfc2136-axfr"]

    # -- helpers for tests ---------------------------------------------------------------------------------
    def keyring(self) -> dict[dns.name.Name, dns.tsig.Key]:
        return dns.tsigkeyring.from_text({self.key_name: (self.key_algorithm, self.key_secret)})

    def axfr(self, zone: str) -> list[tuple[str, str, int, list[str]]]:
        """(name, type, ttl, [rdata text]) for every rrset in the zone, names absolute without the dot."""
        q = dns.message.make_query(zone, dns.rdatatype.AXFR)
        q.use_tsig(self.keyring(), keyname=self.key_name, algorithm=self.key_algorithm)
        out: dict[tuple[str, str], tuple[int, list[str]]] = {}
        soa_seen = 0
        origin = dns.name.from_text(zone)
        with socket.create_connection((self.host, self.port), timeout=10) as sock:
            dns.query.send_tcp(sock, q, time.time() + 10)
            tsig_ctx = None
            while soa_seen < 2:
                ldata = _read_exact(sock, 2)
                wire = _read_exact(sock, int.from_bytes(ldata, "big"))
                r = dns.message.from_wire(wire, keyring=q.keyring, request_mac=q.mac, xfr=True,
                                          origin=origin, tsig_ctx=tsig_ctx, multi=True)
                tsig_ctx = r.tsig_ctx
                if r.rcode() != dns.rcode.NOERROR:
                    raise RuntimeError(f"AXFR {zone}: {dns.rcode.to_text(r.rcode())}")
                for rrset in r.answer:
                    if rrset.rdtype == dns.rdatatype.SOA:
                        soa_seen += 1
                        if soa_seen > 1:
                            continue
                    name = rrset.name.derelativize(origin).to_text().rstrip(".")
                    key = (name, dns.rdatatype.to_text(rrset.rdtype))
                    _ttl, values = out.setdefault(key, (rrset.ttl, []))
                    values.extend(rd.to_text(origin=origin, relativize=False) for rd in rrset)
        return [(name, rtype, ttl, values) for (name, rtype), (ttl, values) in out.items()]

    def rrset(self, name: str, rtype: str) -> tuple[int, list[str]] | None:
        """(ttl, sorted rdata texts) of one rrset, read by AXFR of the zone that holds the name."""
        zone = self.zone_of(name)
        for n, t, ttl, values in self.axfr(zone):
            if n == name.rstrip(".") and t == rtype:
                return ttl, sorted(values)
        return None

    def zone_of(self, name: str) -> str:
        name = name.rstrip(".")
        best = ""
        for z in self.zones:
            if (name == z or name.endswith("." + z)) and len(z) > len(best):
                best = z
        if not best:
            raise ValueError(f"{name} is in no zone of this server")
        return best

    def update(self, zone: str) -> dns.update.UpdateMessage:
        """A signed UPDATE message for a zone (send it with `send`)."""
        return dns.update.UpdateMessage(zone, keyring=self.keyring(),
                                        keyname=dns.name.from_text(self.key_name),
                                        keyalgorithm=self.key_algorithm)

    def send(self, msg: dns.message.Message) -> None:
        r = dns.query.tcp(msg, self.host, port=self.port, timeout=10)
        if r.rcode() != dns.rcode.NOERROR:
            raise RuntimeError(f"UPDATE failed: {dns.rcode.to_text(r.rcode())}")

    def reset(self) -> None:
        """Delete every record of every zone except the apex SOA/NS and the name server's address."""
        for zone in self.zones:
            upd = self.update(zone)
            n = 0
            for name, rtype, _ttl, _values in self.axfr(zone):
                if name == zone and rtype in ("SOA", "NS"):
                    continue
                if name == f"ns1.{zone}" and rtype == "A":
                    continue
                upd.delete(name + ".", rtype)
                n += 1
            if n:
                self.send(upd)

    def stop(self) -> None:
        proc = self.process
        if proc is None:
            return
        self.process = None
        stop_process(proc)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def log(self) -> str:
        try:
            return (self.workdir / "named.log").read_text(errors="replace")
        except OSError:
            return ""


def _read_exact(sock: socket.socket, count: int) -> bytes:
    buf = b""
    while len(buf) < count:
        chunk = sock.recv(count - len(buf))
        if not chunk:
            raise EOFError("connection closed during AXFR")
        buf += chunk
    return buf


def _secret() -> str:
    return base64.b64encode(secrets.token_bytes(32)).decode()


def _zone_file(zone: str, serial: int) -> str:
    return (
        "$TTL 300\n"
        f"@ IN SOA ns1.{zone}. hostmaster.{zone}. ({serial} 3600 600 86400 60)\n"
        f"@ IN NS ns1.{zone}.\n"
        "ns1 IN A 127.0.0.1\n"
    )


def _write_tls_cert(workdir: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (DNS over TLS)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .sign(key, hashes.SHA256())
    )
    key_path, cert_path = workdir / "tls.key", workdir / "tls.crt"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    os.chmod(key_path, 0o600)
    return key_path, cert_path


def _named_conf(srv: BindServer, rndc_port: int, rndc_secret: str, tls: tuple[Path, Path] | None,
                ixfr_ratio: str) -> str:
    d = srv.workdir
    keys = "".join(f'key "{name}" {{ algorithm {alg}; secret "{secret}"; }};\n'
                   for alg, (name, secret) in sorted(srv.keys.items()))
    keys += f'key "{srv.key_name}" {{ algorithm {srv.key_algorithm}; secret "{srv.key_secret}"; }};\n'
    allowed = " ".join(f'key "{n}";' for n in sorted({srv.key_name, *(n for n, _ in srv.keys.values())}))
    tls_block = listen_tls = ""
    if tls is not None:
        tls_block = f'tls local-tls {{ key-file "{tls[0]}"; cert-file "{tls[1]}"; }};\n'
        listen_tls = f"    listen-on port {srv.tls_port} tls local-tls {{ 127.0.0.1; }};\n"
    zones = "".join(
        f'zone "{z}" {{ type primary; file "{d}/db.{z}"; allow-update {{ {allowed} }}; '
        f"allow-transfer {{ {allowed} }}; }};\n"
        for z in srv.zones
    )
    return (
        keys
        + f'key "rndc-key" {{ algorithm hmac-sha256; secret "{rndc_secret}"; }};\n'
        + f'controls {{ inet 127.0.0.1 port {rndc_port} allow {{ 127.0.0.1; }} keys {{ "rndc-key"; }}; }};\n'
        + tls_block
        + "options {\n"
        + f'    directory "{d}"; pid-file "{d}/named.pid"; session-keyfile "{d}/session.key";\n'
        + f'    managed-keys-directory "{d}"; dump-file "{d}/dump.db"; statistics-file "{d}/stats";\n'
        + f"    listen-on port {srv.port} {{ 127.0.0.1; }};\n"
        + listen_tls
        + "    listen-on-v6 { none; };\n"
        + "    recursion no; dnssec-validation no; notify no; allow-transfer { none; };\n"
        + f"    max-ixfr-ratio {ixfr_ratio};\n"
        + "};\n"
        + "logging {\n"
        + "    channel to_stderr { stderr; severity info; print-time yes; print-category yes; };\n"
        + "    category default { to_stderr; };\n"
        + "    category update { null; }; category update-security { null; };\n"
        + "    category xfer-out { null; }; category lame-servers { null; };\n"
        + "};\n"
        + zones
    )


def _drop_root(workdir: Path) -> list[str]:
    """When we are root, named runs as the unprivileged `bind` user (`-u bind`: it binds its ports, then
    drops root), owning its work dir; otherwise it runs as we do, which is not root either."""
    if os.geteuid() != 0:
        return []
    try:
        user = pwd.getpwnam(NAMED_USER)
    except KeyError:
        return []  # no such user: named stays root (it does not refuse to)
    for path in (workdir, *workdir.rglob("*")):
        os.chown(path, user.pw_uid, user.pw_gid)
    return ["-u", NAMED_USER]


def _zone_ready(host: str, port: int, zone: str) -> bool:
    q = dns.message.make_query(zone, dns.rdatatype.SOA)
    try:
        r = dns.query.udp(q, host, port=port, timeout=0.5)
    except (OSError, dns.exception.DNSException):
        return False
    return r.rcode() == dns.rcode.NOERROR and bool(r.flags & dns.flags.AA) and len(r.answer) >= 1


def start_bind(zones: Sequence[str] = DEFAULT_ZONES, key_algorithm: str = "hmac-sha256",
               with_tls: bool = True, ixfr_ratio: str = "unlimited") -> BindServer:
    """Start named with the given zones; returns once every zone answers. Call `stop()` when done.
    `ixfr_ratio` is named's max-ixfr-ratio ("unlimited": IXFR always answers with differences; named's
    own default "100%" answers small zones with the whole zone)."""
    if not os.path.exists(NAMED):
        raise BindStartError(f"named not found at {NAMED}: install Debian's bind9 package")
    workdir = Path(tempfile.mkdtemp(prefix="edns-bind-"))
    srv = BindServer(host="127.0.0.1", port=free_port(), key_name=MAIN_KEY, key_secret=_secret(),
                     key_algorithm=key_algorithm, zones=tuple(z.rstrip(".") for z in zones), workdir=workdir,
                     keys={alg: (f"key-{alg}", _secret()) for alg in TSIG_ALGORITHMS})
    try:
        tls = None
        if with_tls:
            srv.tls_port = free_port()
            tls = _write_tls_cert(workdir)
        serial = int(time.time())
        for z in srv.zones:
            (workdir / f"db.{z}").write_text(_zone_file(z, serial))
        conf = workdir / "named.conf"
        conf.write_text(_named_conf(srv, free_port(), _secret(), tls, ixfr_ratio))
        check = subprocess.run(["named-checkconf", str(conf)], capture_output=True, text=True, timeout=30,
                               check=False)
        if check.returncode != 0:
            raise BindStartError(f"named-checkconf failed: {check.stdout}{check.stderr}")
        log = open(workdir / "named.log", "wb")  # noqa: SIM115 - handed to the child
        try:
            srv.process = subprocess.Popen([NAMED, "-f", "-4", "-c", str(conf), *_drop_root(workdir)], stdout=log,
                                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir)
        finally:
            log.close()
        deadline = time.monotonic() + READY_TIMEOUT
        pending = list(srv.zones)
        while pending:
            if srv.process.poll() is not None:
                raise BindStartError(f"named exited with {srv.process.returncode}:\n{srv.log()}")
            if time.monotonic() > deadline:
                raise BindStartError(f"named not ready after {READY_TIMEOUT}s (zones {pending}):\n{srv.log()}")
            pending = [z for z in pending if not _zone_ready(srv.host, srv.port, z)]
            if pending:
                time.sleep(0.05)  # polling a child process that has no readiness notification
        return srv
    except BaseException:
        srv.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        raise


@contextlib.contextmanager
def running_bind(zones: Sequence[str] = DEFAULT_ZONES, with_tls: bool = True,
                 ixfr_ratio: str = "unlimited") -> Iterator[BindServer]:
    srv = start_bind(zones, with_tls=with_tls, ixfr_ratio=ixfr_ratio)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def bind_server() -> Generator[BindServer, None, None]:
    """One named for the whole test session: zones example.org, example.com and sub.example.org."""
    with running_bind() as srv:
        yield srv
