"""Node objects as the API server returns them (raw dicts) and the records an object yields, for the Node and Pod
source tests."""

from __future__ import annotations

from typing import Any


def node(name: str = "n1", addresses: list[tuple[str, str]] | None = None, unschedulable: bool = False,
         annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    addrs = addresses if addresses is not None else [("ExternalIP", "203.0.113.1"), ("InternalIP", "10.0.0.1")]
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {"unschedulable": unschedulable},
            "status": {"addresses": [{"type": t, "address": a} for t, a in addrs] + [
                {"type": "Hostname", "address": name}]}}


def records(out: Any) -> dict[str, list[str]]:
    return {f"{ep.dns_name} {ep.record_type}": sorted(ep.targets) for ep in out.endpoints}
