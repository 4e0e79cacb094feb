"""RFC2136Provider without a server: zone choice and the domain filter, adjust_endpoints, a failed AXFR's message."""

from __future__ import annotations

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.rfc2136 import RFC2136Provider
from tests.providers.rfc2136.conftest import cfg


def test_zone_choice_and_domain_filter() -> None:
    p = RFC2136Provider(cfg(zones=("example.org", "sub.example.org.", "Example.COM")))
    assert p.zone_for("a.b.sub.example.org") == "sub.example.org"
    assert p.zone_for("sub.example.org.") == "sub.example.org"
    assert p.zone_for("notsub.example.org") == "example.org"
    assert p.zone_for("www.example.com") == "example.com"
    assert p.zone_for("example.net") is None
    flt = p.get_domain_filter()
    assert flt.match("x.sub.example.org") and not flt.match("example.net")
    root = RFC2136Provider(cfg(zones=()))
    assert root.zone_for("anything.test") == "." and list(root.zones()) == [""]


def test_adjust_endpoints_canonicalises_and_raises_ttl() -> None:
    p = RFC2136Provider(cfg(min_ttl=120))
    eps = [Endpoint("a.example.org", "CNAME", Targets(["B.example.org."]), 30),
           Endpoint("t.example.org", "TXT", Targets(['"v=1"'])),
           Endpoint("x.example.org", "A", Targets(["10.0.0.1"]), 600)]
    out = p.adjust_endpoints(eps)
    assert [(list(e.targets), e.record_ttl) for e in out] == [(["b.example.org"], 120), (["v=1"], 0),
                                                               (["10.0.0.1"], 600)]
    assert list(eps[0].targets) == ["B.example.org."]  # inputs untouched


def test_adjust_endpoints_drops_set_identifiers_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    """No routing policies in DNS UPDATE and none read back: a set identifier would plan a rewrite on every run.
    Ignored as Go's providers without routing policies do (OCI's AdjustEndpoints)."""
    p = RFC2136Provider(cfg())
    geo = Endpoint("geo.example.org", "A", Targets(["192.0.2.10"]), set_identifier="eu")
    plain = Endpoint("web.example.org", "A", Targets(["192.0.2.20"]))
    out = p.adjust_endpoints([geo, plain])
    assert [(e.dns_name, e.set_identifier, list(e.targets)) for e in out] == [
        ("geo.example.org", "", ["192.0.2.10"]), ("web.example.org", "", ["192.0.2.20"])]
    assert out[1] is plain and geo.set_identifier == "eu"  # unchanged endpoints pass through; inputs untouched
    logged = capsys.readouterr()
    assert "Ignoring the set-identifier annotation" in logged.out + logged.err and "set_identifier" in logged.out + logged.err


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: connections to it are refused at once


@pytest.mark.parametrize("hosts", [("127.0.0.1",), ("127.0.0.1", "127.0.0.1")])
def test_a_failed_axfr_says_trying_the_next_server_only_when_there_is_one(hosts: tuple[str, ...]) -> None:
    from structlog.testing import capture_logs

    from external_dns.providers.provider import SoftError

    p = RFC2136Provider(cfg(hosts=hosts, port=_closed_port(), axfr=True, insecure=True, timeout=2.0))
    with capture_logs() as logs, pytest.raises(SoftError):
        p.records()
    events = [e["event"] for e in logs if e["event"].startswith("RFC2136 AXFR failed")]
    assert events == ["RFC2136 AXFR failed, trying the next server"] * (len(hosts) - 1) + ["RFC2136 AXFR failed"]
