"""Property: records this owner did not write are never touched, on every provider with a real server (zone
files, BIND through RFC2136, PowerDNS, Route53 on moto). Each example puts hand-made records of every type into
the zone through the server's own means (a line of the zone file, an UPDATE, a PowerDNS PATCH, a Route53
change), at the names that collide with ours: the desired records' names, their ownership TXT names, wildcard
names, names that begin with a record type word, the apex; then syncs desired endpoints beside them (the TXT
registry, `sync`, all types or only A/AAAA/CNAME managed, so both the plan and the providers' own checks are
exercised), then syncs nothing. After every run each hand-made record set is exactly as it was (name, type,
TTL and every value as the server gives them back), and after the last one nothing of ours is left.

A hand-made record the server itself refuses to hold (a CNAME beside other data, data below a DNAME) is simply
not part of the example. Budget: `HYPOTHESIS_MAX_EXAMPLES` (default 25: about 6 s a provider on 2 cores) per provider; derandomized in
CI.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import boto3
import dns.message
import dns.query
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.zone
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from external_dns.controller.controller import RunOnceError
from external_dns.endpoint.endpoint import DEFAULT_MANAGED_RECORD_TYPES, KNOWN_RECORD_TYPES, Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.providers.aws import AWSConfig, AWSProvider
from external_dns.providers.pdns import PDNSConfig, PDNSProvider
from external_dns.providers.provider import Provider
from external_dns.providers.rfc2136 import RFC2136Config, RFC2136Provider
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.registry.mapper import AffixNameMapper
from tests.helpers.sync import sync
from tests.hostile.helpers import checkzone
from tests.servers.bind import BindServer
from tests.servers.moto import reset as moto_reset
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration

MAX_EXAMPLES = int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "25"))
CI = os.environ.get("CI") == "true"
ZONE = "example.org"
OWNER = "prop-owner"
Key = tuple[str, str]  # (lower-case name without the dot, type)
Held = dict[Key, tuple[int, tuple[str, ...]]]  # what a server holds: TTL and sorted values as it gives them

# -- what is generated -----------------------------------------------------------------------------------------
LABELS = ["www", "app", "a", "aaaa", "cname", "txt", "mx", "a-www", "cname-app", "aaaa-www", "txt-a", "star",
          "_sip._tcp", "x1", "mail"]
_n = itertools.count(1)


def _value(rtype: str, i: int) -> str:
    """A value of `rtype` every server holds, in zone-file presentation (absolute names)."""
    return {
        "A": f"192.0.2.{i % 250 + 1}", "AAAA": f"2001:db8::{i % 9000 + 1:x}", "CNAME": f"t{i}.example.net.",
        "TXT": ['"v=spf1 -all"', '"heritage=external-dns,external-dns/owner=someone-else"',
                '"' + "x" * 255 + '" "rest"', f'"hand {i}"'][i % 4],
        "MX": f"{i % 50} mail{i}.example.net.", "SRV": f"1 2 {5000 + i % 1000} sip{i}.example.net.",
        "NS": f"ns{i}.example.net.", "PTR": f"host{i}.example.net.", "CAA": '0 issue "letsencrypt.org"',
        "NAPTR": f'{i % 100} 10 "u" "E2U+sip" "!^.*$!sip:x{i}@example.org!" .', "DNAME": f"d{i}.example.net.",
    }[rtype]


@dataclass(frozen=True)
class Hand:
    """A hand-made record set: absolute name (no dot), type, TTL, values in presentation form."""

    name: str
    rtype: str
    ttl: int
    values: tuple[str, ...]

    @property
    def key(self) -> Key:
        return (self.name.lower(), self.rtype)


@st.composite
def examples(draw: st.DrawFn, types: Sequence[str]) -> tuple[list[Endpoint], list[Hand], tuple[str, ...]]:
    """(desired endpoints, hand-made record sets, managed types)."""
    names = [f"{label}.{ZONE}" for label in draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=4,
                                                          unique=True))]
    desired: list[Endpoint] = []
    for name in names:
        rtype = draw(st.sampled_from(["A", "A", "AAAA", "CNAME", "TXT", "MX"]))
        i = next(_n)
        target = _value(rtype, i).rstrip(".") if rtype not in ("TXT",) else f"ours {i}"
        desired.append(Endpoint(dns_name=name, record_type=rtype, targets=Targets([target]),
                                record_ttl=draw(st.sampled_from([0, 300]))))
    mapper = AffixNameMapper()
    pool = [*names, *(mapper.to_txt_name(ep.dns_name, ep.record_type) for ep in desired),
            *(mapper.to_txt_name(n, t) for n in names for t in ("A", "CNAME")),
            f"*.{ZONE}", f"*.sub.{ZONE}", f"aaaa.{ZONE}", f"a.{ZONE}", f"cname-x.{ZONE}", ZONE]
    hands: list[Hand] = []
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(pool))
        rtype = draw(st.sampled_from(types))
        if name == ZONE and rtype in ("NS", "CNAME", "DNAME"):
            continue  # the apex's own name servers, and no alias at the apex
        count = 1 if rtype in ("CNAME", "DNAME") else draw(st.integers(1, 2))
        values = tuple(dict.fromkeys(_value(rtype, next(_n)) for _ in range(count)))
        hands.append(Hand(name, rtype, draw(st.sampled_from([60, 300, 3600, 86400])), values))
    managed = draw(st.sampled_from([tuple(DEFAULT_MANAGED_RECORD_TYPES), tuple(KNOWN_RECORD_TYPES)]))
    return desired, list({h.key: h for h in hands}.values()), managed


# -- the servers -----------------------------------------------------------------------------------------------
class Harness(Protocol):
    def reset(self) -> None: ...

    def install(self, hand: Hand) -> bool:
        """Put the record set in as a person would; False when the server will not hold it."""

    def held(self) -> Held:
        """Every record set of the zone (the server's SOA and apex NS and the like left out)."""

    def provider(self) -> Provider: ...


class ZoneFileHarness:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / f"{ZONE}.zone"

    def reset(self) -> None:
        self.path.write_text(f"$ORIGIN {ZONE}.\n@ 3600 IN SOA ns.example.net. hostmaster.{ZONE}. 1 3600 600 86400 300\n"
                             "@ 3600 IN NS ns.example.net.\n")

    def install(self, hand: Hand) -> bool:
        before = self.path.read_text()
        self.path.write_text(before + "".join(f"{hand.name}. {hand.ttl} IN {hand.rtype} {v}\n" for v in hand.values))
        if self.load_problem():  # not a zone BIND would load (a CNAME beside other data, a wildcard NS): not part of the example
            self.path.write_text(before)
            return False
        return True

    def held(self) -> Held:
        zone = dns.zone.from_file(str(self.path), origin=ZONE, relativize=False)
        return {(str(name).rstrip(".").lower(), dns.rdatatype.to_text(rds.rdtype)):
                (rds.ttl, tuple(sorted(rd.to_text() for rd in rds)))
                for name, node in zone.nodes.items() for rds in node.rdatasets
                if not (str(name).rstrip(".") == ZONE and rds.rdtype in (dns.rdatatype.SOA, dns.rdatatype.NS))}

    def provider(self) -> Provider:
        return ZoneFileProvider(str(self.directory))

    def load_problem(self) -> str:
        """What named-checkzone says against the zone file ("" when it loads)."""
        check = checkzone(ZONE, self.path)
        return "" if check.returncode == 0 else check.stdout + check.stderr


class BindHarness:
    def __init__(self, srv: BindServer) -> None:
        self.srv = srv

    def reset(self) -> None:
        self.srv.reset()

    def install(self, hand: Hand) -> bool:
        upd = self.srv.update(ZONE)
        for v in hand.values:
            upd.add(hand.name + ".", hand.ttl, hand.rtype, v)
        answer = dns.query.tcp(upd, self.srv.host, port=self.srv.port, timeout=10)
        if answer.rcode() != dns.rcode.NOERROR:
            return False
        return (hand.name.lower(), hand.rtype) in self.held()  # BIND ignores some adds (CNAME beside data)

    def held(self) -> Held:
        return {(n.lower(), t): (ttl, tuple(sorted(values))) for n, t, ttl, values in self.srv.axfr(ZONE)
                if not (n == ZONE and t in ("SOA", "NS")) and not (n == f"ns1.{ZONE}" and t == "A")}

    def provider(self) -> Provider:
        srv = self.srv
        return RFC2136Provider(RFC2136Config(hosts=(srv.host,), port=srv.port, zones=srv.zones,
                                             tsig_keyname=srv.key_name, tsig_secret=srv.key_secret,
                                             tsig_secret_alg=srv.key_algorithm, axfr=True, timeout=5.0))


class PdnsHarness:
    def __init__(self, srv: PdnsServer) -> None:
        self.srv = srv

    def reset(self) -> None:
        self.srv.reset()

    def install(self, hand: Hand) -> bool:
        status, _ = self.srv.api("PATCH", f"/zones/{ZONE}.", {"rrsets": [{
            "name": hand.name + ".", "type": hand.rtype, "ttl": hand.ttl, "changetype": "REPLACE",
            "records": [{"content": v, "disabled": False} for v in hand.values]}]})
        return status < 300

    def held(self) -> Held:
        return {(n.lower(), t): (int(r["ttl"]), tuple(sorted(x["content"] for x in r["records"])))
                for (n, t), r in self.srv.rrsets(ZONE).items() if not (n == ZONE and t in ("SOA", "NS"))}

    def provider(self) -> Provider:
        return PDNSProvider(PDNSConfig(server=self.srv.url, api_key=self.srv.api_key, retry_base=0.01,
                                       zones_cache_seconds=0.0))


class Route53Harness:
    def __init__(self, url: str) -> None:
        self.url = url
        self.client: Any = boto3.client("route53", endpoint_url=url)
        self.zone_id = ""

    def reset(self) -> None:
        moto_reset(self.url)
        zone = self.client.create_hosted_zone(Name=ZONE, CallerReference=f"ref-{next(_n)}")
        self.zone_id = zone["HostedZone"]["Id"].rsplit("/", 1)[-1]

    def install(self, hand: Hand) -> bool:
        change: dict[str, Any] = {"Action": "CREATE", "ResourceRecordSet": {
            "Name": hand.name + ".", "Type": hand.rtype, "TTL": hand.ttl,
            "ResourceRecords": [{"Value": v} for v in hand.values]}}
        try:
            self.client.change_resource_record_sets(HostedZoneId=self.zone_id, ChangeBatch={"Changes": [change]})
        except self.client.exceptions.ClientError:
            return False
        return True

    def held(self) -> Held:
        out: Held = {}
        kwargs: dict[str, Any] = {"HostedZoneId": self.zone_id}
        while True:
            page = self.client.list_resource_record_sets(**kwargs)
            for r in page["ResourceRecordSets"]:
                name = r["Name"].rstrip(".").replace("\\052", "*").lower()
                if name == ZONE and r["Type"] in ("SOA", "NS"):
                    continue
                values = tuple(sorted(v["Value"] for v in r.get("ResourceRecords", [])))
                out[(name, r["Type"])] = (int(r.get("TTL", 0)), (*values, repr(r.get("AliasTarget"))))
            if not page["IsTruncated"]:
                return out
            kwargs.update(StartRecordName=page["NextRecordName"], StartRecordType=page["NextRecordType"])

    def provider(self) -> Provider:
        return AWSProvider(AWSConfig(batch_change_interval=0.0, endpoint_url=self.url))


# -- the property ----------------------------------------------------------------------------------------------
def _sync(provider: Provider, desired: Sequence[Endpoint], managed: Sequence[str]) -> None:
    try:
        sync(provider, desired, managed, OWNER)
    except RunOnceError as exc:  # a refusal of the server (e.g. BIND's integrity checks): not the property's concern
        event(f"sync failed: {type(exc.__cause__).__name__}")


def check_foreign_untouched(harness: Harness, desired: list[Endpoint], hands: list[Hand],
                            managed: Sequence[str]) -> None:
    harness.reset()
    base = harness.held()
    installed = [h for h in hands if harness.install(h)]
    event(f"hand-made record sets installed: {len(installed)}")
    before = harness.held()
    mine = {k: v for k, v in before.items() if k in {h.key for h in installed}}
    assert len(mine) == len(installed), (installed, before)
    provider = harness.provider()
    for step in (desired, desired, []):
        _sync(provider, step, managed)
        after = harness.held()
        changed = {k: (v, after.get(k)) for k, v in mine.items() if after.get(k) != v}
        assert not changed, f"hand-made record sets changed by a sync of {len(step)} endpoint(s): {changed}"
        if isinstance(harness, ZoneFileHarness):
            assert not harness.load_problem(), harness.load_problem()
    left = {k: v for k, v in harness.held().items() if k not in mine and k not in base}
    assert not left, f"records of ours left after a sync of nothing: {left}"


SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=CI,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
ZONEFILE_TYPES = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA", "NAPTR", "DNAME"]
ROUTE53_TYPES = ["A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA", "NAPTR"]


@SETTINGS
@given(example=examples(ZONEFILE_TYPES))
def test_zonefile_leaves_hand_made_records_alone(tmp_path_factory: pytest.TempPathFactory,
                                                example: tuple[list[Endpoint], list[Hand], tuple[str, ...]]) -> None:
    check_foreign_untouched(ZoneFileHarness(tmp_path_factory.mktemp("zones")), *example)


@SETTINGS
@given(example=examples(ZONEFILE_TYPES))
def test_rfc2136_leaves_hand_made_records_alone(bind_server: BindServer,
                                               example: tuple[list[Endpoint], list[Hand], tuple[str, ...]]) -> None:
    check_foreign_untouched(BindHarness(bind_server), *example)


@SETTINGS
@given(example=examples(ZONEFILE_TYPES))
def test_pdns_leaves_hand_made_records_alone(pdns_server: PdnsServer,
                                            example: tuple[list[Endpoint], list[Hand], tuple[str, ...]]) -> None:
    check_foreign_untouched(PdnsHarness(pdns_server), *example)


@SETTINGS
@given(example=examples(ROUTE53_TYPES))
def test_route53_leaves_hand_made_records_alone(moto_server: str,
                                               example: tuple[list[Endpoint], list[Hand], tuple[str, ...]]) -> None:
    check_foreign_untouched(Route53Harness(moto_server), *example)

