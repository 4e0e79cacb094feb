"""Prometheus metrics of the DNSRecord controller (dns-operator's names and labels).

* `dns_provider_write_counter` (gauge; `dns_record_name`, `dns_record_namespace`): `status.writeCounter`;
* `dns_provider_record_ready` (gauge 0/1; `dns_record_name`, `dns_record_namespace`, `dns_record_root_host`,
  `dns_record_is_delegating`): the Ready condition.

Both series of a record are removed when the record is gone (`forget`).
"""

from __future__ import annotations

import contextlib
import threading

from prometheus_client import Gauge

WRITE_COUNTER = Gauge("dns_provider_write_counter",
                      "Counts DNS provider write operations for a current generation of the DNS record",
                      ["dns_record_name", "dns_record_namespace"])
RECORD_READY = Gauge("dns_provider_record_ready", "Reports the ready state of the dns record (1 ready, 0 not)",
                     ["dns_record_name", "dns_record_namespace", "dns_record_root_host", "dns_record_is_delegating"])

_lock = threading.Lock()
_ready_labels: dict[tuple[str, str], tuple[str, str, str, str]] = {}


def set_write_counter(namespace: str, name: str, value: int) -> None:
    WRITE_COUNTER.labels(dns_record_name=name, dns_record_namespace=namespace).set(value)


def set_ready(namespace: str, name: str, root_host: str, ready: bool) -> None:
    labels = (name, namespace, root_host, "false")
    with _lock:
        old = _ready_labels.get((namespace, name))
        if old is not None and old != labels:
            RECORD_READY.remove(*old)
        _ready_labels[(namespace, name)] = labels
    RECORD_READY.labels(*labels).set(1 if ready else 0)


def forget(namespace: str, name: str) -> None:
    """Remove every series of the record (it was deleted)."""
    with contextlib.suppress(KeyError):
        WRITE_COUNTER.remove(name, namespace)
    with _lock:
        old = _ready_labels.pop((namespace, name), None)
    if old is not None:
        with contextlib.suppress(KeyError):
            RECORD_READY.remove(*old)
