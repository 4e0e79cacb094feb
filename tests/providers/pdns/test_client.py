"""The PowerDNS HTTP client against a misbehaving HTTP server on loopback (what a real PowerDNS will not do on
demand): answers over the size cap, a body dripped past the request deadline, a server that never answers,
5xx answers retried then soft, 403, non-JSON; plus the settings checks and that the key never shows."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from external_dns.errors import ConfigError
from external_dns.providers.pdns import PDNSAuthError, PDNSClient, PDNSConfig, PDNSProvider
from external_dns.providers.pdns.client import PDNSBodyTooLarge
from external_dns.providers.provider import ProviderError, SoftError
from tests.providers.pdns.rawhttp import Handler, RawServer, answer

KEY = "s3cr3t-api-key-value"


def client(url: str, **kw: object) -> PDNSClient:
    settings: dict[str, object] = {"server": url, "api_key": KEY, "retry_base": 0.01, "retries": 2,
                                   "read_timeout": 1.0, "request_deadline": 2.0}
    settings.update(kw)
    return PDNSClient(PDNSConfig(**settings))  # type: ignore[arg-type]


def test_answer_over_the_size_cap_by_content_length(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n[]"))
    with pytest.raises(ProviderError, match="over the 1024-byte limit") as err:
        client(srv.url, max_response_bytes=1024).list_zones()
    assert not isinstance(err.value, SoftError)


def test_answer_over_the_size_cap_without_length(raw: Callable[[Handler], RawServer]) -> None:
    def handler(c: socket.socket, n: int) -> None:
        c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n[" + b" " * 5000)

    srv = raw(handler)
    with pytest.raises(ProviderError, match="over the 1024-byte limit"):
        client(srv.url, max_response_bytes=1024).list_zones()


def test_body_dripped_past_the_deadline_is_soft(raw: Callable[[Handler], RawServer]) -> None:
    def handler(c: socket.socket, n: int) -> None:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        for _ in range(100):
            c.sendall(b" ")
            time.sleep(0.05)  # a slow server, by design

    srv = raw(handler)
    started = time.monotonic()
    with pytest.raises(SoftError, match=r"timed out|deadline"):
        client(srv.url, retries=0, request_deadline=0.5).list_zones()
    assert time.monotonic() - started < 2.0


def test_headers_dripped_past_the_deadline_are_soft(raw: Callable[[Handler], RawServer]) -> None:
    """Each header line arrives within the read timeout, the whole answer never within the deadline."""
    def handler(c: socket.socket, n: int) -> None:
        c.sendall(b"HTTP/1.1 200 OK\r\n")
        for i in range(60):
            c.sendall(f"X-Slow-{i}: y\r\n".encode())
            time.sleep(0.05)  # a slow server, by design

    srv = raw(handler)
    started = time.monotonic()
    with pytest.raises(SoftError, match=r"timed out|deadline"):
        client(srv.url, retries=0, read_timeout=0.5, request_deadline=0.5).list_zones()
    assert time.monotonic() - started < 1.5


def test_server_that_never_answers_is_soft(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: time.sleep(1.0))
    with pytest.raises(SoftError, match="timed out"):
        client(srv.url, retries=0, read_timeout=0.2).list_zones()


def test_5xx_is_retried_then_succeeds(raw: Callable[[Handler], RawServer]) -> None:
    def handler(c: socket.socket, n: int) -> None:
        c.sendall(answer("503 Busy", b'{"error": "busy"}') if n < 3 else answer("200 OK", b"[]"))

    srv = raw(handler)
    assert client(srv.url, retries=2).list_zones() == []
    assert srv.count == 3


def test_5xx_every_time_is_soft_with_the_server_message(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(answer("500 Oops", b'{"error": "backend down"}')))
    with pytest.raises(SoftError, match="HTTP 500: backend down"):
        client(srv.url, retries=2).list_zones()
    assert srv.count == 3


def test_403_is_an_auth_error_without_the_key(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(answer("403 Forbidden", b"Forbidden")))
    with pytest.raises(PDNSAuthError) as err:
        client(srv.url).list_zones()
    assert isinstance(err.value, ConfigError) and "--pdns-api-key" in str(err.value)
    assert KEY not in str(err.value) and KEY not in repr(client(srv.url)) and KEY not in repr(client(srv.url).config)
    assert srv.count == 1  # never retried


def test_large_body_dropped_by_the_server(raw: Callable[[Handler], RawServer]) -> None:
    """A server closing the connection on a large body (PowerDNS over webserver-max-bodysize): PDNSBodyTooLarge,
    not retried; a plain 400 to a large body is the same; a small body reset is an ordinary transient error."""
    def reset(c: socket.socket, n: int) -> None:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close

    srv = raw(reset)
    srv.read_body = False
    with pytest.raises(PDNSBodyTooLarge) as err:
        client(srv.url).patch_zone("example.org.", b"{" + b" " * 4_000_000 + b"}")
    assert err.value.size == 4_000_002 and srv.count == 1
    with pytest.raises(SoftError):
        client(srv.url, retries=1).patch_zone("example.org.", b"{}")
    bad = raw(lambda c, n: c.sendall(answer("400 Bad Request", b"Bad Request")))
    with pytest.raises(PDNSBodyTooLarge):
        client(bad.url).patch_zone("example.org.", b"{" + b" " * 300_000 + b"}")
    json_400 = raw(lambda c, n: c.sendall(answer("400 Bad Request", b'{"error": "bad rrsets"}')))
    with pytest.raises(ProviderError, match="HTTP 400: bad rrsets"):
        client(json_400.url).patch_zone("example.org.", b"{" + b" " * 300_000 + b"}")


def test_non_json_answer(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(answer("200 OK", b"<html>proxy</html>")))
    with pytest.raises(ProviderError, match="not JSON"):
        client(srv.url).list_zones()


def test_path_prefix_server_id_and_key_header(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(answer("200 OK", b"[]")))
    cfg = PDNSConfig(server=srv.url + "/pdns/", api_key=KEY, server_id="behind proxy")
    assert PDNSClient(cfg).list_zones() == []
    head = srv.heads[0].decode()
    assert head.startswith("GET /pdns/api/v1/servers/behind%20proxy/zones?dnssec=false HTTP/1.1\r\n")
    assert f"X-API-Key: {KEY}" in head.split("\r\n")
    assert "authorization:" not in head.lower()  # no user:password@ in the URL: no basic auth


def test_password_in_the_url_is_sent_as_basic_auth_and_never_shown(raw: Callable[[Handler], RawServer]) -> None:
    srv = raw(lambda c, n: c.sendall(answer("500 Internal Server Error", b'{"error": "down"}')))
    url = srv.url.replace("http://", "http://proxy%40user:pa%3Ass-w0rd@")
    pdns = client(url)
    with pytest.raises(SoftError) as err:
        pdns.list_zones()
    head = srv.heads[0].decode().split("\r\n")
    assert "Authorization: Basic cHJveHlAdXNlcjpwYTpzcy13MHJk" in head  # base64("proxy@user:pa:ss-w0rd")
    assert f"X-API-Key: {KEY}" in head
    shown = f"{err.value} {pdns!r} {PDNSProvider(pdns.config)!r}"
    assert "pa%3Ass-w0rd" not in shown and "proxy%40user:******@" in shown
    with pytest.raises(ConfigError) as bad:
        PDNSConfig(server="http://u:pa%3Ass-w0rd@host:bad", api_key=KEY)
    assert "pa%3Ass-w0rd" not in str(bad.value)


@pytest.mark.parametrize(("settings", "message"), [
    ({"api_key": ""}, "missing API Key for PDNS"),
    ({"server": "ftp://x"}, "--pdns-server must be an http"),
    ({"server": "http://x:notaport"}, "invalid port"),
    ({"server_id": ""}, "--pdns-server-id"),
    ({"tls_client_cert": "/c.pem"}, "--tls-client-cert and --tls-client-cert-key"),
    ({"tls_ca": "/ca.pem"}, "need an https://"),
])
def test_settings_are_checked(settings: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"server": "http://127.0.0.1:8081", "api_key": KEY}
    base.update(settings)
    with pytest.raises(ConfigError, match=message):
        PDNSConfig(**base)  # type: ignore[arg-type]


def test_tls_files_that_do_not_load(tmp_path: Path) -> None:
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("not a certificate")
    cfg = PDNSConfig(server="https://127.0.0.1:8443", api_key=KEY, tls_ca=str(not_pem))
    with pytest.raises(ConfigError, match="cannot load"):
        cfg.ssl_context()
    ctx = PDNSConfig(server="https://127.0.0.1:8443", api_key=KEY, skip_tls_verify=True).ssl_context()
    assert ctx is not None and not ctx.check_hostname


@pytest.mark.parametrize("flag", ["tls_ca", "tls_client_cert", "tls_client_cert_key"])
def test_tls_files_must_be_regular_files(tmp_path: Path, flag: str) -> None:
    # A FIFO would block start-up for ever; a link to /dev/zero would be read without end.
    fifo = tmp_path / "fifo.pem"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.pem"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, tmp_path / "missing.pem"):
        regular = tmp_path / "regular.pem"
        regular.write_text("")
        # The client certificate and its key go together: the other one of the pair is a regular file.
        settings: dict[str, object] = {"tls_client_cert": str(regular), "tls_client_cert_key": str(regular)}
        settings = settings if flag != "tls_ca" else {}
        settings[flag] = str(path)
        cfg = PDNSConfig(server="https://127.0.0.1:8443", api_key=KEY, **settings)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match=f"--{flag.replace('_', '-')}: .* is not a readable file"):
            cfg.ssl_context()


def test_zone_without_rrsets_is_an_error_not_an_empty_zone(raw: Callable[[Handler], RawServer]) -> None:
    srv: RawServer

    def handler(c: socket.socket, n: int) -> None:
        if srv.heads[n - 1].split(b" ")[1].endswith(b"/zones?dnssec=false"):
            c.sendall(answer("200 OK", b'[{"id": "example.org.", "name": "example.org."}]'))
        else:
            c.sendall(answer("200 OK", b'{"id": "example.org.", "name": "example.org."}'))

    srv = raw(handler)
    provider = PDNSProvider(PDNSConfig(server=srv.url, api_key=KEY))
    with pytest.raises(ProviderError, match="came back without rrsets"):
        provider.records()
