"""The whole sync against BIND: a static source -> Controller (plan, policy) -> TXTRegistry -> RFC2136.

Covers create, update, delete, ownership (a record of another owner and a foreign record are left alone),
TTLs, TXT values with spaces and quotes, SRV/MX, a no-op re-sync that sends no UPDATE, and a wrong TSIG
secret (clear error, nothing written).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest

from external_dns.controller.controller import Controller, RunOnceError, is_soft_error
from external_dns.endpoint.endpoint import Endpoint
from external_dns.providers.rfc2136 import RFC2136Provider
from external_dns.providers.rfc2136.transport import TsigRejected
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints
from tests.helpers.sources import StaticSource
from tests.providers.rfc2136.conftest import sent_messages
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration
MANAGED = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV"]


ep = partial(endpoints.ep, resource="service/default/web")


def controller(provider: RFC2136Provider, desired: list[Endpoint], owner: str = "default") -> Controller:
    registry = TXTRegistry(provider, owner_id=owner, managed_record_types=MANAGED)
    return Controller(StaticSource(desired), registry, "sync", managed_record_types=MANAGED)


def test_create_update_delete_with_ownership(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    desired = [
        ep("app.example.org", "A", "10.0.0.5", ttl=120),
        ep("app.example.org", "AAAA", "2001:db8::5"),
        ep("www.example.com", "CNAME", "app.example.org"),
        ep("note.example.org", "TXT", 'v=1 "quoted" and spaced'),
        ep("inbox.example.com", "MX", "10 mail.example.net"),
        ep("_sip._udp.example.com", "SRV", "10 60 5060 sip.example.net"),
        ep("deep.sub.example.org", "A", "10.9.9.9"),
    ]
    result = controller(provider, desired).run_once()
    assert result.created == len(desired)
    assert clean_bind.rrset("app.example.org", "A") == (120, ["10.0.0.5"])
    assert clean_bind.rrset("deep.sub.example.org", "A") == (0, ["10.9.9.9"])
    owner_txt = clean_bind.rrset("a-app.example.org", "TXT")
    assert owner_txt is not None
    assert owner_txt[1] == ['"heritage=external-dns,external-dns/owner=default,'
                            'external-dns/resource=service/default/web"']
    assert clean_bind.rrset("mx-inbox.example.com", "TXT") is not None
    assert clean_bind.rrset("srv-_sip._udp.example.com", "TXT") is not None
    assert clean_bind.rrset("a-deep.sub.example.org", "TXT") is not None  # in the sub zone, with its record

    # A second sync with the same desired state plans nothing and sends no UPDATE.
    before = sent_messages()
    again = controller(provider, desired).run_once()
    assert not again.changes.has_changes(), again.changes
    assert sent_messages() == before

    # Update targets and TTL, drop two records.
    desired2 = [
        ep("app.example.org", "A", "10.0.0.6", ttl=300),
        ep("app.example.org", "AAAA", "2001:db8::5"),
        ep("www.example.com", "CNAME", "app.example.org"),
        ep("note.example.org", "TXT", 'v=2 "quoted" and spaced'),
        ep("inbox.example.com", "MX", "10 mail.example.net", "20 backup.example.net"),
    ]
    result = controller(provider, desired2).run_once()
    assert (result.updated, result.deleted) == (3, 2)
    assert clean_bind.rrset("app.example.org", "A") == (300, ["10.0.0.6"])
    assert clean_bind.rrset("inbox.example.com", "MX") == (0, ["10 mail.example.net.", "20 backup.example.net."])
    assert clean_bind.rrset("_sip._udp.example.com", "SRV") is None
    assert clean_bind.rrset("srv-_sip._udp.example.com", "TXT") is None
    assert clean_bind.rrset("deep.sub.example.org", "A") is None
    note = clean_bind.rrset("note.example.org", "TXT")
    assert note is not None and note[1] == ['"v=2 \\"quoted\\" and spaced"']
    assert not controller(provider, desired2).run_once().changes.has_changes()


def test_foreign_and_other_owners_records_are_left_alone(provider: RFC2136Provider,
                                                         clean_bind: BindServer) -> None:
    upd = clean_bind.update("example.org")
    upd.add("manual.example.org.", 300, "A", "192.0.2.200")
    upd.add("verify.example.org.", 300, "TXT", '"google-site-verification=xyz"')
    clean_bind.send(upd)
    controller(provider, [ep("theirs.example.org", "A", "192.0.2.1")], owner="cluster-b").run_once()

    # Our owner wants a different value at both names and has nothing else: nothing of theirs changes.
    mine = [ep("manual.example.org", "A", "192.0.2.99"), ep("theirs.example.org", "A", "192.0.2.99"),
            ep("ours.example.org", "A", "192.0.2.50")]
    result = controller(provider, mine, owner="cluster-a").run_once()
    assert result.created == 1 and result.updated == 0 and result.deleted == 0
    assert clean_bind.rrset("manual.example.org", "A") == (300, ["192.0.2.200"])
    assert clean_bind.rrset("theirs.example.org", "A") == (0, ["192.0.2.1"])
    assert clean_bind.rrset("verify.example.org", "TXT") == (300, ['"google-site-verification=xyz"'])

    # Our owner deleting everything it owns removes only its own record and TXT.
    controller(provider, [], owner="cluster-a").run_once()
    assert clean_bind.rrset("ours.example.org", "A") is None
    assert clean_bind.rrset("a-ours.example.org", "TXT") is None
    assert clean_bind.rrset("manual.example.org", "A") is not None
    assert clean_bind.rrset("theirs.example.org", "A") is not None
    assert clean_bind.rrset("a-theirs.example.org", "TXT") is not None


def test_wrong_tsig_secret_fails_clearly_and_writes_nothing(make_provider: Callable[..., RFC2136Provider],
                                                            clean_bind: BindServer) -> None:
    bad = make_provider(tsig_secret="d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw==")
    with pytest.raises(RunOnceError) as info:
        controller(bad, [ep("nope.example.org", "A", "192.0.2.1")]).run_once()
    assert isinstance(info.value.__cause__, TsigRejected)
    assert not is_soft_error(info.value)
    assert "rejected TSIG key" in str(info.value)
    assert "d3Jvbmctc2VjcmV0" not in str(info.value)
    assert clean_bind.rrset("nope.example.org", "A") is None


def test_old_format_ownership_is_migrated(provider: RFC2136Provider, clean_bind: BindServer) -> None:
    # A record owned through the pre-v0.18 TXT (same name, no type prefix): the registry asks for an
    # update that writes the new-format TXT; the record itself keeps its TTL and value.
    upd = clean_bind.update("example.org")
    upd.add("legacy.example.org.", 300, "A", "192.0.2.80")
    upd.add("legacy.example.org.", 300, "TXT",
            '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web"')
    clean_bind.send(upd)
    desired = [ep("legacy.example.org", "A", "192.0.2.80")]
    controller(provider, desired).run_once()
    new_txt = clean_bind.rrset("a-legacy.example.org", "TXT")
    assert new_txt is not None and "external-dns/owner=default" in new_txt[1][0]
    assert clean_bind.rrset("legacy.example.org", "A") == (300, ["192.0.2.80"])
    assert not controller(provider, desired).run_once().changes.has_changes()
