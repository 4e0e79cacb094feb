"""Label (de)serialisation of ownership TXT values: external-dns labels_test.go cases and encryption."""

from __future__ import annotations

import pytest

from external_dns.endpoint import crypto
from external_dns.endpoint.labels import (
    TXT_ENCRYPTION_NONCE,
    InvalidHeritageError,
    parse_labels,
    serialize_labels,
)

KEY = b"12345678901234567890123456789012"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '"heritage=external-dns,external-dns/owner=foo-owner,external-dns/resource=foo-resource"',
            {"owner": "foo-owner", "resource": "foo-resource"},
        ),
        (
            "heritage=external-dns,,external-dns/owner=bar-owner,external-dns/resource=bar-resource,"
            "external-dns/new-key=bar-new-key,random=stuff,no-equal-sign,,",
            {"owner": "bar-owner", "resource": "bar-resource", "new-key": "bar-new-key"},
        ),
        (
            "heritage=external-dns,external-dns/owner=team=platform,external-dns/resource=ingress/a/b",
            {"owner": "team=platform", "resource": "ingress/a/b"},
        ),
        ("heritage=external-dns", {}),
    ],
)
def test_parse_valid(text: str, expected: dict[str, str]) -> None:
    assert parse_labels(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "heritage=mate,external-dns/owner=random-owner",
        "heritage=mate,heritage=external-dns,external-dns/owner=random-owner",
        "external-dns/owner=x",
        "google-site-verification=abcdef",
        "",
    ],
)
def test_parse_invalid_heritage(text: str) -> None:
    with pytest.raises(InvalidHeritageError, match="heritage is unknown or not found"):
        parse_labels(text)


def test_serialize_sorted_keys_and_quotes() -> None:
    labels = {"resource": "ingress/default/my-ingress", "owner": "owner"}
    plain = "heritage=external-dns,external-dns/owner=owner,external-dns/resource=ingress/default/my-ingress"
    assert serialize_labels(labels, with_quotes=False) == plain
    assert serialize_labels(labels) == f'"{plain}"'
    assert serialize_labels({}, with_quotes=False) == "heritage=external-dns"


def test_serialize_never_writes_nonce_label() -> None:
    labels = {"owner": "o", TXT_ENCRYPTION_NONCE: "h8UQ6jelUFUsEIn7"}
    assert serialize_labels(labels, with_quotes=False) == "heritage=external-dns,external-dns/owner=o"


def test_round_trip_plain() -> None:
    labels = {"owner": "a", "resource": "service/x/y", "extra": "v=1"}
    assert parse_labels(serialize_labels(labels)) == labels


def test_encrypted_serialize_matches_go_vector_with_stored_nonce() -> None:
    labels = {"owner": "owner", TXT_ENCRYPTION_NONCE: "h8UQ6jelUFUsEIn7"}
    assert serialize_labels(labels, aes_key=KEY) == (
        '"h8UQ6jelUFUsEIn7SbFktc2MYXPx/q8lySqI4VwfVtVaIbb2nkHWV/88KKbuLtu7fJNzMir8ELVeVnRSY01KdiIuj7ledqZe5ai'
        'lEjQaU5Z6uEKd5pgs6sH8"'
    )


def test_encrypted_serialize_stores_fresh_nonce_and_reuses_it() -> None:
    labels = {"owner": "owner", "resource": "crd/ns/n"}
    first = serialize_labels(labels, aes_key=KEY)
    assert TXT_ENCRYPTION_NONCE in labels
    assert "heritage" not in first
    assert serialize_labels(labels, aes_key=KEY) == first
    parsed = parse_labels(first, aes_key=KEY)
    assert parsed == labels  # includes the nonce, so re-serialising the parsed map gives the read value
    assert serialize_labels(parsed, aes_key=KEY) == first


def test_bad_stored_nonce_is_replaced() -> None:
    labels = {"owner": "o", TXT_ENCRYPTION_NONCE: "not-a-nonce"}
    value = serialize_labels(labels, with_quotes=False, aes_key=KEY)
    assert labels[TXT_ENCRYPTION_NONCE] != "not-a-nonce"
    assert crypto.decrypt_text(value, KEY)[1] == labels[TXT_ENCRYPTION_NONCE]


def test_parse_with_key_falls_back_to_plain_text() -> None:
    assert parse_labels('"heritage=external-dns,external-dns/owner=p"', aes_key=KEY) == {"owner": "p"}
    with pytest.raises(InvalidHeritageError):
        parse_labels("v=spf1 -all", aes_key=KEY)


def test_encrypted_value_without_key_is_not_ownership() -> None:
    value = serialize_labels({"owner": "o"}, aes_key=KEY)
    with pytest.raises(InvalidHeritageError):
        parse_labels(value)


def test_encrypted_foreign_heritage_is_invalid() -> None:
    nonce = crypto.generate_nonce()
    value = crypto.encrypt_text("heritage=other,external-dns/owner=o", KEY, nonce)
    with pytest.raises(InvalidHeritageError):
        parse_labels(value, aes_key=KEY)
