"""PowerDNS settings (providers/pdns/config.py): every start-up error names the flag and never shows the key, a
password in the server URL masked and sent as basic auth, the API path behind a proxy, the TLS context."""

from __future__ import annotations

import base64
import ssl
from pathlib import Path
from typing import Any

import pytest

from external_dns.errors import ConfigError
from external_dns.providers.pdns import PDNSConfig

KEY = "k3y-never-shown"


def config(**kw: Any) -> PDNSConfig:
    return PDNSConfig(**{"api_key": KEY, **kw})


@pytest.mark.parametrize(("kw", "message"), [
    ({"api_key": ""}, "missing API Key for PDNS. Specify using --pdns-api-key="),
    ({"api_key": KEY + "\n"}, "--pdns-api-key holds a control character"),
    ({"api_key": "k\u0100y"}, "--pdns-api-key holds a control character (a line break?) or a character that cannot"),
    ({"server": "ftp://pdns:8081"}, "--pdns-server must be an http:// or https:// URL, got 'ftp://pdns:8081'"),
    ({"server": "http://admin:s3cret@:8081"}, "--pdns-server must be an http:// or https:// URL, got "
                                              "'http://admin:******@:8081'"),
    ({"server": "http://pdns:99999"}, "--pdns-server has an invalid port"),
    ({"server_id": "a/b"}, "--pdns-server-id must be a non-empty server id without '/'"),
    ({"server": "https://pdns", "tls_client_cert": "c.pem"}, "--tls-client-cert and --tls-client-cert-key"),
    ({"tls_ca": "ca.pem"}, "--tls-ca / --tls-client-cert need an https:// --pdns-server"),
    ({"max_patch_rrsets": 0}, "PowerDNS request limits must be positive"),
])
def test_start_up_errors_name_the_flag_and_never_the_key(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        config(**kw)
    assert str(info.value).startswith(message) and KEY not in str(info.value)
    assert "s3cret" not in str(info.value)


def test_the_key_is_not_in_repr() -> None:
    assert KEY not in repr(config())


def test_a_password_in_the_url_is_masked_and_sent_as_basic_auth() -> None:
    cfg = config(server="https://proxy%20user:p%40ss@pdns.example.org:8443/pdns/")
    assert cfg.shown_server == "https://proxy%20user:******@pdns.example.org:8443/pdns/"
    auth = cfg.basic_auth()
    assert auth is not None and base64.b64decode(auth.removeprefix("Basic ")) == b"proxy user:p@ss"
    assert config().basic_auth() is None


def test_the_api_path_keeps_a_proxys_path_and_quotes_the_server_id() -> None:
    assert config().base_path == "/api/v1/servers/localhost"
    assert config(server="http://proxy/pdns/", server_id="my server").base_path == "/pdns/api/v1/servers/my%20server"


def test_tls_context_only_for_https(tmp_path: Path) -> None:
    assert config().ssl_context() is None
    ctx = config(server="https://pdns.example.org").ssl_context()
    assert ctx is not None and ctx.minimum_version == ssl.TLSVersion.TLSv1_2 and ctx.verify_mode == ssl.CERT_REQUIRED
    skip = config(server="https://pdns.example.org", skip_tls_verify=True).ssl_context()
    assert skip is not None and skip.verify_mode == ssl.CERT_NONE and not skip.check_hostname
    with pytest.raises(ConfigError, match=f"--tls-ca: {tmp_path} is not a readable file"):
        config(server="https://pdns.example.org", tls_ca=str(tmp_path)).ssl_context()
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate")
    with pytest.raises(ConfigError, match="cannot load"):
        config(server="https://pdns.example.org", tls_ca=str(bad)).ssl_context()
