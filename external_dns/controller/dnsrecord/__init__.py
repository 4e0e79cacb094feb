"""The kuadrant DNSRecord per-record lifecycle controller (`--source=dnsrecord`, issue 10).

Modules: `types` (resource names, condition reasons/messages, validation), `clock` (injectable wall time,
durations, the randomised validation requeue), `registry` (dns-operator's TXT names on the TXT registry),
`status` (status subresource writes with optimistic concurrency, finalizer patches), `metrics`
(`dns_provider_write_counter`, `dns_provider_record_ready`), `reconcile` (one pass of one record) and
`controller` (informer -> workqueue keyed `namespace/name` -> workers; process hook and source builder).
"""

from external_dns.controller.dnsrecord.controller import (
    DNSRecordController,
    build_dnsrecord_controller,
    install,
)
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler, Result
from external_dns.controller.dnsrecord.status import RecordAPI, StatusWriter
from external_dns.controller.dnsrecord.types import FINALIZER, DNSRecordSpec, ValidationError, validate

__all__ = ["FINALIZER", "DNSRecordController", "DNSRecordSpec", "Options", "Reconciler", "RecordAPI", "Result",
           "StatusWriter", "ValidationError", "build_dnsrecord_controller", "install", "validate"]
