"""The differential scenarios: objects on the API server, the zone they start from, the flags both programs run
with, and a change made after the first two runs.

Every scenario runs the same way (tests/differential/test_same_records.py): both programs `--once` -> the zones
compared record by record; both again -> nothing sent (SOA serials unchanged) and still the same; the change ->
both once more -> compared again. Zones on both servers: example.org, example.com, sub.example.org and the
reverse zone 2.0.192.in-addr.arpa (192.0.2.0/24).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tests.differential.cluster import Obj
from tests.differential.objects import dns_endpoint, endpoint_slice, ingress, node, pod, service
from tests.differential.zones import Record

ZONES = ("example.org", "example.com", "sub.example.org", "2.0.192.in-addr.arpa")
AES_KEY = b"0123456789abcdef0123456789abcdef"  # 32 bytes: used raw by both programs


@dataclass(frozen=True)
class Change:
    """Objects to create or replace, and objects to delete."""

    put: Sequence[Obj] = ()
    delete: Sequence[Obj] = ()


@dataclass(frozen=True)
class Scenario:
    id: str
    objects: Callable[[str], list[Obj]]  # namespace -> objects
    change: Callable[[str], Change]
    sources: tuple[str, ...] = ("service",)
    flags: tuple[str, ...] = ()
    policy: str = "sync"
    seed: tuple[Record, ...] = ()  # records in both zones before the first run
    aes_key: bytes | None = None  # ownership TXT values compared decrypted
    owner: str = "diff"
    # a difference kept on purpose (docs/migrating.md, the anchor): asserted by test_kept_differences.py
    kept: str = ""

    def program_flags(self) -> list[str]:
        return ["--once", *(f"--source={s}" for s in self.sources), "--registry=txt",
                f"--txt-owner-id={self.owner}", f"--policy={self.policy}", "--log-level=debug", *self.flags]


def owned_txt(name: str, rtype: str, resource: str, owner: str = "other") -> Record:
    """An ownership TXT record as external-dns writes it (no prefix: `<type>-<name>`)."""
    first, _, rest = name.partition(".")
    return Record(f"{rtype.lower()}-{first}.{rest}", "TXT", 300,
                  f'"heritage=external-dns,external-dns/owner={owner},external-dns/resource={resource}"')


# -- building blocks ---------------------------------------------------------------------------------------
def lb(ns: str, name: str, host: str, ips: Sequence[str] = (), hostnames: Sequence[str] = (),
       **annotations: str) -> Obj:
    return service(ns, name, annotations={"hostname": host, **annotations}, lb_ips=ips, lb_hostnames=hostnames)


def nodes() -> list[Obj]:
    return [node("diff-n1", external=["203.0.113.1"], internal=["10.10.0.1"]),
            node("diff-n2", external=["203.0.113.2"], internal=["10.10.0.2"])]


def headless_db(ns: str, ready_1: bool = True, hostnames: bool = True) -> list[Obj]:
    labels = {"app": "db"}
    pods = [pod(ns, f"db-{i}", f"10.20.0.{10 + i}", f"diff-n{i + 1}", f"10.10.0.{i + 1}", labels,
                hostname=f"db-{i}" if hostnames else "", subdomain="db") for i in range(2)]
    eps = [{"ip": f"10.20.0.{10 + i}", "hostname": f"db-{i}", "pod": f"db-{i}", "node": f"diff-n{i + 1}",
            "ready": ready_1 or i == 0} for i in range(2)]
    return [*nodes(), *pods,
            service(ns, "db", kind="ClusterIP", headless=True, annotations={"hostname": "db.example.org"},
                    selector=labels),
            endpoint_slice(ns, "db", eps)]


def two_services(ns: str, first_ip: str = "192.0.2.10", with_second: bool = True) -> list[Obj]:
    objs = [lb(ns, "web", "web.example.org", [first_ip])]
    if with_second:
        objs.append(lb(ns, "api", "api.example.org", ["192.0.2.20"]))
    return objs


def update_and_delete(ns: str) -> Change:
    """The change the policy scenarios make: web's IP changes, api goes, shop comes."""
    return Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.11"]),
                       lb(ns, "shop", "shop.example.org", ["192.0.2.30"])],
                  delete=[lb(ns, "api", "api.example.org", ["192.0.2.20"])])


