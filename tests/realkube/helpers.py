"""Helpers for the real-server tests: object builders in a namespace, waiting on server state, and reading
what the server saw from its audit log."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.realkube.control_plane import ControlPlane

HOSTNAME = "external-dns.kubernetes.io/hostname"


def service(name: str, ns: str, *, svc_type: str = "ClusterIP", labels: dict[str, str] | None = None,
            annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta,
            "spec": {"type": svc_type, "ports": [{"name": "http", "port": 80, "protocol": "TCP"}], **spec}}


def server_state(plane: ControlPlane, ns: str, collection: str = "services", api: str = "/api/v1") -> dict[str, str]:
    """namespace/name -> resourceVersion of every object in the collection, read from the server."""
    body = plane.request("GET", f"{api}/namespaces/{ns}/{collection}").json
    return {f"{ns}/{o['metadata']['name']}": o["metadata"]["resourceVersion"] for o in body["items"]}


# The user agent of the project's clients (controller/kube.py: the informers' and the CLI's); the tests' own
# raw requests come as Python-urllib.
CLIENT_AGENT = "external-dns-py/"


def requests_seen(plane: ControlPlane, since: int, path: str, *, watch: bool | None = None,
                  user: str | None = None, agent: str = CLIENT_AGENT) -> list[dict[str, list[str]]]:
    """The query parameters of every request the server logged for `path` after audit mark `since` from a
    client whose user agent starts with `agent` (watch=True: watches only, False: lists and reads only)."""
    out = []
    for ev in plane.audit(since):
        uri = urlsplit(ev["requestURI"])
        if uri.path != path or (user is not None and ev["user"]["username"] != user):
            continue
        if not ev.get("userAgent", "").startswith(agent):
            continue
        if watch is not None and (ev["verb"] == "watch") != watch:
            continue
        if ev["stage"] != ("ResponseStarted" if ev["verb"] == "watch" else "ResponseComplete"):
            continue  # a watch logs when it starts and ends; count it once
        out.append(parse_qs(uri.query))
    return out
