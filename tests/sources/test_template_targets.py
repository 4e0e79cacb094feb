"""--target-template and --fqdn-target-template on the Service and Ingress logic: which endpoints come out,
how they combine with annotations and --fqdn-template, and what a bad template reports. As Go's sources: the
Service takes `host:target` pairs, the Ingress does not, and neither applies --target-template (Go applies it
only in sources whose targets come from templates)."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.cmd.build_sources import source_options
from external_dns.cmd.config import load_config
from external_dns.errors import ConfigError
from external_dns.sources.objects.ingress import ingress_endpoints
from external_dns.sources.objects.service import service_endpoints
from external_dns.sources.options import SourceOptions
from tests.sources.helpers import ann, ingress, service, summary


def svc_run(svc: dict[str, Any], opts: SourceOptions) -> set[tuple[Any, ...]]:
    eps, problems = service_endpoints(svc, opts)
    assert problems == [], problems
    return summary(eps)


def test_target_template_is_not_applied_to_services() -> None:
    opts = SourceOptions(fqdn_template="{{.Name}}.example.org",
                         target_template='{{ index .Annotations "lb" }},192.0.2.9')
    svc = service("web", annotations={"lb": "lb.example.net"}, lb_ips=("1.2.3.4",))
    assert svc_run(svc, opts) == {("web.example.org", "A", ("1.2.3.4",), 0)}
    # nor read: a template that would fail on this object reports nothing, and the informers keep objects slim
    broken = SourceOptions(target_template="{{.Spec.nope}}")
    assert svc_run(service("web", annotations=ann(hostname="h.example.org"), lb_ips=("1.2.3.4",)), broken) == {
        ("h.example.org", "A", ("1.2.3.4",), 0)}
    assert not broken.any_template


def test_fqdn_target_pairs_and_their_precedence() -> None:
    opts = SourceOptions(fqdn_target_template="{{.Name}}.a.org:{{.Spec.clusterIP}},{{.Name}}.b.org:x.example.net",
                         fqdn_template="{{.Name}}.fqdn.org")
    svc = service("web", lb_ips=("1.2.3.4",), cluster_ip="10.0.0.7", annotations=ann(ttl="60"))
    # the pairs win over --fqdn-template (Go: the second pass sees endpoints and stops)
    assert svc_run(svc, opts) == {("web.a.org", "A", ("10.0.0.7",), 60), ("web.b.org", "CNAME", ("x.example.net",), 60)}


def test_pairs_not_used_when_annotations_gave_names_unless_combining() -> None:
    svc = service("web", annotations=ann(hostname="h.example.org"), lb_ips=("1.2.3.4",))
    only = SourceOptions(fqdn_target_template="{{.Name}}.a.org:192.0.2.1")
    assert svc_run(svc, only) == {("h.example.org", "A", ("1.2.3.4",), 0)}
    both = SourceOptions(fqdn_target_template="{{.Name}}.a.org:192.0.2.1", fqdn_template="{{.Name}}.f.org",
                         combine_fqdn_annotation=True)
    assert svc_run(svc, both) == {("h.example.org", "A", ("1.2.3.4",), 0), ("web.a.org", "A", ("192.0.2.1",), 0),
                                  ("web.f.org", "A", ("1.2.3.4",), 0)}


def test_incomplete_pairs_are_skipped_until_the_field_is_populated() -> None:
    opts = SourceOptions(fqdn_target_template='{{.Name}}.a.org:{{ with .Status.loadBalancer.ingress }}'
                                              '{{ (index . 0).ip }}{{ end }}')
    assert svc_run(service("web"), opts) == set()
    assert svc_run(service("web", lb_ips=("1.2.3.4",)), opts) == {("web.a.org", "A", ("1.2.3.4",), 0)}


@pytest.mark.parametrize(
    ("kwargs", "flag", "fragment"),
    [
        ({"fqdn_target_template": "{{.Spec.nope}}:1.2.3.4"}, "--fqdn-target-template", "no entry for key 'nope'"),
        ({"fqdn_target_template": "bad_name!.org:1.2.3.4"}, "--fqdn-target-template", "hostname skipped"),
    ],
)
def test_template_failures_are_problems_of_the_object(kwargs: dict[str, Any], flag: str, fragment: str) -> None:
    eps, problems = service_endpoints(service("web", lb_ips=("1.2.3.4",)), SourceOptions(**kwargs))
    assert eps == []
    [p] = problems
    assert p.ref == "service/default/web" and p.field == flag and fragment in p.message


def test_ingress_takes_fqdn_template_names_only() -> None:
    opts = SourceOptions(fqdn_template='{{ if isSource "ingress" }}{{.Name}}.ing.org{{ end }}',
                         target_template="ingress-lb.example.net", fqdn_target_template="{{.Name}}.pair.org:192.0.2.1")
    eps, problems = ingress_endpoints(ingress("shop"), opts)
    assert problems == []
    assert summary(eps) == {("shop.ing.org", "A", ("1.2.3.4",), 0)}
    # the same template on a Service gives only the pair: isSource names the running source
    assert svc_run(service("shop", lb_ips=("1.2.3.4",)), opts) == {("shop.pair.org", "A", ("192.0.2.1",), 0)}


def test_flags_parse_repeat_and_refuse_bad_templates() -> None:
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync",
                               "--target-template={{.Name}}.lb.org,x.org", "--target-template=y.org",
                               "--fqdn-target-template=a.org:1.2.3.4"], {})
    assert cfg.sources.target_template == ("{{.Name}}.lb.org,x.org", "y.org")
    opts = source_options(cfg)
    assert opts.target is not None and opts.target.text == "{{.Name}}.lb.org,x.org,y.org"
    assert opts.fqdn_target is not None
    for flag in ("--target-template", "--fqdn-target-template"):
        with pytest.raises(ConfigError, match=f"^{flag}: template: 1:4: function 'nope' not defined"):
            load_config(["--source=service", "--provider=inmemory", "--policy=sync", f"{flag}={{{{ nope }}}}"], {})
