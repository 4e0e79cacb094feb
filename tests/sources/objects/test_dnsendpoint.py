"""DNSEndpoint -> endpoints: spec.endpoints as written, target checks as external-dns, bad items."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.endpoint.endpoint import ProviderSpecificProperty
from external_dns.endpoint.limits import is_hold
from external_dns.sources.objects.dnsendpoint import (
    dnsendpoint_endpoints,
    dnsendpoint_needs_status_update,
    merge_dnsendpoint_endpoints,
)
from external_dns.sources.options import SourceOptions
from tests.sources.helpers import dnsendpoint, summary

OPTS = SourceOptions()


def test_reference_example() -> None:
    obj = dnsendpoint("examplednsrecord", endpoints=[{
        "dnsName": "foo.bar.com", "recordTTL": 180, "recordType": "A", "targets": ["192.168.99.216"],
        "providerSpecific": [{"name": "aws/weight", "value": "100"}], "setIdentifier": "eu",
        "labels": {"team": "payments"}}])
    [ep], problems = dnsendpoint_endpoints(obj, OPTS)
    assert problems == []
    assert str(ep) == "foo.bar.com 180 IN A eu 192.168.99.216 [{aws/weight 100}]"
    assert ep.labels == {"team": "payments", "resource": "crd/default/examplednsrecord"}
    assert ep.provider_specific == [ProviderSpecificProperty("aws/weight", "100")]
    assert ep.ref_objects == [obj]


@pytest.mark.parametrize(
    ("record_type", "target", "ok"),
    [
        ("CNAME", "x.example.org.", True),
        ("CNAME", "x.example.org", True),
        ("DNAME", "x.example.org.", True),
        ("TXT", "v=spf1 -all.", True),
        ("MX", "10 mail.example.org.", True),
        ("SRV", "0 50 80 x.example.org.", True),
        ("NAPTR", '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.org!" .', True),
        ("NAPTR", '100 10 "u" "E2U+sip" "" x', False),
        ("A", "1.2.3.4.", False),
        ("NS", "ns1.example.org.", False),
        ("NS", "ns1.example.org", True),
        ("A", "1.2.3.4", True),
    ],
)
def test_trailing_dot_rules(record_type: str, target: str, ok: bool) -> None:
    obj = dnsendpoint("rec", "ns1", endpoints=[{"dnsName": "a.example.org", "recordType": record_type,
                                                 "targets": [target]}])
    eps, problems = dnsendpoint_endpoints(obj, OPTS)
    assert bool([e for e in eps if not is_hold(e)]) is ok
    if not ok:
        [hold] = eps  # the record it had stays as it is (issue 27, item 9)
        assert is_hold(hold) and (hold.dns_name, hold.record_type) == ("a.example.org", record_type)
        [p] = problems
        assert p.field == "spec.endpoints[0].targets[0]"
        assert p.ref == "dnsendpoint/ns1/rec"
        if record_type == "A":
            assert ("Endpoint ns1/rec with DNSName a.example.org has an illegal target '1.2.3.4.' for A record "
                    "— use '1.2.3.4' not '1.2.3.4.'.") in p.message


def test_cname_trailing_dot_survives() -> None:
    obj = dnsendpoint(endpoints=[{"dnsName": "a.example.org.", "recordType": "CNAME", "targets": ["b.example.org."]}])
    [ep], _ = dnsendpoint_endpoints(obj, OPTS)
    assert ep.dns_name == "a.example.org." and list(ep.targets) == ["b.example.org."]


def test_empty_targets_allowed_for_default_targets() -> None:
    obj = dnsendpoint(endpoints=[{"dnsName": "a.example.org", "recordType": "A"}])
    [ep], problems = dnsendpoint_endpoints(obj, OPTS)
    assert problems == [] and list(ep.targets) == []


@pytest.mark.parametrize(
    ("item", "field", "fragment"),
    [
        ("a.example.org", "spec.endpoints[1]", "must be an object"),
        ({"recordType": "A", "targets": ["1.1.1.1"]}, "spec.endpoints[1].dnsName", "empty"),
        ({"dnsName": "x" * 64 + ".org", "recordType": "A"}, "spec.endpoints[1].dnsName", "longer than 63"),
        ({"dnsName": "a." * 127 + "org", "recordType": "A"}, "spec.endpoints[1].dnsName", "longer than 253"),
        ({"dnsName": "a.*.org", "recordType": "A"}, "spec.endpoints[1].dnsName", "'*'"),
        ({"dnsName": "a.org", "recordType": "BOGUS"}, "spec.endpoints[1].recordType", "unknown record type"),
        ({"dnsName": "a.org", "recordType": "A", "targets": "1.1.1.1"}, "spec.endpoints[1].targets", "list"),
        ({"dnsName": "a.org", "recordType": "A", "targets": [1]}, "spec.endpoints[1].targets[0]", "string"),
        ({"dnsName": "a.org", "recordType": "A", "targets": ["not-an-ip"]}, "spec.endpoints[1].targets",
         "not a valid IP address"),
        ({"dnsName": "a.org", "recordType": "AAAA", "targets": ["1.1.1.1"]}, "spec.endpoints[1].targets",
         "IPv4"),
        ({"dnsName": "a.org", "recordType": "MX", "targets": ["mail.org"]}, "spec.endpoints[1].targets", "MX"),
        ({"dnsName": "a.org", "recordType": "A", "recordTTL": "60"}, "spec.endpoints[1].recordTTL", "integer"),
        ({"dnsName": "a.org", "recordType": "A", "recordTTL": -1}, "spec.endpoints[1].recordTTL", "integer"),
        ({"dnsName": "a.org", "recordType": "A", "labels": ["x"]}, "spec.endpoints[1].labels", "map"),
        ({"dnsName": "a.org", "recordType": "A", "labels": {"a": 1}}, "spec.endpoints[1].labels['a']", "string"),
        ({"dnsName": "a.org", "recordType": "A", "providerSpecific": [{"value": "x"}]},
         "spec.endpoints[1].providerSpecific[0]", "name"),
        ({"dnsName": "a.org", "recordType": "A", "setIdentifier": 3}, "spec.endpoints[1].setIdentifier", "string"),
    ],
)
def test_bad_item_skipped_others_kept(item: Any, field: str, fragment: str) -> None:
    obj = dnsendpoint(endpoints=[{"dnsName": "good.example.org", "recordType": "A", "targets": ["1.1.1.1"]}, item,
                                 None])
    eps, problems = dnsendpoint_endpoints(obj, OPTS)
    assert summary([e for e in eps if not is_hold(e)]) == {("good.example.org", "A", ("1.1.1.1",), 0)}
    [p] = problems
    assert p.field == field and fragment in p.message and p.ref == "dnsendpoint/default/rec"
    # an item whose name and type read holds its records (issue 27, item 9): no create, update or delete there
    holds = [(e.dns_name, e.record_type, e.labels.get("resource")) for e in eps if is_hold(e)]
    named = isinstance(item, dict) and not field.endswith((".dnsName", ".recordType"))
    assert holds == ([("a.org", item["recordType"], "crd/default/rec")] if named else [])


def test_malformed_spec() -> None:
    obj = dnsendpoint()
    obj["spec"]["endpoints"] = {"dnsName": "a.org"}
    eps, [p] = dnsendpoint_endpoints(obj, OPTS)
    assert eps == [] and p.field == "spec.endpoints" and p.severity == "error"


def test_filters() -> None:
    obj = dnsendpoint(endpoints=[{"dnsName": "a.org", "recordType": "A", "targets": ["1.1.1.1"]}],
                      labels={"team": "x"})
    assert dnsendpoint_endpoints(obj, SourceOptions(label_filter="team=x")).endpoints
    assert not dnsendpoint_endpoints(obj, SourceOptions(label_filter="team=y")).endpoints
    assert not dnsendpoint_endpoints(obj, SourceOptions(namespace="kube-system")).endpoints


def test_merge_and_status() -> None:
    a = dnsendpoint("a", endpoints=[{"dnsName": "x.org", "recordType": "A", "targets": ["1.1.1.1"]}])
    b = dnsendpoint("b", endpoints=[{"dnsName": "x.org", "recordType": "A", "targets": ["2.2.2.2"]}])
    [merged] = merge_dnsendpoint_endpoints(dnsendpoint_endpoints(a, OPTS).endpoints
                                           + dnsendpoint_endpoints(b, OPTS).endpoints)
    assert list(merged.targets) == ["1.1.1.1", "2.2.2.2"]
    a["metadata"]["generation"] = 2
    assert dnsendpoint_needs_status_update(a)
    a["status"] = {"observedGeneration": 2}
    assert not dnsendpoint_needs_status_update(a)