def policy_scenario(policy: str) -> Scenario:
    return Scenario(f"policy-{policy}", two_services, update_and_delete, policy=policy)


def txt_scenario(id_: str, *flags: str, aes_key: bytes | None = None) -> Scenario:
    return Scenario(id_, lambda ns: [*two_services(ns), lb(ns, "alias", "alias.example.org",
                                                          hostnames=["lb-1.elb.example.net"])],
                    update_and_delete, flags=flags, aes_key=aes_key)


def _nodeport(ns: str, **annotations: str) -> Obj:
    return service(ns, "np", kind="NodePort", annotations={"hostname": "np.example.org", **annotations})


def _ingress_change(ns: str) -> Change:
    return Change(put=[ingress(ns, "shop", hosts=["a.example.org", "c.example.org"], lb_ips=["192.0.2.41"])])


# -- the scenarios -----------------------------------------------------------------------------------------
SCENARIOS: tuple[Scenario, ...] = (
    # Services of every type
    Scenario("service-loadbalancer-ip", lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"])],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.11"])])),
    Scenario("service-loadbalancer-hostname",
             lambda ns: [lb(ns, "web", "web.example.org", hostnames=["lb-1.elb.example.net"])],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", hostnames=["lb-2.elb.example.net"])])),
    Scenario("service-loadbalancer-dual-stack-two-names",
             lambda ns: [lb(ns, "web", "web.example.org,web.example.com", ["192.0.2.10", "2001:db8::10"])],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.10", "2001:db8::11"])])),
    Scenario("service-nodeport", lambda ns: [*nodes(), _nodeport(ns)],
             lambda ns: Change(put=[node("diff-n3", external=["203.0.113.3"], internal=["10.10.0.3"])])),
    Scenario("service-nodeport-srv", lambda ns: [*nodes(), _nodeport(ns)],
             lambda ns: Change(delete=[nodes()[1]]),
             flags=("--managed-record-types=A", "--managed-record-types=AAAA", "--managed-record-types=CNAME",
                    "--managed-record-types=SRV")),
    Scenario("service-clusterip-not-published",
             lambda ns: [service(ns, "int", kind="ClusterIP", annotations={"hostname": "int.example.org"})],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.10"])])),
    Scenario("service-clusterip-publish-internal",
             lambda ns: [service(ns, "int", kind="ClusterIP", annotations={"hostname": "int.example.org"})],
             lambda ns: Change(delete=[service(ns, "int", kind="ClusterIP")]),
             flags=("--publish-internal-services",)),
    Scenario("service-headless-pod-hostnames", headless_db,
             lambda ns: Change(put=[headless_db(ns, ready_1=False)[-1]])),
    Scenario("service-headless-not-ready-published", lambda ns: headless_db(ns, ready_1=False),
             lambda ns: Change(put=[headless_db(ns)[-1]]), flags=("--always-publish-not-ready-addresses",)),
    Scenario("service-headless-host-ip", headless_db, lambda ns: Change(put=[headless_db(ns, ready_1=False)[-1]]),
             flags=("--publish-host-ip",)),
    Scenario("service-externalname",
             lambda ns: [service(ns, "ext", kind="ExternalName", external_name="backend.example.net",
                                 annotations={"hostname": "ext.example.org"})],
             lambda ns: Change(put=[service(ns, "ext", kind="ExternalName", external_name="other.example.net",
                                            annotations={"hostname": "ext.example.org"})])),
    # Ingress
    Scenario("ingress-rules",
             lambda ns: [ingress(ns, "shop", hosts=["a.example.org", "b.example.org"], lb_ips=["192.0.2.40"])],
             _ingress_change, sources=("ingress",)),
    Scenario("ingress-tls-hosts",
             lambda ns: [ingress(ns, "shop", hosts=["www.example.org"], tls_hosts=["www.example.org",
                                                                                   "secure.example.org"],
                                 lb_hostnames=["ing.elb.example.net"])],
             _ingress_change, sources=("ingress",)),
    Scenario("ingress-class",
             lambda ns: [ingress(ns, "pub", hosts=["pub.example.org"], ingress_class="nginx", lb_ips=["192.0.2.40"]),
                         ingress(ns, "priv", hosts=["priv.example.org"], ingress_class="internal",
                                 lb_ips=["192.0.2.50"])],
             lambda ns: Change(put=[ingress(ns, "priv", hosts=["priv.example.org"], ingress_class="nginx",
                                            lb_ips=["192.0.2.50"])]),
             sources=("ingress",), flags=("--ingress-class=nginx",)),
    Scenario("ingress-and-service-hostname-annotation",
             lambda ns: [ingress(ns, "shop", hosts=["a.example.org"], annotations={"hostname": "extra.example.org"},
                                 lb_ips=["192.0.2.40"]),
                         lb(ns, "web", "web.example.org", ["192.0.2.10"])],
             _ingress_change, sources=("ingress", "service")),
    # DNSEndpoint
    Scenario("dnsendpoint",
             lambda ns: [dns_endpoint(ns, "records", [
                 {"dnsName": "multi.example.org", "recordType": "A", "targets": ["192.0.2.1", "192.0.2.2"],
                  "recordTTL": 120},
                 {"dnsName": "v6.example.org", "recordType": "AAAA", "targets": ["2001:db8::1"]},
                 {"dnsName": "alias.example.com", "recordType": "CNAME", "targets": ["multi.example.org"]},
                 {"dnsName": "txt.example.org", "recordType": "TXT", "targets": ["hello"]}])],
             lambda ns: Change(put=[dns_endpoint(ns, "records", [
                 {"dnsName": "multi.example.org", "recordType": "A", "targets": ["192.0.2.1"], "recordTTL": 300},
                 {"dnsName": "alias.example.com", "recordType": "CNAME", "targets": ["v6.example.org"]}])]),
             sources=("crd",)),
    # Annotations
    Scenario("annotation-target",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"], target="198.51.100.5"),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"], target="edge.example.net")],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.10"], target="198.51.100.6")])),
    Scenario("annotation-ttl",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"], ttl="60"),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"], ttl="2m")],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.10"], ttl="300"),
                                    lb(ns, "api", "api.example.org", ["192.0.2.20"])])),
    Scenario("annotation-set-identifier",
             lambda ns: [lb(ns, "eu", "geo.example.org", ["192.0.2.10"], **{"set-identifier": "eu"}),
                         lb(ns, "us", "geo.example.org", ["192.0.2.20"], **{"set-identifier": "us"})],
             lambda ns: Change(delete=[lb(ns, "us", "geo.example.org")]),
             kept="set-identifiers-on-rfc2136"),
    Scenario("annotation-record-type-ptr",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"], **{"record-type": "ptr"}),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"])],
             lambda ns: Change(put=[lb(ns, "web", "web.example.org", ["192.0.2.12"], **{"record-type": "ptr"})]),
             flags=("--managed-record-types=A", "--managed-record-types=AAAA", "--managed-record-types=CNAME",
                    "--managed-record-types=PTR")),
    Scenario("annotation-internal-hostname",
             lambda ns: [service(ns, "int", kind="ClusterIP", annotations={"internal-hostname": "int.example.org"}),
                         lb(ns, "web", "web.example.org", ["192.0.2.10"],
                            **{"internal-hostname": "web-int.example.org"})],
             lambda ns: Change(delete=[service(ns, "int", kind="ClusterIP")])),
    Scenario("annotation-controller",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"], controller="dns-controller"),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"], controller="someone-else")],
             lambda ns: Change(put=[lb(ns, "api", "api.example.org", ["192.0.2.20"], controller="dns-controller")])),
    Scenario("annotation-access",
             lambda ns: [*nodes(), _nodeport(ns, access="private"),
                         service(ns, "np2", kind="NodePort", annotations={"hostname": "np2.example.org",
                                                                          "access": "public"})],
             lambda ns: Change(put=[_nodeport(ns, access="public")])),
    # Templates
    Scenario("fqdn-template",
             lambda ns: [service(ns, "web", lb_ips=["192.0.2.10"]),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"])],
             lambda ns: Change(put=[service(ns, "shop", lb_ips=["192.0.2.30"])]),
             flags=("--fqdn-template={{.Name}}.{{.Namespace}}.example.com",)),
    Scenario("fqdn-template-combined",
             lambda ns: [service(ns, "web", lb_ips=["192.0.2.10"]),
                         lb(ns, "api", "api.example.org", ["192.0.2.20"])],
             lambda ns: Change(delete=[service(ns, "web")]),
             flags=("--fqdn-template={{.Name}}.example.com", "--combine-fqdn-annotation")),
    Scenario("fqdn-template-ignore-hostname",
             lambda ns: [lb(ns, "api", "api.example.org", ["192.0.2.20"])],
             lambda ns: Change(put=[lb(ns, "api", "api.example.org", ["192.0.2.21"])]),
             flags=("--fqdn-template={{.Name}}.example.com", "--ignore-hostname-annotation")),
    # --target-template: checked, then applied by neither program to Services and Ingresses
    Scenario("target-template",
             lambda ns: [service(ns, "web", lb_ips=["192.0.2.10"]), ingress(ns, "shop", lb_ips=["192.0.2.40"])],
             lambda ns: Change(put=[service(ns, "cart", lb_ips=["192.0.2.30"])]),
             sources=("service", "ingress"),
             flags=("--fqdn-template={{.Name}}.example.org", "--target-template={{.Name}}.targets.example.net")),
    # host:target pairs: the Service takes them (before --fqdn-template), the Ingress does not
    Scenario("fqdn-target-template",
             lambda ns: [service(ns, "web", lb_ips=["192.0.2.10"]), ingress(ns, "shop", lb_ips=["192.0.2.40"])],
             lambda ns: Change(put=[service(ns, "cart", lb_ips=["192.0.2.30"])]),
             sources=("service", "ingress"),
             flags=("--fqdn-template={{.Name}}.example.org",
                    "--fqdn-target-template={{.Name}}.pairs.example.org:192.0.2.99"),
             kept="fqdn-target-template-pairs-name-their-object"),
    # Domain filters
    Scenario("domain-filter",
             lambda ns: [lb(ns, "a", "a.example.org", ["192.0.2.1"]), lb(ns, "b", "b.example.com", ["192.0.2.2"]),
                         lb(ns, "c", "c.sub.example.org", ["192.0.2.3"])],
             lambda ns: Change(put=[lb(ns, "b", "b.example.org", ["192.0.2.2"])]),
             flags=("--domain-filter=example.org",)),
    Scenario("exclude-domains",
             lambda ns: [lb(ns, "a", "a.example.org", ["192.0.2.1"]), lb(ns, "b", "b.example.com", ["192.0.2.2"]),
                         lb(ns, "c", "c.sub.example.org", ["192.0.2.3"])],
             lambda ns: Change(put=[lb(ns, "c", "c.example.org", ["192.0.2.3"])]),
             flags=("--domain-filter=example.org", "--exclude-domains=sub.example.org")),
    Scenario("regex-domain-filter",
             lambda ns: [lb(ns, "a", "a.example.org", ["192.0.2.1"]), lb(ns, "b", "b.example.com", ["192.0.2.2"]),
                         lb(ns, "c", "c.sub.example.org", ["192.0.2.3"])],
             lambda ns: Change(put=[lb(ns, "b", "b.example.org", ["192.0.2.2"])]),
             flags=(r"--regex-domain-filter=\.example\.org$", r"--regex-domain-exclusion=^c\.")),
    # Conflicts between objects claiming one name
    Scenario("conflict-two-services-one-name",
             lambda ns: [lb(ns, "blue", "app.example.org", ["192.0.2.20"]),
                         lb(ns, "green", "app.example.org", ["192.0.2.10"])],
             lambda ns: Change(put=[lb(ns, "green", "app.example.org", ["192.0.2.30"])])),
    Scenario("conflict-cname-and-a",
             lambda ns: [lb(ns, "blue", "app.example.org", hostnames=["lb-1.elb.example.net"]),
                         lb(ns, "green", "app.example.org", ["192.0.2.10"])],
             lambda ns: Change(delete=[lb(ns, "green", "app.example.org")]),
             kept="a-record-replaced-by-a-cname-in-one-run"),
    Scenario("conflict-ingress-and-service",
             lambda ns: [ingress(ns, "shop", hosts=["app.example.org"], lb_ips=["192.0.2.40"]),
                         lb(ns, "web", "app.example.org", ["192.0.2.10"])],
             lambda ns: Change(delete=[lb(ns, "web", "app.example.org")]), sources=("service", "ingress")),
    # Policies
    policy_scenario("sync"),
    policy_scenario("upsert-only"),
    policy_scenario("create-only"),
    # The TXT registry
    txt_scenario("txt-prefix", "--txt-prefix=own-"),
    txt_scenario("txt-prefix-with-dot", "--txt-prefix=own."),
    txt_scenario("txt-suffix", "--txt-suffix=-own"),
    txt_scenario("txt-prefix-record-type", "--txt-prefix=%{record_type}-own."),
    txt_scenario("txt-suffix-record-type", "--txt-suffix=-%{record_type}"),
    Scenario("txt-wildcard-replacement",
             lambda ns: [lb(ns, "wild", "*.wild.example.org", ["192.0.2.10"]), lb(ns, "web", "web.example.org",
                                                                                ["192.0.2.20"])],
             lambda ns: Change(put=[lb(ns, "wild", "*.wild.example.org", ["192.0.2.11"])]),
             flags=("--txt-wildcard-replacement=star",)),
    Scenario("txt-wildcard-no-replacement",
             lambda ns: [lb(ns, "wild", "*.wild.example.org", ["192.0.2.10"])],
             lambda ns: Change(put=[lb(ns, "wild", "*.wild.example.org", ["192.0.2.11"])])),
    txt_scenario("txt-encryption", "--txt-encrypt-enabled", f"--txt-encrypt-aes-key={AES_KEY.decode()}",
                 aes_key=AES_KEY),
    # Records of another owner and hand-made records beside ours
    Scenario("records-of-another-owner",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"]), lb(ns, "api", "api.example.org",
                                                                              ["192.0.2.20"])],
             lambda ns: Change(delete=[lb(ns, "web", "web.example.org")]),
             seed=(Record("web.example.org", "A", 300, "192.0.2.99"),
                   owned_txt("web.example.org", "A", "service/team-b/web"),
                   Record("legacy.example.org", "A", 300, "192.0.2.98"),
                   owned_txt("legacy.example.org", "A", "service/team-b/legacy"))),
    Scenario("hand-made-records",
             lambda ns: [lb(ns, "web", "web.example.org", ["192.0.2.10"]), lb(ns, "mail", "mail.example.org",
                                                                              ["192.0.2.25"])],
             lambda ns: Change(delete=[lb(ns, "web", "web.example.org"), lb(ns, "mail", "mail.example.org")]),
             seed=(Record("mail.example.org", "A", 300, "192.0.2.97"),
                   Record("web.example.org", "TXT", 300, '"v=spf1 -all"'),
                   Record("example.org", "MX", 300, "10 mail.example.org."),
                   Record("manual.example.org", "CNAME", 300, "web.example.org."))),
)

SAME = tuple(s for s in SCENARIOS if not s.kept)
KEPT = tuple(s for s in SCENARIOS if s.kept)
