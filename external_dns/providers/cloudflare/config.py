"""Cloudflare provider settings (built from the `--cloudflare-*` flags in cmd/) and credentials as external-dns
reads them: `CF_API_TOKEN` (a token, or `file:<path>` to read it from a file), else `CF_API_KEY` with
`CF_API_EMAIL`; the SDK's own `CLOUDFLARE_API_TOKEN` / `CLOUDFLARE_API_KEY` + `CLOUDFLARE_EMAIL` when those are
unset. The API endpoint is the SDK's: `CLOUDFLARE_BASE_URL` (default https://api.cloudflare.com/client/v4).
Secrets are kept out of `repr()`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.errors import ConfigError

DEFAULT_PER_PAGE = 100  # --cloudflare-dns-records-per-page (external-dns)
MAX_PER_PAGE = 5000  # --cloudflare-dns-records-per-page: "max possible 5,000" (external-dns)
MIN_BATCH = 200  # external-dns sends max(--batch-change-size, 200) operations per batch request
DEFAULT_ANNOTATION_PREFIX = "external-dns.kubernetes.io/"
REQUEST_TIMEOUT = 30.0
MAX_RETRIES = 3  # the SDK's own retries of 408/409/429/5xx, honouring Retry-After


@dataclass(frozen=True)
class Credentials:
    api_token: str = field(default="", repr=False)
    api_key: str = field(default="", repr=False)
    api_email: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Credentials:
        env = os.environ if env is None else env
        token = env.get("CF_API_TOKEN", "")
        if token:
            if token.startswith("file:"):
                path = token[len("file:"):]
                try:
                    with open(path, encoding="utf-8") as fh:
                        token = fh.read(64 * 1024)
                except OSError as exc:
                    raise ConfigError(f"failed to read CF_API_TOKEN from file: {exc}") from None
            return cls(api_token=token.strip())
        key, email = env.get("CF_API_KEY", ""), env.get("CF_API_EMAIL", "")
        if key and email:
            return cls(api_key=key.strip(), api_email=email.strip())
        token = env.get("CLOUDFLARE_API_TOKEN", "")
        if token:
            return cls(api_token=token.strip())
        key, email = env.get("CLOUDFLARE_API_KEY", ""), env.get("CLOUDFLARE_EMAIL", "")
        if key and email:
            return cls(api_key=key.strip(), api_email=email.strip())
        raise ConfigError("cloudflare credentials are not configured: set either CF_API_TOKEN or both CF_API_KEY "
                          "and CF_API_EMAIL environment variables")


@dataclass(frozen=True)
class CloudflareConfig:
    """Everything the Cloudflare provider needs; defaults as external-dns."""

    credentials: Credentials = field(default_factory=Credentials)
    domain_filter: DomainFilter = field(default_factory=DomainFilter)
    zone_id_filter: tuple[str, ...] = ()
    proxied_by_default: bool = False  # --cloudflare-proxied
    per_page: int = DEFAULT_PER_PAGE  # --cloudflare-dns-records-per-page
    comment: str = ""  # --cloudflare-record-comment
    regional_services: bool = False  # --cloudflare-regional-services
    region_key: str = ""  # --cloudflare-region-key (enables regional services when set)
    batch_change_size: int = MIN_BATCH  # --batch-change-size
    batch_change_interval: float = 0.0  # --batch-change-interval, between batch requests of one zone
    annotation_prefix: str = DEFAULT_ANNOTATION_PREFIX
    cache_seconds: float = 0.0  # --provider-cache-time
    zones_cache_seconds: float = 60.0
    request_timeout: float = REQUEST_TIMEOUT
    max_retries: int = MAX_RETRIES
    dry_run: bool = False

    @property
    def proxied_key(self) -> str:
        return self.annotation_prefix + "cloudflare-proxied"

    @property
    def comment_key(self) -> str:
        return self.annotation_prefix + "cloudflare-record-comment"

    @property
    def tags_key(self) -> str:
        return self.annotation_prefix + "cloudflare-tags"

    @property
    def region_key_prop(self) -> str:
        return self.annotation_prefix + "cloudflare-region-key"

    @property
    def regional(self) -> bool:
        return self.regional_services or bool(self.region_key)

    @property
    def prefix_key(self) -> str:
        return self.annotation_prefix + "cloudflare-"
