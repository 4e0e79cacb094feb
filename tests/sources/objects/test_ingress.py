"""Ingress -> endpoints on raw dicts: hosts, TLS, annotations, class filter, hostname source, bad input."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.objects.ingress import ingress_endpoints, merge_ingress_endpoints
from external_dns.sources.options import SourceOptions
from tests.sources.helpers import PREFIX, ann, ingress, summary

OPTS = SourceOptions()


def names(ing: dict[str, Any], opts: SourceOptions = OPTS) -> set[str]:
    eps, problems = ingress_endpoints(ing, opts)
    assert problems == [], problems
    return {e.dns_name for e in eps}


def test_rules_tls_and_status_targets() -> None:
    ing = ingress("web", "shop", hosts=("a.example.org", "", "b.example.org"), tls_hosts=("t.example.org",),
                  lb_ips=("1.2.3.4",), lb_hostnames=("lb.example.net",))
    eps, problems = ingress_endpoints(ing, OPTS)
    assert problems == []
    assert summary(eps) == {
        (h, t, tg, 0)
        for h in ("a.example.org", "b.example.org", "t.example.org")
        for t, tg in (("A", ("1.2.3.4",)), ("CNAME", ("lb.example.net",)))
    }
    assert all(e.labels == {"resource": "ingress/shop/web"} and e.ref_objects == [ing] for e in eps)


def test_annotations_target_ttl_and_hostname() -> None:
    ing = ingress(hosts=("a.example.org",), annotations=ann(hostname="h.example.org", target="9.9.9.9", ttl="2m",
                                                            set_identifier="s1", aws_weight="3"))
    eps, _ = ingress_endpoints(ing, OPTS)
    assert summary(eps) == {("a.example.org", "A", ("9.9.9.9",), 120), ("h.example.org", "A", ("9.9.9.9",), 120)}
    assert {e.set_identifier for e in eps} == {"s1"}
    assert all(e.get_provider_specific_property("aws/weight") == "3" for e in eps)


@pytest.mark.parametrize(
    ("opts", "source", "expected"),
    [
        (OPTS, None, {"r.example.org", "t.example.org", "h.example.org"}),
        (SourceOptions(ignore_ingress_tls_spec=True), None, {"r.example.org", "h.example.org"}),
        (SourceOptions(ignore_ingress_rules_spec=True), None, {"t.example.org", "h.example.org"}),
        (SourceOptions(fqdn_template="{{.Name}}.example.org", ignore_hostname_annotation=True), None,
         {"r.example.org", "t.example.org"}),
        (OPTS, "defined-hosts-only", {"r.example.org", "t.example.org"}),
        (OPTS, "Annotation-Only", {"h.example.org"}),
    ],
)
def test_host_selection(opts: SourceOptions, source: str | None, expected: set[str]) -> None:
    annotations = ann(hostname="h.example.org")
    if source is not None:
        annotations[PREFIX + "ingress-hostname-source"] = source
    ing = ingress(hosts=("r.example.org",), tls_hosts=("t.example.org",), annotations=annotations)
    assert names(ing, opts) == expected


def test_unknown_hostname_source_gives_nothing_and_a_problem() -> None:
    ing = ingress(hosts=("r.example.org",), annotations=ann(ingress_hostname_source="everything"))
    eps, problems = ingress_endpoints(ing, OPTS)
    assert eps == []
    [p] = problems
    assert p.field == PREFIX + "ingress-hostname-source" and p.value == "everything"


def test_fqdn_template() -> None:
    opts = SourceOptions(fqdn_template="{{.Name}}.{{.Namespace}}.example.org")
    assert names(ingress("web", "shop"), opts) == {"web.shop.example.org"}
    assert names(ingress("web", "shop", hosts=("r.example.org",)), opts) == {"r.example.org"}
    both = SourceOptions(fqdn_template="{{.Name}}.example.org", combine_fqdn_annotation=True)
    assert names(ingress("web", hosts=("r.example.org",)), both) == {"r.example.org", "web.example.org"}


@pytest.mark.parametrize(
    ("class_name", "annotation", "classes", "kept"),
    [
        (None, None, (), True),
        ("nginx", None, ("nginx",), True),
        ("traefik", None, ("nginx",), False),
        (None, "nginx", ("nginx", "other"), True),
        (None, "traefik", ("nginx",), False),
        ("traefik", "nginx", ("nginx",), False),  # spec.ingressClassName wins over the annotation
        ("", "nginx", ("nginx",), True),
        (None, None, ("nginx",), False),
    ],
)
def test_ingress_class(class_name: str | None, annotation: str | None, classes: tuple[str, ...],
                       kept: bool) -> None:
    annotations = {"kubernetes.io/ingress.class": annotation} if annotation else None
    ing = ingress(hosts=("a.example.org",), class_name=class_name, annotations=annotations)
    assert bool(names(ing, SourceOptions(ingress_class_names=classes))) is kept


def test_filters_and_controller() -> None:
    ing = ingress(hosts=("a.example.org",), labels={"env": "prod"})
    assert names(ing, SourceOptions(label_filter="env=prod"))
    assert not names(ing, SourceOptions(label_filter="env!=prod"))
    assert not names(ing, SourceOptions(namespace="other"))
    assert not names(ingress(hosts=("a.example.org",), annotations=ann(controller="x")))


def test_bad_hosts_and_targets_are_problems() -> None:
    ing = ingress(hosts=("a.*.example.org", "ok.example.org"), tls_hosts=("z" * 64 + ".org",),
                  lb_ips=("1.2.3.4", "1.2.3"))
    eps, problems = ingress_endpoints(ing, OPTS)
    assert summary(eps) == {("ok.example.org", "A", ("1.2.3.4",), 0)}
    assert [(p.field, p.severity) for p in problems] == [
        ("status.loadBalancer.ingress[1].ip", "warning"),
        ("spec.rules[0].host", "warning"),
        ("spec.tls[0].hosts[0]", "warning"),
    ]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda i: i["spec"].__setitem__("rules", {"host": "a"}), "spec.rules"),
        (lambda i: i["spec"]["rules"].__setitem__(0, "a.example.org"), "spec.rules[0]"),
        (lambda i: i["spec"]["rules"][0].__setitem__("host", 5), "spec.rules[0].host"),
        (lambda i: i["spec"].__setitem__("tls", [{"hosts": "a.example.org"}]), "spec.tls[0].hosts"),
        (lambda i: i["spec"].__setitem__("ingressClassName", ["x"]), "spec.ingressClassName"),
    ],
)
def test_malformed_ingress(mutate: Any, field: str) -> None:
    ing = ingress(hosts=("a.example.org",))
    mutate(ing)
    eps, problems = ingress_endpoints(ing, SourceOptions(ingress_class_names=("x",)) if "Class" in field else OPTS)
    assert eps == []
    assert problems[-1].field == field and problems[-1].severity == "error"


def test_merge_ingress_endpoints() -> None:
    a, _ = ingress_endpoints(ingress("a", hosts=("x.example.org",), lb_ips=("1.1.1.1",)), OPTS)
    b, _ = ingress_endpoints(ingress("b", hosts=("x.example.org",), lb_ips=("2.2.2.2",)), OPTS)
    [merged] = merge_ingress_endpoints(a + b)
    assert list(merged.targets) == ["1.1.1.1", "2.2.2.2"]
