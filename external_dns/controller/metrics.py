"""The controller's Prometheus metrics, registered once in the default registry.

Full names are `external_dns_<subsystem>_<name>` as external-dns; counters are exposed with their `_total`
suffix. Per-record-type gauges are cleared every cycle and carry a lower-cased `record_type` label
(`a`, `aaaa`, `cname`, ...); every known type is reported (0 when absent) so dashboards see stable series.
`external_dns_build_info` is 1 with external-dns's labels (`version`, `revision`, `go_version`, `os`, `arch`);
there is no Go here, so `go_version` carries the Python version (`python3.11.2`) and `arch` uses Go's names.
"""

from __future__ import annotations

import platform
import sys
from collections import Counter as _Tally
from collections.abc import Iterable

from prometheus_client import Counter, Gauge

from external_dns import __version__
from external_dns.endpoint.endpoint import KNOWN_RECORD_TYPES, Endpoint
from external_dns.endpoint.zones import name_key

NAMESPACE = "external_dns"

LAST_SYNC_TIMESTAMP = Gauge(
    "last_sync_timestamp_seconds", "Timestamp of the last successful sync with the DNS provider",
    namespace=NAMESPACE, subsystem="controller")
LAST_RECONCILE_TIMESTAMP = Gauge(
    "last_reconcile_timestamp_seconds", "Timestamp of the last attempted sync with the DNS provider",
    namespace=NAMESPACE, subsystem="controller")
NO_OP_RUNS = Counter(
    "no_op_runs_total", "Number of reconcile loops ending up with no changes on the DNS provider side",
    namespace=NAMESPACE, subsystem="controller")
VERIFIED_RECORDS = Gauge(
    "verified_records", "Number of DNS records that exist both in source and registry",
    ["record_type"], namespace=NAMESPACE, subsystem="controller")
CONSECUTIVE_SOFT_ERRORS = Gauge(
    "consecutive_soft_errors", "Number of consecutive soft errors in the reconciliation loop",
    namespace=NAMESPACE, subsystem="controller")
REGISTRY_ERRORS = Counter(
    "errors_total", "Number of Registry errors", namespace=NAMESPACE, subsystem="registry")
REGISTRY_ENDPOINTS = Gauge(
    "endpoints_total", "Number of Endpoints in the registry", namespace=NAMESPACE, subsystem="registry")
REGISTRY_RECORDS = Gauge(
    "records", "Number of registry records by record type", ["record_type"],
    namespace=NAMESPACE, subsystem="registry")
SOURCE_ERRORS = Counter(
    "errors_total", "Number of Source errors", namespace=NAMESPACE, subsystem="source")
SOURCE_ENDPOINTS = Gauge(
    "endpoints_total", "Number of Endpoints in all sources", namespace=NAMESPACE, subsystem="source")
SOURCE_RECORDS = Gauge(
    "records", "Number of source records by record type", ["record_type"],
    namespace=NAMESPACE, subsystem="source")

BUILD_INFO = Gauge(
    "build_info", "A metric with a constant '1' value labeled with the version of external-dns-py",
    ["version", "revision", "go_version", "os", "arch"], namespace=NAMESPACE)

_GO_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
            "i686": "386", "armv7l": "arm", "ppc64le": "ppc64le", "s390x": "s390x"}


def build_info_labels() -> dict[str, str]:
    """The `external_dns_build_info` labels of this process."""
    machine = platform.machine().lower()
    return {"version": __version__, "revision": "unknown", "go_version": f"python{platform.python_version()}",
            "os": sys.platform.rstrip("0123456789") or sys.platform, "arch": _GO_ARCH.get(machine, machine)}


BUILD_INFO.labels(**build_info_labels()).set(1)


def count_by_type(endpoints: Iterable[Endpoint]) -> dict[str, int]:
    """Endpoints per record type (every known type present, 0 when absent)."""
    tally = _Tally(ep.record_type for ep in endpoints)
    out = dict.fromkeys(KNOWN_RECORD_TYPES, 0)
    out.update(tally)
    return out


def set_per_type(gauge: Gauge, counts: dict[str, int]) -> None:
    """Reset a `record_type` gauge vector and fill it (label values lower-cased)."""
    gauge.clear()
    for record_type, n in counts.items():
        gauge.labels(record_type=record_type.lower()).set(n)


def verified_by_type(desired: Iterable[Endpoint], current: Iterable[Endpoint]) -> dict[str, int]:
    """Source endpoints whose (name, type) also exists in the registry, per type."""
    have = {(name_key(ep.dns_name), ep.record_type) for ep in current}
    tally = _Tally(ep.record_type for ep in desired if (name_key(ep.dns_name), ep.record_type) in have)
    out = dict.fromkeys(KNOWN_RECORD_TYPES, 0)
    out.update(tally)
    return out
