"""Google Cloud DNS provider settings, built from the `--google-*` flags in cmd/ (defaults as external-dns).

`api_endpoint` (`--google-api-endpoint`, an addition: external-dns has no such flag) points the client at another
Cloud DNS endpoint (a private service connect address, a test server); empty = the discovery document's
`https://dns.googleapis.com/`. Credentials are google-auth's Application Default Credentials, as in Go:
`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's user credentials, or the metadata server (GKE workload identity).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from external_dns.endpoint.domain_filter import DomainFilter

SCOPE = "https://www.googleapis.com/auth/ndev.clouddns.readwrite"  # dns.NdevClouddnsReadwriteScope
DEFAULT_TTL = 300
VISIBILITIES = ("", "public", "private")


@dataclass(frozen=True)
class GoogleConfig:
    project: str = ""  # --google-project (empty: detected from the credentials / metadata server)
    domain_filter: DomainFilter = field(default_factory=DomainFilter)
    zone_id_filter: tuple[str, ...] = ()  # matched against a managed zone's id or name
    zone_visibility: str = ""  # --google-zone-visibility
    batch_change_size: int = 1000  # --google-batch-change-size
    batch_change_interval: float = 1.0  # --google-batch-change-interval
    api_endpoint: str = ""  # --google-api-endpoint
    page_size: int = 1000  # maxResults of listings
    cache_seconds: float = 0.0  # --provider-cache-time
    zones_cache_seconds: float = 60.0
    request_timeout: float = 30.0
    max_retries: int = 3  # the client's own retries of 429 / 5xx (exponential back-off)
    dry_run: bool = False
