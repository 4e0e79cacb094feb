"""Hostile input on the pdns provider against a real pdns_server: values at DNS's limits (what edge
validation lets through reaches PowerDNS and re-syncs as a no-op; what it refuses never reaches PowerDNS and
never blocks the rest), TXT values over 255 octets (PowerDNS serves them as 255-octet character-strings),
upper-case and Unicode names and targets."""

from __future__ import annotations

from pathlib import Path

import dns.message
import dns.query
import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.limits import MAX_TXT_OCTETS
from external_dns.plan.changes import Changes
from external_dns.providers.pdns import PDNSProvider
from tests.helpers.cli import run_cli
from tests.helpers.endpoints import ep
from tests.servers.pdns import PdnsServer

pytestmark = pytest.mark.integration


def txt_strings(srv: PdnsServer, name: str) -> list[list[bytes]]:
    answer = dns.query.tcp(dns.message.make_query(name, "TXT"), "127.0.0.1", port=srv.dns_port, timeout=5)
    return [list(rd.strings) for rrset in answer.answer for rd in rrset]


def resync_changes(provider: PDNSProvider, desired: list[Endpoint]) -> list[tuple[str, str]]:
    """(name, type) of the desired records whose read-back form differs (what a re-sync would update)."""
    current = {(e.dns_name, e.record_type): sorted(e.targets) for e in provider.records()}
    return [(e.dns_name, e.record_type) for e in provider.adjust_endpoints(desired)
            if current.get((e.dns_name, e.record_type)) != sorted(e.targets)]


def test_txt_over_255_octets_is_served_as_character_strings_and_resyncs_as_noop(
        provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [ep("long.example.org", "TXT", "x" * 300),
               ep("max.example.org", "TXT", "k=" + "y" * (MAX_TXT_OCTETS - 2)),
               ep("split.example.org", "TXT", '"' + "z" * 255 + '" "tail"')]
    provider.apply_changes(Changes(create=provider.adjust_endpoints(desired)))
    assert [[len(s) for s in rd] for rd in txt_strings(pdns, "long.example.org")] == [[255, 45]]
    (big,) = txt_strings(pdns, "max.example.org")
    assert b"".join(big) == b"k=" + b"y" * (MAX_TXT_OCTETS - 2) and max(len(s) for s in big) == 255
    assert txt_strings(pdns, "split.example.org") == [[b"z" * 255, b"tail"]]
    assert resync_changes(provider, desired) == []


def test_upper_case_and_unicode_names_and_targets_resync_as_noop(provider: PDNSProvider, pdns: PdnsServer) -> None:
    desired = [ep("WWW.Example.ORG", "CNAME", "Target.EXAMPLE.net"),
               ep("Mail.Example.ORG", "MX", "10 MX1.Example.NET."),
               ep("Café.Example.org", "A", "192.0.2.7"),
               ep("alias.example.org", "CNAME", "Bücher.Example.NET")]
    provider.apply_changes(Changes(create=provider.adjust_endpoints(desired)))
    records = pdns.records("example.org")
    # Owner names are stored lower case; host names inside contents keep their case (as PowerDNS keeps it).
    assert records[("www.example.org", "CNAME")] == (300, ["Target.EXAMPLE.net."])
    assert records[("mail.example.org", "MX")] == (300, ["10 MX1.Example.NET."])
    assert records[("xn--caf-dma.example.org", "A")] == (300, ["192.0.2.7"])
    assert records[("alias.example.org", "CNAME")][1][0].lower() == "xn--bcher-kva.example.net."
    assert resync_changes(provider, desired) == []


# 251 octets with 63-octet labels: its ownership TXT ('a-' + the name, the prefix joining the first label) is
# 253 octets, the longest name DNS allows.
AT_LIMIT = f"{'d' * 47}.{'a' * 63}.{'b' * 63}.{'c' * 63}.example.org"


def test_only_validated_endpoints_reach_powerdns_and_bad_ones_never_block_the_rest(
        pdns: PdnsServer, tmp_path: Path) -> None:
    bad_label = "x" * 64 + ".example.org"
    (tmp_path / "records.yaml").write_text(f"""\
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata: {{name: edge, namespace: default}}
spec:
  endpoints:
    - {{dnsName: {AT_LIMIT}, recordType: A, targets: [192.0.2.1]}}
    - {{dnsName: big.example.org, recordType: TXT, targets: ["{'t' * MAX_TXT_OCTETS}"]}}
    - {{dnsName: ttl.example.org, recordType: A, recordTTL: 2147483647, targets: [192.0.2.2]}}
    - {{dnsName: {bad_label}, recordType: A, targets: [192.0.2.3]}}
    - {{dnsName: toobig.example.org, recordType: TXT, targets: ["{'t' * (MAX_TXT_OCTETS + 1)}"]}}
    - {{dnsName: badttl.example.org, recordType: A, recordTTL: 2147483648, targets: [192.0.2.4]}}
    - {{dnsName: badip.example.org, recordType: A, targets: [192.0.2.256]}}
    - {{dnsName: "bad name.example.org", recordType: A, targets: [192.0.2.5]}}
""")
    args = ["--once", "--source=manifest", f"--manifest-dir={tmp_path}", "--provider=pdns",
            *pdns.pdns_flags(), "--policy=sync", "--registry=txt", "--txt-owner-id=edge",
            "--domain-filter=example.org", "--managed-record-types=A,TXT"]
    env = {"EXTERNAL_DNS_PDNS_API_KEY": pdns.api_key}
    out = run_cli(args, env=env, expect=None)
    log = out.stdout + out.stderr
    assert out.returncode == 0, log
    records = pdns.records("example.org")
    assert len(AT_LIMIT) == 251
    assert records[(AT_LIMIT, "A")] == (300, ["192.0.2.1"])
    assert ("a-" + AT_LIMIT, "TXT") in records
    assert records[("big.example.org", "TXT")][1] == ['"' + "t" * MAX_TXT_OCTETS + '"']
    assert records[("ttl.example.org", "A")] == (2147483647, ["192.0.2.2"])
    for name in (bad_label, "toobig.example.org", "badttl.example.org", "badip.example.org", "name.example.org"):
        assert not [k for k in records if k[0].endswith(name)], name
    # Each skipped with a warning naming the record or the object's field.
    for named in (bad_label, "toobig.example.org", "badttl.example.org", "spec.endpoints[6].targets",
                  "bad name.example.org"):
        assert named in log, named
    # Everything written re-reads as written: the second run sends nothing.
    mark = pdns.mark()
    again = run_cli(args, env=env)
    assert "All records are already up to date" in again.stdout + again.stderr
    assert [r for r in pdns.requests_since(mark) if r[0] == "PATCH"] == []
