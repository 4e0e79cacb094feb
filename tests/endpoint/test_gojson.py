"""JSON keys decoded into struct fields as Go's encoding/json does (endpoint/gojson.py): the exact name first, else
a case-insensitive match; a later key for the same field wins; unknown and non-string keys are dropped."""

from __future__ import annotations

from typing import Any

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.gojson import struct_fields
from external_dns.plan.changes import Changes

FIELDS = ("dnsName", "targets", "recordTTL")


def test_exact_and_case_insensitive_keys_map_to_the_field() -> None:
    assert struct_fields({"dnsName": "a", "TARGETS": ["1.1.1.1"], "RecordTtl": 60}, FIELDS) == \
        {"dnsName": "a", "targets": ["1.1.1.1"], "recordTTL": 60}


def test_a_later_key_for_the_same_field_overwrites_an_earlier_one() -> None:
    assert struct_fields({"dnsName": "first", "DNSNAME": "second"}, FIELDS) == {"dnsName": "second"}
    assert struct_fields({"DNSNAME": "first", "dnsName": "second"}, FIELDS) == {"dnsName": "second"}


def test_unknown_and_non_string_keys_are_dropped() -> None:
    data: dict[Any, Any] = {"dnsName": "a", "labels2": {}, 7: "x", None: "y"}
    assert struct_fields(data, FIELDS) == {"dnsName": "a"}


def test_unicode_simple_folding() -> None:
    # Go folds with Unicode simple case folding: the Kelvin sign K (U+212A) matches "k".
    assert struct_fields({"\u212aey": 1}, ("key",)) == {"key": 1}


def test_go_spelled_keys_reach_endpoints_and_changes() -> None:
    e = Endpoint.from_json({"DNSName": "www.example.org", "RecordType": "A", "Targets": ["10.0.0.1"]})
    assert (e.dns_name, e.record_type, list(e.targets)) == ("www.example.org", "A", ["10.0.0.1"])
    changes = Changes.from_json({"Create": [{"dnsName": "a.example.org", "recordType": "A", "targets": ["10.0.0.2"]}]})
    assert [x.dns_name for x in changes.create] == ["a.example.org"]
