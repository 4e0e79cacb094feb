"""The pdns provider over https: a TLS-terminating proxy on loopback (PowerDNS 4.7's webserver speaks plain
HTTP; in production TLS comes from a proxy in front of it) relaying to the real pdns_server. Covers
`--tls-ca` (trusted), an untrusted certificate (a clear, non-retried error), `--pdns-skip-tls-verify`, and
mutual TLS with `--tls-client-cert` / `--tls-client-cert-key` (refused without them), from the flags."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import socket
import ssl
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from external_dns.cmd.build_providers import build_pdns
from external_dns.cmd.config import load_config
from external_dns.providers.pdns import PDNSProvider
from external_dns.providers.provider import ProviderError, SoftError
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def make_pki(directory: Path) -> dict[str, Path]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA (PEM files)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("test CA")).issuer_name(_name("test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    paths = {"ca": directory / "ca.pem"}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    for role, san in (("server", x509.IPAddress(ipaddress.ip_address("127.0.0.1"))), ("client", None)):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (x509.CertificateBuilder().subject_name(_name(role)).issuer_name(ca.subject)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                                  critical=False))
        if san is not None:
            builder = builder.add_extension(x509.SubjectAlternativeName([san]), critical=False)
        cert = builder.sign(ca_key, hashes.SHA256())
        paths[f"{role}_cert"] = directory / f"{role}.pem"
        paths[f"{role}_key"] = directory / f"{role}.key"
        paths[f"{role}_cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        _write_key(key, paths[f"{role}_key"])
    return paths


@dataclass
class TLSProxy:
    """TLS on 127.0.0.1:<port> relayed to the pdns API; with `require_client_cert` the handshake demands a
    client certificate signed by the CA."""

    upstream: tuple[str, int]
    context: ssl.SSLContext
    sock: socket.socket = field(default_factory=lambda: socket.create_server(("127.0.0.1", 0)))
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.sock.getsockname()[1]}"

    def serve(self) -> None:
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            t = threading.Thread(target=self._relay, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    def _relay(self, raw: socket.socket) -> None:
        raw.settimeout(10)
        try:
            tls = self.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        with tls, socket.create_connection(self.upstream, timeout=10) as up:
            pump = threading.Thread(target=_copy, args=(up, tls), daemon=True)
            pump.start()
            _copy(tls, up)
            pump.join(10)


def _copy(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Path]:
    return make_pki(tmp_path)


def start_proxy(pdns: PdnsServer, pki: dict[str, Path], require_client_cert: bool) -> TLSProxy:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki["server_cert"], pki["server_key"])
    if require_client_cert:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(pki["ca"])
    proxy = TLSProxy((pdns.host, pdns.api_port), ctx)
    t = threading.Thread(target=proxy.serve, daemon=True)
    proxy.threads.append(t)
    t.start()
    return proxy


@pytest.fixture
def proxies(pdns: PdnsServer, pki: dict[str, Path]) -> Generator[dict[str, TLSProxy], None, None]:
    running = {"tls": start_proxy(pdns, pki, False), "mtls": start_proxy(pdns, pki, True)}
    yield running
    for proxy in running.values():
        proxy.stop.set()
        for t in proxy.threads:
            t.join(10)
        proxy.sock.close()


def provider_from_flags(pdns: PdnsServer, url: str, *flags: str) -> PDNSProvider:
    _parser, cfg = load_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=pdns",
                                "--policy=sync", f"--pdns-server={url}", *flags],
                               environ={"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key})
    return build_pdns(cfg)


def test_trusted_with_tls_ca(pdns: PdnsServer, pki: dict[str, Path], proxies: dict[str, TLSProxy]) -> None:
    provider = provider_from_flags(pdns, proxies["tls"].url, f"--tls-ca={pki['ca']}")
    assert provider.zones() == ("example.com", "example.org")


def test_untrusted_certificate_is_a_clear_error(pdns: PdnsServer, proxies: dict[str, TLSProxy]) -> None:
    provider = provider_from_flags(pdns, proxies["tls"].url)  # the system CAs do not know the test CA
    with pytest.raises(ProviderError, match="TLS certificate not trusted") as err:
        provider.zones()
    assert not isinstance(err.value, SoftError) and "--tls-ca" in str(err.value)


def test_skip_tls_verify(pdns: PdnsServer, proxies: dict[str, TLSProxy]) -> None:
    provider = provider_from_flags(pdns, proxies["tls"].url, "--pdns-skip-tls-verify")
    assert provider.zones() == ("example.com", "example.org")


def test_mutual_tls(pdns: PdnsServer, pki: dict[str, Path], proxies: dict[str, TLSProxy]) -> None:
    url = proxies["mtls"].url
    with_cert = provider_from_flags(pdns, url, f"--tls-ca={pki['ca']}", f"--tls-client-cert={pki['client_cert']}",
                                    f"--tls-client-cert-key={pki['client_key']}")
    assert with_cert.zones() == ("example.com", "example.org")
    without = provider_from_flags(pdns, url, f"--tls-ca={pki['ca']}")
    with pytest.raises(SoftError):
        without.zones()
