"""An rrset holding values this owner did not write is never REPLACEd or DELETEd whole (issue 27, item 2),
against a real PowerDNS: a PATCH acts on a whole rrset, so each write is checked against the zone as read (read
first when it was not), and one that would overwrite or remove a hand-made rrset is refused with a warning,
with the records of its name and their ownership TXTs; the rest of the zone is written."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from external_dns.plan.changes import Changes
from tests.helpers.endpoints import ep
from tests.helpers.sync import sync
from tests.providers.pdns.conftest import make_provider
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration


def hand_made(srv: PdnsServer, name: str, rtype: str, *contents: str) -> None:
    srv.patch("example.org", [{"name": name + ".", "type": rtype, "ttl": 600, "changetype": "REPLACE",
                               "records": [{"content": c, "disabled": False} for c in contents]}])


def refused(logs: list[MutableMapping[str, Any]]) -> list[str]:
    return [str(line["event"]) for line in logs if line["log_level"] == "warning" and " refused: " in str(line["event"])]


def test_an_ownership_txt_never_replaces_a_hand_made_txt(pdns: PdnsServer) -> None:
    """The registry creates `a-www` TXT beside `www` A; a hand-made TXT at `a-www` was REPLACEd by it."""
    hand_made(pdns, "a-www.example.org", "TXT", '"v=hand-made"')
    provider = make_provider(pdns)
    logs = sync(provider, [ep("www.example.org", "A", "192.0.2.1"), ep("ok.example.org", "A", "192.0.2.2")])
    records = pdns.records("example.org")
    assert records[("a-www.example.org", "TXT")] == (600, ['"v=hand-made"'])
    assert ("www.example.org", "A") not in records  # not written without its ownership record
    assert ("ok.example.org", "A") in records and ("a-ok.example.org", "TXT") in records
    [line] = refused(logs)
    assert "create a-www.example.org TXT refused" in line and "www.example.org A" in line


def test_a_write_over_an_rrset_it_did_not_read_is_refused(pdns: PdnsServer) -> None:
    """`apply` of changes planned elsewhere (a plan file): the zone is read first; a create over an existing
    rrset, an update or a delete of values that are not what the change replaces, are refused, the rest
    written."""
    hand_made(pdns, "hand.example.org", "A", "198.51.100.1", "198.51.100.2")
    hand_made(pdns, "upd.example.org", "A", "198.51.100.3")
    provider = make_provider(pdns)
    with capture_logs() as logs:
        provider.apply_changes(Changes(
            create=[ep("hand.example.org", "A", "192.0.2.1"), ep("new.example.org", "A", "192.0.2.5")],
            update_old=[ep("upd.example.org", "A", "192.0.2.3")], update_new=[ep("upd.example.org", "A", "192.0.2.4")],
            delete=[ep("hand.example.org", "A", "198.51.100.1")]))
    records = pdns.records("example.org")
    assert records[("hand.example.org", "A")] == (600, ["198.51.100.1", "198.51.100.2"])
    assert records[("upd.example.org", "A")] == (600, ["198.51.100.3"])
    assert records[("new.example.org", "A")] == (300, ["192.0.2.5"])
    assert sorted(line.split(" refused")[0].split(": ")[-1] for line in refused(logs)) == [
        "delete hand.example.org A", "update upd.example.org A"]  # the create at `hand` waits with its delete
    # a create already in place (written by an earlier, interrupted run) goes through: nothing changes
    provider.apply_changes(Changes(create=[ep("new.example.org", "A", "192.0.2.5")]))
    assert pdns.records("example.org")[("new.example.org", "A")] == (300, ["192.0.2.5"])


def test_our_own_records_are_updated_and_deleted_as_before(pdns: PdnsServer) -> None:
    """The check follows our writes: create, update, delete in successive syncs, nothing refused."""
    provider = make_provider(pdns)
    assert not refused(sync(provider, [ep("app.example.org", "A", "192.0.2.1")]))
    assert not refused(sync(provider, [ep("app.example.org", "A", "192.0.2.2", "192.0.2.3")]))
    assert pdns.records("example.org")[("app.example.org", "A")][1] == ["192.0.2.2", "192.0.2.3"]
    assert not refused(sync(provider, []))
    assert ("app.example.org", "A") not in pdns.records("example.org")
    assert ("a-app.example.org", "TXT") not in pdns.records("example.org")


def test_a_cname_beside_hand_made_data_is_refused_alone(pdns: PdnsServer) -> None:
    """PowerDNS refuses the CNAME with a 422, which failed the sync; it is refused before, with a warning."""
    hand_made(pdns, "www.example.org", "MX", "10 mail.example.net.")
    hand_made(pdns, "alias.example.org", "CNAME", "elsewhere.example.net.")
    provider = make_provider(pdns)
    # the plan sees neither hand-made record (MX, and CNAME in the second sync, are not managed)
    logs = sync(provider, [ep("www.example.org", "CNAME", "target.example.net"), ep("ok.example.org", "A", "192.0.2.8")],
                managed=("A", "CNAME"))
    logs += sync(provider, [ep("alias.example.org", "A", "192.0.2.7"), ep("ok.example.org", "A", "192.0.2.8")],
                 managed=("A",))
    records = pdns.records("example.org")
    assert records[("www.example.org", "MX")] == (600, ["10 mail.example.net."])
    assert records[("alias.example.org", "CNAME")] == (600, ["elsewhere.example.net."])
    assert ("www.example.org", "CNAME") not in records and ("alias.example.org", "A") not in records
    assert ("cname-www.example.org", "TXT") not in records and ("a-alias.example.org", "TXT") not in records
    assert ("ok.example.org", "A") in records
    assert len(refused(logs)) == 2
