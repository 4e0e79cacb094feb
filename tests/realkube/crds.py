"""CustomResourceDefinitions on the real server: `apply_crds` creates (or server-side applies) them and waits
until each is Established and its resources are served, as `kubectl wait --for condition=established` does."""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.realkube.control_plane import ControlPlane, ControlPlaneError

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
ESTABLISH_TIMEOUT = 30.0


def apply_crds(plane: ControlPlane, crds: list[dict[str, Any]]) -> None:
    for crd in crds:
        plane.apply(crd)
    deadline = time.monotonic() + ESTABLISH_TIMEOUT
    pause = threading.Event()  # never set: a bounded pause between polls of the server's condition
    pending = [c["metadata"]["name"] for c in crds]
    while pending:
        pending = [name for name in pending if not _established(plane, name)]
        if pending and time.monotonic() > deadline:
            raise ControlPlaneError(f"CRDs not established after {ESTABLISH_TIMEOUT:.0f} s: {pending}")
        if pending:
            pause.wait(0.05)
    for crd in crds:  # Established can precede the handler serving the new group: wait for a list to answer
        spec = crd["spec"]
        for version in (v["name"] for v in spec["versions"] if v.get("served")):
            path = f"/apis/{spec['group']}/{version}/{spec['names']['plural']}?limit=1"
            while plane.request("GET", path).status != 200:
                if time.monotonic() > deadline:
                    raise ControlPlaneError(f"{path} not served after {ESTABLISH_TIMEOUT:.0f} s")
                pause.wait(0.05)


def _established(plane: ControlPlane, name: str) -> bool:
    r = plane.request("GET", f"{CRD_PATH}/{name}")
    if r.status != 200:
        return False
    conditions = r.json.get("status", {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)
