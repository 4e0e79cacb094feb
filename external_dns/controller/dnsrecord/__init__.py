"""The kuadrant DNSRecord per-record lifecycle controller (`--source=dnsrecord`).

Modules: `types` (resource names, condition reasons/messages, validation), `clock` (injectable wall time,
durations, the randomised validation requeue), `registry` (dns-operator's TXT names on the TXT registry),
`status` (status subresource writes with optimistic concurrency, finalizer patches), `metrics`
(`dns_provider_write_counter`, `dns_provider_record_ready`), `reconcile` (the lifecycle: a record's pass
begins and ends there, as status writes), `batch` (the provider pass of a batch of records, zone by zone,
through the pipeline's plan, check and write steps) and `controller` (informer -> workqueue keyed
`namespace/name` -> the shared worker loop; `install`, the process feature).
"""

from __future__ import annotations

import importlib
from typing import Any

# Exported names -> the module holding them, imported on first use: the flag definitions read
# `dnsrecord.defaults`, and only a process running the DNSRecord controller should pay for the Kubernetes
# client these modules import.
_EXPORTS = {
    "DNSRecordController": "controller", "build_dnsrecord_controller": "controller", "install": "controller",
    "Options": "reconcile", "Reconciler": "reconcile", "Result": "reconcile",
    "RecordAPI": "status", "StatusWriter": "status",
    "FINALIZER": "types", "DNSRecordSpec": "types", "ValidationError": "types", "validate": "types",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
