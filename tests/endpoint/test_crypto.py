"""AES-256-GCM encryption of TXT values: Go-compatible layout, the verified Go vector, error cases."""

from __future__ import annotations

import base64
import gzip
import struct
import zlib

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from external_dns.endpoint import crypto

KEY = b"12345678901234567890123456789012"
GO_NONCE = "h8UQ6jelUFUsEIn7"
GO_VALUE = (
    "h8UQ6jelUFUsEIn7SbFktc2MYXPx/q8lySqI4VwfVtVaIbb2nkHWV/88KKbuLtu7fJNzMir8ELVeVnRSY01KdiIuj7ledqZe5ailEjQaU5Z6"
    "uEKd5pgs6sH8"
)
PLAIN = "heritage=external-dns,external-dns/owner=owner"


def test_encrypt_matches_go_vector() -> None:
    assert crypto.encrypt_text(PLAIN, KEY, GO_NONCE) == GO_VALUE


def test_decrypt_go_vector_returns_plaintext_and_nonce() -> None:
    assert crypto.decrypt_text(GO_VALUE, KEY) == (PLAIN, GO_NONCE)


def test_layout_is_nonce_ciphertext_tag_over_go_gzip_framing() -> None:
    nonce = bytes(range(12))
    nonce_b64 = base64.b64encode(nonce).decode()
    text = "heritage=external-dns,external-dns/owner=x,external-dns/resource=service/ns/name"
    out = base64.b64decode(crypto.encrypt_text(text, KEY, nonce_b64))
    assert out[:12] == nonce
    # Independently: open with AESGCM and check the gzip framing Go writes.
    gz = AESGCM(KEY).decrypt(nonce, out[12:], None)
    assert gz[:10] == bytes.fromhex("1f8b08000000000002ff")
    assert gz[-13:-8] == b"\x01\x00\x00\xff\xff"  # Close(): empty final stored block
    assert gz[-17:-13] == b"\x00\x00\xff\xff"  # Flush(): sync-flush marker (its 3 header bits end the byte before)
    crc, size = struct.unpack("<II", gz[-8:])
    assert crc == zlib.crc32(text.encode()) and size == len(text)
    assert gzip.decompress(gz).decode() == text
    # Ciphertext is gzip length + 16-byte tag.
    assert len(out) == 12 + len(gz) + 16


def test_round_trip_same_nonce_same_value_and_random_nonce_differs() -> None:
    nonce = crypto.generate_nonce()
    assert len(base64.b64decode(nonce)) == 12
    a = crypto.encrypt_text("hello", KEY, nonce)
    assert crypto.encrypt_text("hello", KEY, nonce) == a
    assert crypto.encrypt_text("hello", KEY, crypto.generate_nonce()) != a
    assert crypto.decrypt_text(a, KEY) == ("hello", nonce)


def test_decrypts_value_written_by_other_gzip_writer() -> None:
    # Go's deflate may differ from zlib for long inputs; any valid gzip must decrypt.
    nonce = b"\x01" * 12
    long_text = "lorem ipsum dolor " * 40
    value = base64.b64encode(nonce + AESGCM(KEY).encrypt(nonce, gzip.compress(long_text.encode(), 1), None))
    assert crypto.decrypt_text(value.decode(), KEY) == (long_text, base64.b64encode(nonce).decode())


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("not base64!!", "base64"),
        (base64.b64encode(b"short").decode(), "shorter than the nonce"),
        (GO_VALUE[:-4] + "AAAA", "authentication"),
    ],
)
def test_decrypt_errors(value: str, message: str) -> None:
    with pytest.raises(crypto.CryptoError, match=message):
        crypto.decrypt_text(value, KEY)


def test_decrypt_with_wrong_key_fails() -> None:
    with pytest.raises(crypto.CryptoError):
        crypto.decrypt_text(GO_VALUE, b"x" * 32)


def test_decrypt_rejects_non_gzip_payload() -> None:
    nonce = b"\x02" * 12
    value = base64.b64encode(nonce + AESGCM(KEY).encrypt(nonce, b"plain, not gzip", None)).decode()
    with pytest.raises(crypto.CryptoError, match="decompress"):
        crypto.decrypt_text(value, KEY)


def test_encrypt_rejects_bad_nonce_and_key() -> None:
    with pytest.raises(crypto.CryptoError, match="nonce"):
        crypto.encrypt_text("x", KEY, base64.b64encode(b"too short").decode())
    with pytest.raises(crypto.CryptoError, match="32 bytes"):
        crypto.encrypt_text("x", b"short", GO_NONCE)


def test_parse_aes_key_rules() -> None:
    assert crypto.parse_aes_key("") is None
    assert crypto.parse_aes_key("passphrasewhichneedstobe32bytes!") == b"passphrasewhichneedstobe32bytes!"
    assert crypto.parse_aes_key("ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY=") == bytes(
        [100, 248, 173, 47, 67, 70, 85, 0, 89, 109, 48, 250, 15, 5, 201, 204,
         63, 17, 137, 43, 82, 107, 60, 216, 93, 11, 29, 82, 140, 11, 81, 22]
    )
    for bad in ("123456789012345678901234567890asdfasdfasdfasdfa12", base64.b64encode(b"x" * 31).decode(), "short"):
        with pytest.raises(ValueError, match="must be 32 bytes long, in either plain text or base64-encoded format"):
            crypto.parse_aes_key(bad)
