"""Endpoint list helpers: owner filter, de-duplication, merging, endpoints_for_hostname, suitable_type."""

from __future__ import annotations

from external_dns.endpoint import (
    Endpoint,
    ProviderSpecificProperty,
    Targets,
    endpoints_for_hostname,
    filter_endpoints_by_owner_id,
    merge_endpoints,
    remove_duplicates,
    suitable_type,
)


def test_suitable_type() -> None:
    assert suitable_type("1.2.3.4") == "A"
    assert suitable_type("2001:db8::1") == "AAAA"
    assert suitable_type("lb.example.com") == "CNAME"
    assert suitable_type("1.2.3") == "CNAME"


def test_endpoints_for_hostname() -> None:
    ps = [ProviderSpecificProperty("aws/weight", "10")]
    eps = endpoints_for_hostname(
        "app.example.com.", ["lb.example.com.", "2001:db8::1", "1.2.3.4", "5.6.7.8"], 60, ps, "eu", "service/ns/app"
    )
    assert [(e.dns_name, e.record_type, list(e.targets)) for e in eps] == [
        ("app.example.com", "A", ["1.2.3.4", "5.6.7.8"]),
        ("app.example.com", "AAAA", ["2001:db8::1"]),
        ("app.example.com", "CNAME", ["lb.example.com"]),
    ]
    for e in eps:
        assert e.record_ttl == 60 and e.set_identifier == "eu"
        assert e.labels == {"resource": "service/ns/app"}
        assert e.provider_specific == ps and e.provider_specific is not ps
    assert endpoints_for_hostname("x", []) == []
    assert endpoints_for_hostname("x", ["1.1.1.1"])[0].labels == {}


def test_filter_by_owner_and_remove_duplicates() -> None:
    foo1 = Endpoint("foo.com", "A", labels={"owner": "foo"})
    foo2 = Endpoint("foo2.com", "A", labels={"owner": "foo"})
    bar = Endpoint("foo.com", "A", labels={"owner": "bar"})
    none = Endpoint("foo.com", "A")
    got = filter_endpoints_by_owner_id("foo", [foo1, foo2, bar, none])
    assert got == [foo1, foo2] and got[0] is foo1
    dup = Endpoint("foo.com", "A", Targets(["9.9.9.9"]), labels={"owner": "foo"})
    got2 = remove_duplicates([foo1, dup, bar, foo2])
    assert len(got2) == 2 and got2[0] is foo1 and got2[1] is foo2


def test_merge_endpoints() -> None:
    ref_a, ref_b = {"kind": "Pod", "name": "a"}, {"kind": "Pod", "name": "b"}
    a1 = Endpoint("n.example.com", "A", Targets(["2.2.2.2"]), 60, labels={"resource": "pod/a"}, ref_objects=[ref_a])
    a2 = Endpoint("n.example.com", "A", Targets(["1.1.1.1", "2.2.2.2"]), 60, labels={"resource": "pod/b"}, ref_objects=[ref_b])
    other_ttl = Endpoint("n.example.com", "A", Targets(["3.3.3.3"]), 300)
    c1 = Endpoint("c.example.com", "CNAME", Targets(["x.example.com"]))
    c2 = Endpoint("c.example.com", "CNAME", Targets(["y.example.com"]))
    c3 = Endpoint("c.example.com", "CNAME", Targets(["x.example.com"]))
    empty_cname = Endpoint("e.example.com", "CNAME")
    out = merge_endpoints([a1, a2, other_ttl, c1, c2, c3, empty_cname])
    assert [(e.dns_name, e.record_type, e.record_ttl, list(e.targets)) for e in out] == [
        ("n.example.com", "A", 60, ["1.1.1.1", "2.2.2.2"]),
        ("n.example.com", "A", 300, ["3.3.3.3"]),
        ("c.example.com", "CNAME", 0, ["x.example.com"]),
        ("c.example.com", "CNAME", 0, ["y.example.com"]),
    ]
    assert out[0].labels == {"resource": "pod/a"}  # first endpoint's metadata wins
    assert out[0].ref_objects == [ref_a, ref_b]
    assert list(a1.targets) == ["2.2.2.2"]  # inputs untouched
