"""RFC2136 provider settings: the `--rfc2136-*` flags turned into a checked, typed configuration.

Owns the TSIG algorithm table and every start-up error of the provider (each names the flag at fault). The
TSIG secret is kept out of `repr()` so it never reaches a log line or an error message.
"""

from __future__ import annotations

import base64
import binascii
import os
import ssl
from dataclasses import dataclass, field

import dns.name
import dns.tsig

from external_dns.endpoint.limits import ascii_name_problem
from external_dns.errors import ConfigError
from external_dns.providers.provider import ProviderError

# external-dns accepts exactly these algorithm names.
TSIG_ALGORITHMS: dict[str, dns.name.Name] = {
    "hmac-sha1": dns.tsig.HMAC_SHA1,
    "hmac-sha224": dns.tsig.HMAC_SHA224,
    "hmac-sha256": dns.tsig.HMAC_SHA256,
    "hmac-sha384": dns.tsig.HMAC_SHA384,
    "hmac-sha512": dns.tsig.HMAC_SHA512,
}
LOAD_BALANCING_STRATEGIES = ("disabled", "round-robin", "random")
DEFAULT_TIMEOUT = 10.0  # seconds for one DNS exchange (connect, send, receive)
# A zone transfer (AXFR or IXFR) as a whole: a server that keeps streaming must not grow the process without
# bound. A million records (a signed zone counts its RRSIG and NSEC records too) and five minutes are far
# above what a zone managed by one controller holds and takes; both are flags.
DEFAULT_AXFR_TIMEOUT = 300.0
DEFAULT_AXFR_MAX_RECORDS = 1_000_000


class RFC2136ConfigError(ProviderError, ConfigError):
    """An invalid `--rfc2136-*` setting; the message names the flag (a ConfigError: the CLI exits 2)."""


@dataclass(frozen=True)
class RFC2136Config:
    hosts: tuple[str, ...]
    port: int
    zones: tuple[str, ...] = ()
    insecure: bool = False
    tsig_keyname: str = ""
    tsig_secret: str = field(default="", repr=False)
    tsig_secret_alg: str = "hmac-sha256"
    axfr: bool = False
    min_ttl: int = 0
    batch_change_size: int = 50
    use_tls: bool = False
    skip_tls_verify: bool = False
    # --tls-ca / --tls-client-cert / --tls-client-cert-key (upstream's generic TLS client options): a CA bundle
    # to verify the server with, and a client certificate for mutual TLS. Used with use_tls only.
    tls_ca: str = ""
    tls_client_cert: str = ""
    tls_client_cert_key: str = ""
    load_balancing_strategy: str = "disabled"
    timeout: float = DEFAULT_TIMEOUT
    axfr_timeout: float = DEFAULT_AXFR_TIMEOUT  # seconds for a whole zone transfer
    axfr_max_records: int = DEFAULT_AXFR_MAX_RECORDS  # records of one zone transfer, every type counted
    # Message-size budget for one UPDATE (a DNS message over TCP is at most 65535 bytes).
    max_message_bytes: int = 60000

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        hosts = [h for h in self.hosts if h]
        if not hosts:
            raise RFC2136ConfigError("--rfc2136-host must name at least one DNS server")
        if not 0 < self.port < 65536:
            raise RFC2136ConfigError(f"--rfc2136-port must be set to the server's port (1-65535), got {self.port}")
        if self.min_ttl < 0:
            raise RFC2136ConfigError(f"--rfc2136-min-ttl must not be negative, got {self.min_ttl}s")
        if self.batch_change_size < 1:
            raise RFC2136ConfigError(
                f"--rfc2136-batch-change-size must be at least 1, got {self.batch_change_size}")
        if not self.axfr_timeout > 0:
            raise RFC2136ConfigError(f"--rfc2136-axfr-timeout must be positive, got {self.axfr_timeout}s")
        if self.axfr_max_records < 1:
            raise RFC2136ConfigError(f"--rfc2136-axfr-max-records must be at least 1, got {self.axfr_max_records}")
        if self.load_balancing_strategy not in LOAD_BALANCING_STRATEGIES:
            raise RFC2136ConfigError(
                f"--rfc2136-load-balancing-strategy: unknown strategy {self.load_balancing_strategy!r} "
                f"(one of: {', '.join(LOAD_BALANCING_STRATEGIES)})")
        for zone in self.zones:
            try:
                dns.name.from_text(zone)
            except Exception as exc:
                raise RFC2136ConfigError(f"--rfc2136-zone: invalid zone name {zone!r}: {exc}") from None
            problem = ascii_name_problem(zone.strip(), "zone name", allow_root=True)
            if problem is not None:
                raise RFC2136ConfigError(f"--rfc2136-zone: invalid {problem}")
        self._validate_tls_files()
        if self.insecure:
            return
        if self.tsig_secret_alg not in TSIG_ALGORITHMS:
            raise RFC2136ConfigError(f"{self.tsig_secret_alg} is not supported TSIG algorithm "
                                     f"(--rfc2136-tsig-secret-alg: one of {', '.join(TSIG_ALGORITHMS)})")
        if not self.tsig_keyname:
            raise RFC2136ConfigError("--rfc2136-tsig-keyname is required unless --rfc2136-insecure is set")
        if not self.tsig_secret:
            raise RFC2136ConfigError("--rfc2136-tsig-secret is required unless --rfc2136-insecure is set")
        try:
            base64.b64decode(self.tsig_secret, validate=True)
        except (binascii.Error, ValueError):
            # Never echo the secret itself.
            raise RFC2136ConfigError("--rfc2136-tsig-secret is not valid base64") from None

    def _validate_tls_files(self) -> None:
        if self.tls_client_cert_key and not self.tls_client_cert:
            raise RFC2136ConfigError("--tls-client-cert-key needs --tls-client-cert")
        if not self.use_tls:
            return
        for flag, path in (("--tls-ca", self.tls_ca), ("--tls-client-cert", self.tls_client_cert),
                           ("--tls-client-cert-key", self.tls_client_cert_key)):
            if path and not os.path.isfile(path):
                raise RFC2136ConfigError(f"{flag}: {path} is not a readable file")
        try:  # a bad certificate or key is a start-up error, not a failed sync
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            if self.tls_ca:
                ctx.load_verify_locations(cafile=self.tls_ca)
            if self.tls_client_cert:
                ctx.load_cert_chain(self.tls_client_cert, self.tls_client_cert_key or None)
        except (ssl.SSLError, OSError) as exc:
            raise RFC2136ConfigError(f"--tls-ca/--tls-client-cert/--tls-client-cert-key: cannot load: {exc}") from None

    @property
    def active_hosts(self) -> tuple[str, ...]:
        return tuple(h for h in self.hosts if h)

    @property
    def zone_names(self) -> tuple[str, ...]:
        """Configured zones without trailing dots, lower-cased; the root zone "." when none is given."""
        zones = tuple(dict.fromkeys(z.strip().rstrip(".").lower() for z in self.zones if z.strip()))
        return zones or (".",)
