"""RFC2136 over TLS with upstream's TLS client options: --tls-ca verifies the server (real BIND with a
self-signed certificate), --tls-client-cert/--tls-client-cert-key present a client certificate (a loopback TLS
server requiring one records what it got), bad files are start-up errors naming the flag."""

from __future__ import annotations

import datetime
import socket
import ssl
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from external_dns.cmd.config import load_config
from external_dns.plan.changes import Changes
from external_dns.providers.provider import SoftError
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.providers.rfc2136.config import RFC2136ConfigError
from tests.helpers.endpoints import ep
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_tls_ca_verifies_the_server(tmp_path: Path, make_provider: Callable[..., RFC2136Provider],
                                    clean_bind: BindServer) -> None:
    ca = clean_bind.workdir / "tls.crt"
    p = make_provider(port=clean_bind.tls_port, use_tls=True, tls_ca=str(ca))
    p.apply_changes(Changes(create=[ep("verified.example.org", "A", "192.0.2.40")]))
    assert clean_bind.rrset("verified.example.org", "A") is not None
    # Another CA: the same server is refused.
    other, _ = self_signed(tmp_path, "other-ca")
    strict = make_provider(port=clean_bind.tls_port, use_tls=True, tls_ca=str(other))
    with pytest.raises(SoftError):
        strict.apply_changes(Changes(create=[ep("refused.example.org", "A", "192.0.2.41")]))
    assert clean_bind.rrset("refused.example.org", "A") is None


class ClientCertServer:
    """A loopback TLS 1.3 server that requires a client certificate signed by `client_ca` and records the
    subject it received; it answers nothing (the DNS exchange then fails, which the test expects)."""

    def __init__(self, cert: Path, key: Path, client_ca: Path) -> None:
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.ctx.load_verify_locations(cafile=client_ca)
        self.ctx.verify_mode = ssl.CERT_REQUIRED
        self.ctx.set_alpn_protocols(["dot"])
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.subjects: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(10)
            try:
                with self.ctx.wrap_socket(conn, server_side=True) as tls:
                    peer = tls.getpeercert() or {}
                    for rdn in peer.get("subject", ()):
                        self.subjects.extend(str(attr[1]) for attr in rdn if attr[0] == "commonName")
            except (ssl.SSLError, OSError):
                pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=10)


def test_client_certificate_is_presented(tmp_path: Path, make_provider: Callable[..., RFC2136Provider]) -> None:
    server_cert, server_key = self_signed(tmp_path, "localhost")
    client_cert, client_key = self_signed(tmp_path, "externaldns-client")
    server = ClientCertServer(server_cert, server_key, client_cert)
    try:
        p = make_provider(hosts=("127.0.0.1",), port=server.port, use_tls=True, skip_tls_verify=True,
                          tls_client_cert=str(client_cert), tls_client_cert_key=str(client_key), timeout=3.0)
        with pytest.raises(SoftError):
            p.apply_changes(Changes(create=[ep("mtls.example.org", "A", "192.0.2.42")]))
    finally:
        server.close()
    assert server.subjects == ["externaldns-client"]


@pytest.mark.parametrize(("flags", "message"), [
    (["--tls-client-cert-key=/x.key"], "--tls-client-cert-key needs --tls-client-cert"),
    (["--rfc2136-use-tls", "--tls-ca=/nonexistent/ca.pem"], "--tls-ca: /nonexistent/ca.pem is not a readable file"),
    (["--rfc2136-use-tls", "--tls-ca={garbage}"], "cannot load"),
    (["--rfc2136-use-tls", "--tls-client-cert={cert}", "--tls-client-cert-key={other_key}"], "cannot load"),
])
def test_bad_tls_files_are_start_up_errors(tmp_path: Path, flags: list[str], message: str) -> None:
    from external_dns.cmd.build_providers import rfc2136_config

    cert, _ = self_signed(tmp_path, "a")
    _, other_key = self_signed(tmp_path, "b")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate")
    argv = ["--source=service", "--provider=rfc2136", "--policy=sync", "--rfc2136-host=127.0.0.1",
            "--rfc2136-port=853", "--rfc2136-insecure",
            *(f.format(garbage=garbage, cert=cert, other_key=other_key) for f in flags)]
    _, cfg = load_config(argv, {})
    with pytest.raises(RFC2136ConfigError, match=message):
        rfc2136_config(cfg)
