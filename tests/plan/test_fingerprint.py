"""plan/fingerprint.py: one digest of a row's endpoints, for every "did this name's row change?"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.fingerprint import fingerprint
from tests.helpers import endpoints


def ep(name: str, target: str = "10.0.0.1", rtype: str = "A", **labels: str) -> Endpoint:
    return endpoints.ep(name, rtype, target, ttl=300, labels=labels)


@given(st.permutations([ep("x.a.test", "10.0.0.1"), ep("x.a.test", "10.0.0.2", "AAAA"), ep("y.a.test")]))
def test_a_fingerprint_ignores_order_and_sees_every_field(endpoints: list[Endpoint]) -> None:
    base = [ep("x.a.test", "10.0.0.1"), ep("x.a.test", "10.0.0.2", "AAAA"), ep("y.a.test")]
    assert fingerprint(endpoints) == fingerprint(base)
    for changed in (ep("y.a.test", "10.0.0.9"), ep("y.a.test", rtype="CNAME"), ep("y.a.test", owner="o"),
                    ep("Y.a.test")):
        assert fingerprint([*base[:2], changed]) != fingerprint(base)
    ttl = ep("y.a.test")
    ttl.record_ttl = 60
    assert fingerprint([*base[:2], ttl]) != fingerprint(base)
