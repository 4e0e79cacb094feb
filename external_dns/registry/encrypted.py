"""Ownership TXT values this registry cannot read because they are encrypted with another key (a changed
`--txt-encrypt-aes-key`, or none given): they are still ownership records, of an owner we cannot name, so
their records are left alone and never taken over (issue 27, item 18), and the TXT names are not free."""

from __future__ import annotations

import base64
import binascii

from external_dns.endpoint.endpoint import OWNER_LABEL_KEY

# The owner of a record whose ownership TXT is encrypted with another key (or while no key is set): not ours,
# and no owner id can be it (a comma cannot be in one). Its record is left alone, never taken over.
UNDECRYPTABLE_OWNER = "(undecryptable, another --txt-encrypt-aes-key?)"
UNDECRYPTABLE_LABELS: dict[str, str] = {OWNER_LABEL_KEY: UNDECRYPTABLE_OWNER}  # shared: never changed
_MIN_ENCRYPTED = 12 + 16 + 25  # nonce, GCM tag, the smallest gzip member (endpoint/crypto.py)


def looks_encrypted(text: str) -> bool:
    """Whether a TXT value has the form of an encrypted ownership value: standard base64 (optionally quoted) of
    at least a nonce, a tag and a gzip member."""
    raw = text.strip('"')
    if len(raw) < 4 * ((_MIN_ENCRYPTED + 2) // 3) or len(raw) % 4:
        return False
    try:
        return len(base64.b64decode(raw, validate=True)) >= _MIN_ENCRYPTED
    except (binascii.Error, ValueError):
        return False
