"""Ownership labels and their TXT serialisation (external-dns `endpoint/labels.go`).

Plain form: `heritage=external-dns,external-dns/<key>=<value>,...` with keys sorted, optionally wrapped in
double quotes. Encrypted form (an AES key given): the plain form without quotes, encrypted by
`endpoint.crypto`; the nonce lives in the labels under `txt-encryption-nonce` (never serialised itself), so
serialising the same label map again reproduces the same value.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

import structlog

from external_dns.endpoint.endpoint import (
    AWS_SD_DESCRIPTION_LABEL,
    OWNED_RECORD_LABEL_KEY,
    OWNER_LABEL_KEY,
    RESOURCE_LABEL_KEY,
    TXT_ENCRYPTION_NONCE,
)

__all__ = [
    "AWS_SD_DESCRIPTION_LABEL",
    "HERITAGE",
    "LABEL_PREFIX",
    "OWNED_RECORD_LABEL_KEY",
    "OWNER_LABEL_KEY",
    "RESOURCE_LABEL_KEY",
    "TXT_ENCRYPTION_NONCE",
    "InvalidHeritageError",
    "parse_labels",
    "parse_labels_plain",
    "serialize_labels",
    "serialize_labels_plain",
]

log = structlog.get_logger(__name__)

HERITAGE = "external-dns"
LABEL_PREFIX = "external-dns/"
_HERITAGE_KEY = "heritage"


class InvalidHeritageError(ValueError):
    """The text carries no `heritage=external-dns` token (or a foreign heritage): not an ownership record."""

    def __init__(self, detail: str = "heritage is unknown or not found") -> None:
        super().__init__(detail)


def serialize_labels_plain(labels: Mapping[str, str], with_quotes: bool = True) -> str:
    """`heritage=external-dns` then `external-dns/<key>=<value>` for each key in sorted order (the nonce key
    excluded), joined by `,`; wrapped in double quotes when `with_quotes`."""
    tokens = [f"{_HERITAGE_KEY}={HERITAGE}"]
    tokens.extend(
        f"{LABEL_PREFIX}{key}={labels[key]}" for key in sorted(labels) if key != TXT_ENCRYPTION_NONCE
    )
    text = ",".join(tokens)
    return f'"{text}"' if with_quotes else text


def serialize_labels(
    labels: MutableMapping[str, str], with_quotes: bool = True, aes_key: bytes | None = None
) -> str:
    """The TXT value for `labels`. With `aes_key` (32 bytes) the value is encrypted with the nonce stored in
    `labels[txt-encryption-nonce]`; a missing or unusable nonce is replaced by a fresh one that is stored back
    into `labels`, so later serialisations of the same map give the same value."""
    if not aes_key:
        return serialize_labels_plain(labels, with_quotes)
    from external_dns.endpoint import crypto  # cryptography (~4 ms to import) only with --txt-encrypt-*

    plain = serialize_labels_plain(labels, with_quotes=False)
    nonce = labels.get(TXT_ENCRYPTION_NONCE, "")
    try:
        if not nonce:
            raise crypto.CryptoError("no stored nonce")
        crypto.decode_nonce(nonce)
    except crypto.CryptoError:
        nonce = crypto.generate_nonce()
        labels[TXT_ENCRYPTION_NONCE] = nonce
    text = crypto.encrypt_text(plain, aes_key, nonce)
    return f'"{text}"' if with_quotes else text


def parse_labels_plain(text: str) -> dict[str, str]:
    """Parse a plain label text. Raises InvalidHeritageError when the first `heritage` token is not
    `external-dns` or when there is none. Tokens without `=` and keys outside `external-dns/` are ignored;
    values may contain `=`."""
    labels: dict[str, str] = {}
    found = False
    for token in text.strip('"').split(","):
        key, sep, value = token.partition("=")
        if not sep:
            continue
        if key == _HERITAGE_KEY:
            if value != HERITAGE:
                raise InvalidHeritageError()
            found = True
            continue
        if key.startswith(HERITAGE):
            labels[key.removeprefix(LABEL_PREFIX)] = value
    if not found:
        raise InvalidHeritageError()
    return labels


def parse_labels(text: str, aes_key: bytes | None = None) -> dict[str, str]:
    """Parse a TXT value into labels. With `aes_key` an encrypted value is decrypted first and its nonce kept
    under `txt-encryption-nonce`; a value that does not decrypt is parsed as plain text (registries with mixed
    plain and encrypted records keep working). Raises InvalidHeritageError for non-ownership text."""
    if aes_key:
        from external_dns.endpoint import crypto

        try:
            plain, nonce = crypto.decrypt_text(text.strip('"'), aes_key)
        except crypto.CryptoError as exc:
            log.debug("TXT value does not decrypt, parsing it as plain text", reason=str(exc))
        else:
            labels = parse_labels_plain(plain)
            labels[TXT_ENCRYPTION_NONCE] = nonce
            return labels
    return parse_labels_plain(text)
