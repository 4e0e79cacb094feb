"""A DNSRecord's served spec (controller/dnsrecord/types.py): validation that names the first unusable field,
dns-operator's owner ID from the UID (FNV-1a 64 in base 36), names within the root host."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.controller.dnsrecord.types import (
    ValidationError,
    base36_hash,
    in_root_host,
    owner_id_of,
    uid_hash,
    validate,
)


def record(spec: Any, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"name": "app", "namespace": "default", "uid": "u-1", "generation": 2, **meta},
            "spec": spec}


def item(name: str, rtype: str = "A", *targets: str, **extra: Any) -> dict[str, Any]:
    return {"dnsName": name, "recordType": rtype, "targets": list(targets or ("10.0.0.1",)), **extra}


def test_a_good_record() -> None:
    spec = validate(record({"rootHost": "App.Example.ORG.", "ownerID": "owner-1",
                            "endpoints": [item("app.example.org"), item("www.App.example.org", "CNAME", "x.net")],
                            "providerRef": {"name": "p"}}))
    assert (spec.key, spec.uid, spec.generation, spec.owner_id, spec.root_host) == (
        "default/app", "u-1", 2, "owner-1", "app.example.org")
    assert [(e.dns_name, e.record_type) for e in spec.endpoints] == [("app.example.org", "A"),
                                                                     ("www.App.example.org", "CNAME")]
    assert spec.unsupported == ("providerRef",)  # named, not served


@pytest.mark.parametrize(("spec", "message"), [
    ("not an object", "spec: must be an object"),
    ({"rootHost": "a.org", "ownerID": "short"}, "spec.ownerID: 'short' must be a string of 6-36 characters"),
    ({"rootHost": " "}, "spec.rootHost: required, a non-empty DNS name"),
    ({"rootHost": "a" * 256}, "spec.rootHost: longer than 255 characters"),
    ({"rootHost": "a.org", "delegate": True}, "spec.delegate: delegating DNSRecords are not served"),
    ({"rootHost": "a.org", "endpoints": {"x": 1}}, "spec.endpoints: must be a list of endpoints"),
    ({"rootHost": "a.org", "endpoints": [item("a.org", "BOGUS")]}, "spec.endpoints[0].recordType"),
    ({"rootHost": "a.org", "endpoints": [item("a.org"), item("b.net")]},
     "invalid endpoint discovered b.net all endpoints should be equal to or end with the rootHost a.org "
     "(spec.endpoints[1].dnsName)"),
    ({"rootHost": "a.org", "endpoints": [{"dnsName": "a.org", "recordType": "A", "targets": []}]},
     "spec.endpoints[0].targets: at least one target is required"),
    ({"rootHost": "a.org", "endpoints": [item("a.org", "A", "not-an-ip")]}, "spec.endpoints[0].targets"),
    ({"rootHost": "a.org", "endpoints": [item("a.org"), item("A.org.", "A", "10.0.0.2")]},
     "spec.endpoints[1]: duplicate record A.org. A, already in spec.endpoints[0]"),
])
def test_the_first_unusable_field_is_named(spec: Any, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        validate(record(spec))
    assert str(info.value).startswith(message)


def test_set_identifiers_tell_records_apart() -> None:
    spec = validate(record({"rootHost": "a.org", "endpoints": [item("a.org", setIdentifier="eu"),
                                                               item("a.org", setIdentifier="us")]}))
    assert [e.set_identifier for e in spec.endpoints] == ["eu", "us"]


def test_base36_hash_is_fnv1a_64() -> None:
    # FNV-1a 64 test vectors (the reference's): "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c
    assert int(base36_hash("", 13), 36) == 0xCBF29CE484222325
    assert int(base36_hash("a", 13), 36) == 0xAF63DC4C8601EC8C
    assert base36_hash("a", 8) == base36_hash("a", 13)[:8] and len(uid_hash("u-1")) == 8
    assert base36_hash("a", 20).startswith("0000000")  # left-padded


def test_owner_id_defaults_to_the_uid_hash() -> None:
    assert owner_id_of(record({"ownerID": "owner-1"})) == "owner-1"
    assert owner_id_of(record({})) == uid_hash("u-1")
    assert owner_id_of({"spec": "broken"}) == uid_hash("")


@pytest.mark.parametrize(("name", "inside"), [("a.org", True), ("WWW.a.org.", True), ("ba.org", False),
                                              ("org", False)])
def test_in_root_host_on_a_label_boundary(name: str, inside: bool) -> None:
    assert in_root_host(name, "a.org") is inside
