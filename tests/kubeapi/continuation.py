"""List continue tokens in the API server's format: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":key}."""

from __future__ import annotations

import base64
import binascii
import json

from tests.kubeapi import errors as E
from tests.kubeapi.objects import DUMPS


def encode_continue(rv: int, start: str) -> str:
    raw = DUMPS({"v": "meta.k8s.io/v1", "rv": rv, "start": start}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    """(rv, start key) of a continue token; 400 BadRequest when it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        if data.get("v") != "meta.k8s.io/v1":
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion (version "
                             "meta.k8s.io/v1)")
        rv, start = int(data["rv"]), str(data["start"])
        if rv <= 0:
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion")
        return rv, start
    except (binascii.Error, ValueError, KeyError, TypeError, AttributeError) as exc:
        msg = str(exc) if str(exc).startswith("continue key") else f"continue key is not valid: {exc}"
        raise E.bad_request(msg) from None
