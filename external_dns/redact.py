"""Redaction of secrets inside free text: passwords in URLs (`http://user:pass@host` -> `http://user:******@host`).
Imports nothing from the package, so any layer may use it before logging or raising a message."""

from __future__ import annotations

import re

MASK = "******"
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/@:\s]*):(?P<password>[^/@\s]*)@")


def redact_urls(text: str) -> str:
    """`text` with the password of every `scheme://user:password@` replaced by `******`."""
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:{MASK}@", text)
