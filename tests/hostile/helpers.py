"""Helpers for the hostile-input suite: DNSEndpoint manifests with arbitrary fields, named-checkzone."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

NAMED_CHECKZONE = shutil.which("named-checkzone") or "/usr/bin/named-checkzone"


def dnsendpoint(name: str, endpoints: Sequence[Mapping[str, Any]]) -> str:
    """A DNSEndpoint manifest as JSON (any field value, quoted exactly)."""
    return json.dumps({"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {"endpoints": list(endpoints)}})


def checkzone(zone: str, path: Path) -> subprocess.CompletedProcess[str]:
    """named-checkzone on a zone file (what BIND would say when loading it)."""
    return subprocess.run([NAMED_CHECKZONE, zone, str(path)], capture_output=True, text=True, timeout=60,
                          check=False)
