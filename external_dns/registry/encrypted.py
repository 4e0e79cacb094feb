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
_MIN_DISTINCT = 24  # 53 random bytes hold ~48 distinct values; fewer than 24 happens with odds below 1e-15


def looks_encrypted(text: str) -> bool:
    """Whether a TXT value has the form of an encrypted ownership value: standard base64 (optionally quoted) of
    at least a nonce, a tag and a gzip member, of random-looking bytes."""
    raw = text.strip('"')
    if len(raw) < 4 * ((_MIN_ENCRYPTED + 2) // 3) or len(raw) % 4:
        return False
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return False
    # a nonce, ciphertext and tag are random: a value of few distinct bytes ('tttt...', 'AAAA...') is text
    return len(data) >= _MIN_ENCRYPTED and len(set(data)) >= _MIN_DISTINCT
