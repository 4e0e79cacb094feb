"""`--compatibility` (sources/compat.py): the legacy annotations of mate, molecule and kOps's dns-controller on
Services and Pods, as external-dns reads them (`source/compatibility.go`, its pod source), and from the flag
to the records with the real program (the informer caches: informer/test_compat_informer.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from external_dns.endpoint.endpoint import Endpoint
from external_dns.sources.compat import (
    KOPS_EXTERNAL,
    KOPS_INTERNAL,
    KOPS_NODE_ROLE,
    MATE_HOSTNAME,
    split_hosts,
)
from external_dns.sources.objects.pod import PodOptions, pod_endpoints
from external_dns.sources.objects.service import service_endpoints
from external_dns.sources.options import SourceOptions
from tests.helpers.cli import dns_endpoint, run_cli
from tests.sources.helpers import ann, node, pod, service, summary

MATE, MOLECULE, KOPS = (SourceOptions(compatibility=m) for m in ("mate", "molecule", "kops-dns-controller"))


def run(svc: dict[str, Any], opts: SourceOptions, **kw: Any) -> list[Endpoint]:
    eps, problems = service_endpoints(svc, opts, **kw)
    assert problems == [], problems
    return eps


def role_node(name: str, *, external: tuple[str, ...] = (), internal: tuple[str, ...] = (),
              role: bool = True) -> dict[str, Any]:
    n = node(name, external=external, internal=internal)
    if role:
        n["metadata"]["labels"] = {KOPS_NODE_ROLE: ""}
    return n


def test_split_hosts() -> None:
    assert split_hosts(" a.org ,b.org,, c .org ") == ["a.org", "b.org", "c.org"]


def test_mate() -> None:
    svc = service(annotations={MATE_HOSTNAME: "m.example.org"}, lb_ips=("192.0.2.1",), lb_hostnames=("lb.example.net",))
    assert summary(run(svc, MATE)) == {("m.example.org", "A", ("192.0.2.1",), 0),
                                       ("m.example.org", "CNAME", ("lb.example.net",), 0)}
    [ep, _] = run(svc, MATE)
    assert ep.labels == {"resource": "service/default/web"}
    assert run(svc, SourceOptions()) == []  # not without the flag
    assert run(svc, MOLECULE) == []  # nor under another mode
    # the service's own names win: legacy names are read only when those give none
    ours = service(annotations={MATE_HOSTNAME: "m.example.org", **ann(hostname="own.example.org")}, lb_ips=("1.2.3.4",))
    assert {e.dns_name for e in run(ours, MATE)} == {"own.example.org"}


def test_molecule_needs_the_route53_label() -> None:
    labelled = service(annotations={"domainName": "a.example.org, b.example.org"}, labels={"dns": "route53"},
                       lb_ips=("192.0.2.1",))
    assert summary(run(labelled, MOLECULE)) == {("a.example.org", "A", ("192.0.2.1",), 0),
                                                ("b.example.org", "A", ("192.0.2.1",), 0)}
    unlabelled = service(annotations={"domainName": "a.example.org"}, lb_ips=("192.0.2.1",))
    assert run(unlabelled, MOLECULE) == []


def test_kops_load_balancer_takes_both_annotations() -> None:
    svc = service(annotations={KOPS_EXTERNAL: "ext.example.org", KOPS_INTERNAL: "int.example.org"},
                  lb_ips=("192.0.2.1",))
    assert summary(run(svc, KOPS)) == {("ext.example.org", "A", ("192.0.2.1",), 0),
                                       ("int.example.org", "A", ("192.0.2.1",), 0)}


def test_kops_node_port_uses_the_nodes_with_the_node_role() -> None:
    nodes = [role_node("n1", external=("203.0.113.1",), internal=("10.0.0.1", "fd00::1")),
             role_node("n2", external=("203.0.113.2",), internal=("10.0.0.2",)),
             role_node("master", external=("203.0.113.9",), internal=("10.0.0.9",), role=False)]
    external = service(type="NodePort", annotations={KOPS_EXTERNAL: "ext.example.org"})
    assert summary(run(external, KOPS, nodes=nodes)) == {("ext.example.org", "A", ("203.0.113.1", "203.0.113.2"), 0)}
    with_v6 = SourceOptions(compatibility="kops-dns-controller", expose_internal_ipv6=True)
    assert ("ext.example.org", "AAAA", ("fd00::1",), 0) in summary(run(external, with_v6, nodes=nodes))
    internal = service(type="NodePort", annotations={KOPS_INTERNAL: "int.example.org"})
    assert summary(run(internal, KOPS, nodes=nodes)) == {("int.example.org", "A", ("10.0.0.1", "10.0.0.2"), 0),
                                                         ("int.example.org", "AAAA", ("fd00::1",), 0)}
    both = service(type="NodePort", annotations={KOPS_EXTERNAL: "e.example.org", KOPS_INTERNAL: "i.example.org"})
    assert run(both, KOPS, nodes=nodes) == []  # as kOps's dns-controller


def test_kops_pod_annotations() -> None:
    p = pod("p", annotations={KOPS_INTERNAL: "in.example.org", KOPS_EXTERNAL: "out.example.org"})
    p["status"]["podIP"] = "10.1.0.5"
    nodes = {"n1": node("n1", external=("203.0.113.1",))}
    got, problems = pod_endpoints(p, KOPS, PodOptions(), nodes.get)
    assert problems == []
    assert summary(got) == {("in.example.org", "A", ("10.1.0.5",), 0), ("out.example.org", "A", ("203.0.113.1",), 0)}
    assert pod_endpoints(p, SourceOptions(), PodOptions(), nodes.get).endpoints == []


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="compatibility: unknown mode 'kops'"):
        SourceOptions(compatibility="kops")


@pytest.mark.integration
def test_the_flag_from_the_command_line(tmp_path: Path) -> None:
    manifests, zones = tmp_path / "m", tmp_path / "z"
    manifests.mkdir()
    (manifests / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: legacy\n  namespace: default\n  annotations:\n"
        "    zalando.org/dnsname: legacy.example.org\nspec:\n  type: LoadBalancer\nstatus:\n  loadBalancer:\n"
        "    ingress: [{ip: 192.0.2.44}]\n")
    (manifests / "keep.yaml").write_text(dns_endpoint("keep", "keep.example.org", "192.0.2.45"))
    args = ["--once", "--source=manifest", f"--manifest-dir={manifests}", "--provider=zonefile",
            f"--zonefile-dir={zones}", "--zonefile-create-zone=example.org", "--policy=sync"]
    run_cli([*args, "--compatibility=mate"])
    text = (zones / "example.org.zone").read_text()
    assert "legacy 300 IN A 192.0.2.44" in text and "resource=service/default/legacy" in text
    assert "argument --compatibility: invalid value 'kops' (one of: mate, molecule, kops-dns-controller" in \
        run_cli([*args, "--compatibility=kops"], expect=2).stderr
