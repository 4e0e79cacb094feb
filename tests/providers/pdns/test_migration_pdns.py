"""Swapping Go ExternalDNS for external-dns-py on a PowerDNS server: the rrsets Go's pdns provider writes (names
with the trailing dot, CNAME targets made absolute, other targets as given, TTL 300 when none, ownership TXT
as the TXT registry's quoted heritage string, new-format names) are adopted as ours with nothing planned and
no PATCH sent; a change afterwards touches only its own rrsets."""

from __future__ import annotations

import pytest

from tests.providers.pdns.conftest import ep, make_provider, patches, sync
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration
HERITAGE = '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web"'


def go_rrset(name: str, rtype: str, *contents: str) -> dict[str, object]:
    return {"name": name, "type": rtype, "ttl": 300, "changetype": "REPLACE",
            "records": [{"content": c, "disabled": False} for c in contents]}


def test_records_written_by_go_external_dns_are_adopted_without_changes(pdns: PdnsServer) -> None:
    pdns.patch("example.org", [
        go_rrset("app.example.org.", "A", "10.0.0.5", "10.0.0.6"),
        go_rrset("a-app.example.org.", "TXT", HERITAGE),
        go_rrset("www.example.org.", "CNAME", "app.example.org."),
        go_rrset("cname-www.example.org.", "TXT", HERITAGE),
        go_rrset("note.example.org.", "TXT", '"v=spf1 -all"'),
        go_rrset("txt-note.example.org.", "TXT", HERITAGE),
    ])
    desired = [ep("app.example.org", "A", "10.0.0.6", "10.0.0.5"), ep("www.example.org", "CNAME", "app.example.org"),
               ep("note.example.org", "TXT", "v=spf1 -all")]
    provider = make_provider(pdns)
    try:
        mark = pdns.mark()
        assert not sync(provider, desired).has_changes()
        assert patches(pdns, mark) == []
        # Owned: a change of one record replaces that rrset only, and a removal deletes it with its TXT.
        before = pdns.rrsets("example.org")
        changes = sync(provider, [desired[0], ep("www.example.org", "CNAME", "other.example.net")])
        assert len(changes.update_new) == 1 and len(changes.delete) == 1
        after = pdns.records("example.org")
        assert after[("www.example.org", "CNAME")] == (300, ["other.example.net."])
        assert ("note.example.org", "TXT") not in after and ("txt-note.example.org", "TXT") not in after
        rrsets = pdns.rrsets("example.org")
        for key in (("app.example.org", "A"), ("a-app.example.org", "TXT")):
            assert rrsets[key] == before[key], key
    finally:
        provider.close()
