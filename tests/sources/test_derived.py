"""NAT64 A records (--nat64-networks) and PTR records (--create-ptr, the record-type annotation), unit and
through the real CLI into a reverse zone file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import dns.rdatatype
import dns.zone
import pytest
import structlog

from external_dns.endpoint.endpoint import (
    PROVIDER_SPECIFIC_RECORD_TYPE,
    RESOURCE_LABEL_KEY,
    Endpoint,
    new_endpoint,
)
from external_dns.sources.derived import Nat64Source, PtrSource
from external_dns.sources.source import Source

ROOT = Path(__file__).resolve().parents[2]


class Static(Source):
    def __init__(self, endpoints: list[Endpoint]) -> None:
        self.eps = endpoints

    def endpoints(self) -> list[Endpoint]:
        return [e.copy() for e in self.eps]

    def add_event_handler(self, handler: Callable[[], None]) -> None:
        del handler


def ep(name: str, rtype: str, *targets: str, record_type_annotation: str | None = None, ttl: int = 0) -> Endpoint:
    e = new_endpoint(name, rtype, *targets, ttl=ttl)
    assert e is not None
    e.labels[RESOURCE_LABEL_KEY] = f"service/default/{name.split('.')[0]}"
    if record_type_annotation is not None:
        e.set_provider_specific_property(PROVIDER_SPECIFIC_RECORD_TYPE, record_type_annotation)
    return e


def keyed(eps: list[Endpoint]) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name, e.record_type): sorted(e.targets) for e in eps}


# --- NAT64 -----------------------------------------------------------------------------------------------

def test_nat64_adds_the_embedded_ipv4_as_an_a_record() -> None:
    src = Nat64Source(Static([ep("web.example.org", "AAAA", "64:ff9b::c000:20a", "2001:db8::1", ttl=60),
                              ep("other.example.org", "AAAA", "2001:db8::2")]), ["64:ff9b::/96"])
    got = src.endpoints()
    assert keyed(got) == {("web.example.org", "AAAA"): ["2001:db8::1", "64:ff9b::c000:20a"],
                          ("web.example.org", "A"): ["192.0.2.10"],
                          ("other.example.org", "AAAA"): ["2001:db8::2"]}
    a = next(e for e in got if e.record_type == "A")
    assert a.record_ttl == 60 and a.labels[RESOURCE_LABEL_KEY] == "service/default/web"


def test_nat64_network_must_be_a_96() -> None:
    with pytest.raises(ValueError, match="/96"):
        Nat64Source(Static([]), ["64:ff9b::/64"])


# --- PTR -------------------------------------------------------------------------------------------------

MANAGED = ("A", "AAAA", "CNAME", "PTR")


def test_create_ptr_makes_one_ptr_per_address_merging_names() -> None:
    src = PtrSource(Static([ep("a.example.org", "A", "192.0.2.10", ttl=300),
                            ep("b.example.org", "A", "192.0.2.10"),
                            ep("v6.example.org", "AAAA", "2001:db8::1"),
                            ep("*.example.org", "A", "192.0.2.99"),
                            ep("c.example.org", "CNAME", "lb.example.net")]), True, MANAGED)
    ptrs = keyed([e for e in src.endpoints() if e.record_type == "PTR"])
    assert ptrs == {
        ("10.2.0.192.in-addr.arpa", "PTR"): ["a.example.org", "b.example.org"],
        ("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa", "PTR"): ["v6.example.org"],
    }


def test_ptr_records_carry_no_forward_labels_and_the_lowest_ttl() -> None:
    """As Go's PTR wrapper: the ownership TXT of a PTR names no resource (same TXT value as Go writes), and
    names sharing an address give their lowest TTL (an unset one wins). Found by tests/differential."""
    src = PtrSource(Static([ep("a.example.org", "A", "192.0.2.10", ttl=300),
                            ep("b.example.org", "A", "192.0.2.10", ttl=60),
                            ep("c.example.org", "A", "192.0.2.11", ttl=300),
                            ep("d.example.org", "A", "192.0.2.11")]), True, MANAGED)
    ptrs = {e.dns_name: e for e in src.endpoints() if e.record_type == "PTR"}
    assert {name: (e.record_ttl, e.labels) for name, e in ptrs.items()} == {
        "10.2.0.192.in-addr.arpa": (60, {}), "11.2.0.192.in-addr.arpa": (0, {})}


def test_annotation_overrides_the_flag() -> None:
    on = PtrSource(Static([ep("a.example.org", "A", "192.0.2.1", record_type_annotation="ptr"),
                           ep("b.example.org", "A", "192.0.2.2")]), False, MANAGED)
    got = on.endpoints()
    assert [e.dns_name for e in got if e.record_type == "PTR"] == ["1.2.0.192.in-addr.arpa"]
    # The directive is consumed: the A record carries no record-type property to the provider.
    assert all(e.get_provider_specific_property(PROVIDER_SPECIFIC_RECORD_TYPE) is None for e in got)
    off = PtrSource(Static([ep("a.example.org", "A", "192.0.2.1", record_type_annotation=""),
                            ep("b.example.org", "A", "192.0.2.2")]), True, MANAGED)
    assert [e.dns_name for e in off.endpoints() if e.record_type == "PTR"] == ["2.2.0.192.in-addr.arpa"]


@pytest.mark.parametrize(("endpoint", "managed", "message"), [
    (ep("a.example.org", "A", "192.0.2.1", record_type_annotation="ptr"), ("A", "AAAA", "CNAME"),
     "PTR is not in --managed-record-types"),
    (ep("c.example.org", "CNAME", "x.example.net", record_type_annotation="ptr"), MANAGED,
     "only applies to A and AAAA records"),
    (ep("a.example.org", "A", "192.0.2.1", record_type_annotation="srv"), MANAGED, "is not supported"),
])
def test_an_annotation_that_cannot_be_honoured_warns_once(endpoint: Endpoint, managed: tuple[str, ...],
                                                          message: str) -> None:
    src = PtrSource(Static([endpoint]), False, managed)
    with structlog.testing.capture_logs() as logs:
        first = src.endpoints()
        src.endpoints()
    warnings = [entry for entry in logs if entry["log_level"] == "warning"]
    assert len(warnings) == 1 and message in warnings[0]["event"], logs
    assert warnings[0]["resource"] == endpoint.labels[RESOURCE_LABEL_KEY]
    assert not [e for e in first if e.record_type == "PTR"]


# --- the real CLI into a reverse zone ----------------------------------------------------------------------

SERVICES = textwrap.dedent("""\
    apiVersion: v1
    kind: Service
    metadata:
      name: web
      namespace: default
      annotations:
        external-dns.kubernetes.io/hostname: web.example.org
    spec:
      type: LoadBalancer
    status:
      loadBalancer:
        ingress:
          - ip: 192.0.2.10
    ---
    apiVersion: v1
    kind: Service
    metadata:
      name: api
      namespace: default
      annotations:
        external-dns.kubernetes.io/hostname: api.example.org
        external-dns.kubernetes.io/record-type: ""
    spec:
      type: LoadBalancer
    status:
      loadBalancer:
        ingress:
          - ip: 192.0.2.11
    """)


def _zone(path: Path) -> dict[tuple[str, str], list[str]]:
    z = dns.zone.from_file(str(path), origin=None, relativize=False, check_origin=False)
    return {(n.to_text(omit_final_dot=True), dns.rdatatype.to_text(r.rdtype)): sorted(x.to_text() for x in r)
            for n, node in z.nodes.items() for r in node.rdatasets}


@pytest.mark.integration
def test_create_ptr_writes_the_reverse_zone(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "manifests", tmp_path / "zones"
    manifests.mkdir()
    zones.mkdir()
    (manifests / "svc.yaml").write_text(SERVICES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")} | {"PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
         "--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org",
         "--zonefile-create-zone=2.0.192.in-addr.arpa", "--policy=sync", "--create-ptr",
         "--managed-record-types=A,AAAA,CNAME,PTR", "--domain-filter=example.org",
         "--domain-filter=2.0.192.in-addr.arpa"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    reverse = _zone(next(p for p in zones.iterdir() if "in-addr" in p.name))
    assert reverse[("10.2.0.192.in-addr.arpa", "PTR")] == ["web.example.org."]
    assert ("11.2.0.192.in-addr.arpa", "PTR") not in reverse  # opted out by the empty annotation
    # Owned like any record: its ownership TXT sits beside it in the reverse zone.
    assert any(t == "TXT" and "10.2.0.192" in n for n, t in reverse)


@pytest.mark.integration
def test_create_ptr_through_rfc2136_into_a_bind_reverse_zone(tmp_path: Path) -> None:
    """The PTR record lands in the reverse zone BIND serves, is read back by AXFR and plans nothing next time."""
    from tests.servers.bind import running_bind

    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "svc.yaml").write_text(SERVICES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")} | {"PYTHONPATH": str(ROOT)}
    with running_bind(zones=("example.org", "2.0.192.in-addr.arpa"), with_tls=False) as srv:
        env["EXTERNAL_DNS_RFC2136_TSIG_SECRET"] = srv.key_secret
        argv = [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
                "--provider=rfc2136", f"--rfc2136-host={srv.host}", f"--rfc2136-port={srv.port}",
                "--rfc2136-zone=example.org", "--rfc2136-zone=2.0.192.in-addr.arpa",
                f"--rfc2136-tsig-keyname={srv.key_name}", f"--rfc2136-tsig-secret-alg={srv.key_algorithm}",
                "--rfc2136-tsig-axfr", "--policy=sync", "--create-ptr", "--managed-record-types=A,AAAA,CNAME,PTR",
                "--domain-filter=example.org", "--domain-filter=2.0.192.in-addr.arpa"]
        first = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
        assert first.returncode == 0, first.stderr
        assert srv.rrset("10.2.0.192.in-addr.arpa", "PTR") is not None
        assert srv.rrset("10.2.0.192.in-addr.arpa", "PTR")[1] == ["web.example.org."]  # type: ignore[index]
        assert srv.rrset("11.2.0.192.in-addr.arpa", "PTR") is None
        serials = [srv.rrset(zone, "SOA") for zone in srv.zones]
        second = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
        assert second.returncode == 0, second.stderr
        # Nothing planned, nothing sent: no zone's serial moved.
        assert [srv.rrset(zone, "SOA") for zone in srv.zones] == serials
        # The forward record goes: its PTR record and the PTR's ownership TXT leave BIND's reverse zone too.
        def reverse_txt() -> list[str]:
            return [n for n, t, _, _ in srv.axfr("2.0.192.in-addr.arpa") if t == "TXT" and "10.2.0.192" in n]

        assert reverse_txt()
        (manifests / "svc.yaml").write_text(SERVICES.split("---\n")[1])
        # the reverse zone loses every record we own there: a wipe, which needs --force
        third = subprocess.run([*argv, "--force"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
        assert third.returncode == 0, third.stderr
        assert srv.rrset("10.2.0.192.in-addr.arpa", "PTR") is None
        assert srv.rrset("web.example.org", "A") is None and srv.rrset("api.example.org", "A") is not None
        assert not reverse_txt()


# --- deletes: the PTR record (and its ownership TXT) goes when its forward record goes ---------------------

def _once(manifests: Path, zones: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")} | {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
         "--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org",
         "--zonefile-create-zone=2.0.192.in-addr.arpa", "--policy=sync", "--create-ptr",
         "--managed-record-types=A,AAAA,CNAME,PTR", "--domain-filter=example.org",
         "--domain-filter=2.0.192.in-addr.arpa", "--txt-owner-id=ptr-test", *extra],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)


@pytest.mark.integration
def test_ptr_and_its_ownership_txt_are_deleted_with_the_forward_record(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "manifests", tmp_path / "zones"
    manifests.mkdir()
    zones.mkdir()
    (manifests / "svc.yaml").write_text(SERVICES)
    first = _once(manifests, zones)
    assert first.returncode == 0, first.stderr
    reverse_file = next(p for p in zones.iterdir() if "in-addr" in p.name and p.name.endswith(".zone"))
    before = _zone(reverse_file)
    assert before[("10.2.0.192.in-addr.arpa", "PTR")] == ["web.example.org."]
    owned = [(n, t) for n, t in before if t == "TXT" and "10.2.0.192" in n]
    assert owned and all("ptr-test" in " ".join(before[k]) for k in owned)
    # The Service "web" goes: its A record, its PTR record and both ownership TXT records go with it.
    (manifests / "svc.yaml").write_text(SERVICES.split("---\n")[1])
    second = _once(manifests, zones, "--force")  # the reverse zone's last record we own: a wipe
    assert second.returncode == 0, second.stderr
    after = _zone(reverse_file)
    assert not [k for k in after if "10.2.0.192" in k[0]], after
    forward = _zone(next(p for p in zones.iterdir() if p.name.startswith("example.org")))
    assert ("web.example.org", "A") not in forward and ("api.example.org", "A") in forward


def test_create_ptr_through_the_pipeline_into_inmemory_reverse_zone(tmp_path: Path) -> None:
    """--create-ptr with the inmemory provider: the PTR record is created in the managed reverse zone, a second
    pass plans nothing, and it is deleted when the forward record goes."""
    from external_dns.cmd.config import load_config
    from external_dns.cmd.wiring import build_controller

    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "svc.yaml").write_text(SERVICES)
    _, cfg = load_config(["--source=manifest", f"--manifest-dir={manifests}", "--provider=inmemory",
                          "--inmemory-zone=example.org", "--inmemory-zone=2.0.192.in-addr.arpa", "--policy=sync",
                          "--create-ptr", "--managed-record-types=A,AAAA,CNAME,PTR",
                          "--force"], {})  # the last pass empties the reverse zone of what we own: a wipe
    controller = build_controller(cfg, {})
    provider = controller.registry.provider

    def records() -> dict[tuple[str, str], list[str]]:
        return {(e.dns_name, e.record_type): sorted(e.targets) for e in provider.records()}

    controller.run_once()
    assert records()[("10.2.0.192.in-addr.arpa", "PTR")] == ["web.example.org"]
    assert ("11.2.0.192.in-addr.arpa", "PTR") not in records()
    ptr_txt = [k for k in records() if k[1] == "TXT" and "10.2.0.192" in k[0]]
    assert len(ptr_txt) == 1
    first = records()
    controller.run_once()
    assert records() == first  # nothing planned the second time
    (manifests / "svc.yaml").write_text(SERVICES.split("---\n")[1])
    controller.run_once()
    assert not [k for k in records() if "10.2.0.192" in k[0] or k[0].startswith("web.")], records()


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[object, str, str, str]] = []

    def event(self, obj: object, type_: str, reason: str, note: str) -> bool:
        self.events.append((obj, type_, reason, note))
        return True


def test_a_directive_that_cannot_be_honoured_is_an_event_on_its_object_once() -> None:
    from external_dns.sources.derived import attach_recorder
    from external_dns.sources.wrappers import MultiSource

    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "default"}}
    endpoint = ep("a.example.org", "A", "192.0.2.1", record_type_annotation="ptr")
    endpoint.ref_objects.append(svc)
    bare = ep("b.example.org", "A", "192.0.2.2", record_type_annotation="ptr")  # no object: log line only
    ptr = PtrSource(Static([endpoint, bare]), False, ("A", "AAAA", "CNAME"))
    recorder = _Recorder()
    attach_recorder(MultiSource([ptr]), recorder)  # found through the wrappers around it
    ptr.endpoints()
    ptr.endpoints()
    assert len(recorder.events) == 1
    obj, type_, reason, note = recorder.events[0]
    assert obj is svc and (type_, reason) == ("Warning", "RecordError")
    assert "a.example.org" in note and "PTR is not in --managed-record-types" in note


@pytest.mark.integration
def test_nat64_networks_through_the_cli_write_the_a_record_beside_the_aaaa(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "manifests", tmp_path / "zones"
    manifests.mkdir()
    zones.mkdir()
    (manifests / "svc.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Service
        metadata:
          name: v6
          namespace: default
          annotations:
            external-dns.kubernetes.io/hostname: v6.example.org
        spec:
          type: LoadBalancer
        status:
          loadBalancer:
            ingress:
              - ip: 64:ff9b::c000:20a
        """))
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXTERNAL_DNS_")} | {"PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "external_dns", "--once", "--source=manifest", f"--manifest-dir={manifests}",
            "--provider=zonefile", f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org",
            "--policy=sync", "--nat64-networks=64:ff9b::/96"]
    run = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    zone = _zone(next(zones.glob("example.org*")))
    assert zone[("v6.example.org", "AAAA")] == ["64:ff9b::c000:20a"]
    assert zone[("v6.example.org", "A")] == ["192.0.2.10"]
    again = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60, check=False)
    assert again.returncode == 0 and _zone(next(zones.glob("example.org*"))) == zone
