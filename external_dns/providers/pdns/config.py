"""PowerDNS provider settings: a checked, typed configuration (built from the `--pdns-*` and `--tls-*` flags
in cmd/) and the TLS context for the API connection.

The API key is kept out of `repr()` so it never reaches a log line or an error message. Every start-up error
names the flag at fault and is an `external_dns.errors.ConfigError`.
"""

from __future__ import annotations

import base64
import os
import ssl
import urllib.parse
from dataclasses import dataclass, field

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError
from external_dns.redact import redact_urls

DEFAULT_SERVER = "http://localhost:8081"
DEFAULT_SERVER_ID = "localhost"
# Per request: connecting, each read/write on the socket, and the whole exchange.
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0
REQUEST_DEADLINE = 120.0
# The largest response body read (a zone of 100k rrsets is about 25 MB of JSON).
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
# Every PATCH costs PowerDNS a fixed share that grows with the zone, so a zone's changes go in as few requests
# as possible. PowerDNS resets the connection when a body is over `webserver-max-bodysize` (2 MiB by default):
# bodies stay under that default, and a server configured lower is detected (the provider then halves).
MAX_PATCH_BYTES = 2 * 1024 * 1024 - 64 * 1024
MAX_PATCH_RRSETS = 20000
# Transient failures (5xx, connection errors, timeouts) are retried this many times inside one call, with
# exponential back-off from RETRY_BASE seconds, before the call ends in a SoftError (the controller then
# retries the zone with its own back-off).
RETRIES = 3
RETRY_BASE = 0.25
# How long the zone list is reused before it is read again.
ZONES_CACHE_SECONDS = 60.0


@dataclass(frozen=True)
class PDNSConfig:
    """Everything the PowerDNS provider needs; defaults as external-dns."""

    server: str = DEFAULT_SERVER
    api_key: str = field(default="", repr=False)
    server_id: str = DEFAULT_SERVER_ID
    skip_tls_verify: bool = False
    tls_ca: str = ""
    tls_client_cert: str = ""
    tls_client_cert_key: str = ""
    domain_filter: DomainFilter = field(default_factory=DomainFilter)
    connect_timeout: float = CONNECT_TIMEOUT
    read_timeout: float = READ_TIMEOUT
    request_deadline: float = REQUEST_DEADLINE
    max_response_bytes: int = MAX_RESPONSE_BYTES
    max_patch_bytes: int = MAX_PATCH_BYTES
    max_patch_rrsets: int = MAX_PATCH_RRSETS
    retries: int = RETRIES
    retry_base: float = RETRY_BASE
    zones_cache_seconds: float = ZONES_CACHE_SECONDS

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not self.api_key:
            # external-dns: "missing API Key for PDNS. Specify using --pdns-api-key="
            raise ConfigError("missing API Key for PDNS. Specify using --pdns-api-key=")
        if any(c < " " or "\x7f" <= c <= "\x9f" or c > "\xff" for c in self.api_key):
            # http.client would refuse the header with an error quoting the whole key; say what is wrong
            # without it. (A trailing line break, as in a Secret made from a file, is trimmed in cmd/.)
            raise ConfigError("--pdns-api-key holds a control character (a line break?) or a character that "
                              "cannot be sent in an HTTP header; check where the key comes from")
        url = urllib.parse.urlsplit(self.server)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"--pdns-server must be an http:// or https:// URL, got {self.shown_server!r}")
        try:
            url.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            raise ConfigError(f"--pdns-server has an invalid port: {self.shown_server!r}") from None
        if not self.server_id or "/" in self.server_id:
            raise ConfigError(f"--pdns-server-id must be a non-empty server id without '/', got {self.server_id!r}")
        if bool(self.tls_client_cert) != bool(self.tls_client_cert_key):
            raise ConfigError("--tls-client-cert and --tls-client-cert-key must be given together")
        if url.scheme == "http" and (self.tls_ca or self.tls_client_cert):
            raise ConfigError("--tls-ca / --tls-client-cert need an https:// --pdns-server")
        if self.max_patch_rrsets < 1 or self.max_patch_bytes < 1024:
            raise ConfigError("PowerDNS request limits must be positive")

    @property
    def shown_server(self) -> str:
        """`server` as messages and reprs show it: a password in the URL masked."""
        return redact_urls(self.server)

    def basic_auth(self) -> str | None:
        """The `Authorization` header for a `user:password@` in the URL (a proxy in front of PowerDNS), as Go's
        HTTP client sends it; None without one."""
        url = urllib.parse.urlsplit(self.server)
        if url.username is None:
            return None
        pair = f"{urllib.parse.unquote(url.username)}:{urllib.parse.unquote(url.password or '')}"
        return "Basic " + base64.b64encode(pair.encode()).decode()

    @property
    def base_path(self) -> str:
        """`<path of --pdns-server>/api/v1/servers/<server id>` (a server behind a proxy may have a path)."""
        url = urllib.parse.urlsplit(self.server)
        sid = urllib.parse.quote(self.server_id, safe="")
        return f"{url.path.rstrip('/')}/api/v1/servers/{sid}"

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for an https server (None for http): TLS >= 1.2, the system CAs or `--tls-ca`,
        the client certificate when given, no verification with `--pdns-skip-tls-verify`."""
        if urllib.parse.urlsplit(self.server).scheme != "https":
            return None
        for flag, path in (("--tls-ca", self.tls_ca), ("--tls-client-cert", self.tls_client_cert),
                           ("--tls-client-cert-key", self.tls_client_cert_key)):
            # A FIFO would block start-up and a link to /dev/zero would be read without end: regular files only.
            if path and not os.path.isfile(path):
                raise ConfigError(f"{flag}: {path} is not a readable file")
        try:
            ctx = ssl.create_default_context(cafile=self.tls_ca or None)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_2
            if self.tls_client_cert:
                ctx.load_cert_chain(self.tls_client_cert, self.tls_client_cert_key)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"--tls-ca / --tls-client-cert / --tls-client-cert-key: cannot load: {exc}") from None
        if self.skip_tls_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx
