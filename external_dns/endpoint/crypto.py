"""AES-256-GCM encryption of ownership TXT values, byte-compatible with external-dns `endpoint/crypto.go`.

Layout of an encrypted value: base64-std(nonce(12) || AES-256-GCM(gzip(plaintext)) || tag(16)), no AAD.
The compressed bytes are exactly those of Go's `gzip.NewWriterLevel(BestCompression)` + `Flush()` +
`Close()` (goflate.py, proven against Go): external-dns deletes a value by rebuilding it from the decrypted
labels and the stored nonce, so a value Go could not rebuild byte for byte would be left behind. Decryption
takes any valid gzip. The nonce is passed in base64 so a stored nonce can be reused to reproduce a value.
"""

from __future__ import annotations

import base64
import binascii
import os
import zlib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from external_dns.endpoint import goflate

NONCE_SIZE = 12
KEY_SIZE = 32


class CryptoError(ValueError):
    """A value that cannot be encrypted or decrypted (bad key, nonce or ciphertext)."""


def generate_nonce() -> str:
    """A fresh random 12-byte nonce, base64-std encoded (16 characters)."""
    return base64.b64encode(os.urandom(NONCE_SIZE)).decode("ascii")


def gzip_go(data: bytes) -> bytes:
    """Gzip `data` exactly as Go's gzip writer at BestCompression with Flush() then Close()."""
    return goflate.gzip(data)


def gunzip(data: bytes) -> bytes:
    """Decompress one gzip member. CryptoError when it is not valid gzip."""
    try:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = d.decompress(data) + d.flush()
    except zlib.error as exc:
        raise CryptoError(f"failed to decompress data: {exc}") from None
    if not d.eof:
        raise CryptoError("failed to decompress data: truncated gzip stream")
    return out


def _check_key(aes_key: bytes) -> AESGCM:
    if len(aes_key) != KEY_SIZE:
        raise CryptoError(f"the AES Encryption key must be {KEY_SIZE} bytes long, got {len(aes_key)}")
    return AESGCM(aes_key)


def decode_nonce(nonce_encoded: str) -> bytes:
    """The raw nonce from its base64 form. CryptoError when it is not base64 of 12 bytes."""
    try:
        nonce = base64.b64decode(nonce_encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CryptoError(f"invalid encryption nonce {nonce_encoded!r}: {exc}") from None
    if len(nonce) != NONCE_SIZE:
        raise CryptoError(f"invalid encryption nonce {nonce_encoded!r}: must be {NONCE_SIZE} bytes")
    return nonce


def encrypt_text(text: str, aes_key: bytes, nonce_encoded: str) -> str:
    """Encrypt `text` with `aes_key` (32 bytes) and the base64 nonce; returns base64-std(nonce||ct||tag)."""
    aead = _check_key(aes_key)
    nonce = decode_nonce(nonce_encoded)
    sealed = aead.encrypt(nonce, gzip_go(text.encode("utf-8")), None)
    return base64.b64encode(nonce + sealed).decode("ascii")


def decrypt_text(text: str, aes_key: bytes) -> tuple[str, str]:
    """Decrypt a value made by `encrypt_text` (or Go external-dns). Returns (plaintext, base64 nonce).
    CryptoError when the value is not base64, too short, fails authentication or is not gzip."""
    aead = _check_key(aes_key)
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CryptoError(f"failed to decode base64 encrypted text: {exc}") from None
    if len(raw) <= NONCE_SIZE:
        raise CryptoError("the encoded data from text is shorter than the nonce size")
    nonce, sealed = raw[:NONCE_SIZE], raw[NONCE_SIZE:]
    try:
        plain_gz = aead.decrypt(nonce, sealed, None)
    except InvalidTag:
        raise CryptoError("failed to decrypt text: authentication failed") from None
    try:
        plaintext = gunzip(plain_gz).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CryptoError(f"decrypted text is not UTF-8: {exc}") from None
    return plaintext, base64.b64encode(nonce).decode("ascii")


def parse_aes_key(key: str | bytes) -> bytes | None:
    """Key material as external-dns accepts it: empty -> None; exactly 32 bytes -> used raw; otherwise
    standard base64 that decodes to exactly 32 bytes. ValueError with the external-dns message otherwise."""
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if not raw:
        return None
    if len(raw) == KEY_SIZE:
        return raw
    try:
        decoded = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != KEY_SIZE:
        raise ValueError(
            "the AES Encryption key must be 32 bytes long, in either plain text or base64-encoded format"
        )
    return decoded
