"""The source flags: external-dns names and defaults, templates taken whole (no comma split), the environment,
and the start-up checks naming the flag (selectors, annotation prefix, templates, CIDRs, NAT64 /96 networks,
the DNSEndpoint CRD, a manifest source without its directory)."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import build_parser, load_config, parse_config
from external_dns.cmd.flags import ConfigError

BASE = ["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory", "--policy=sync"]


def test_defaults_match_external_dns() -> None:
    src = parse_config(BASE, {}).sources
    assert src.annotation_prefix == "external-dns.kubernetes.io/"  # external-dns v0.22 on
    assert (src.namespace, src.annotation_filter, src.label_filter) == ("", "", "")
    assert src.fqdn_template == () and src.compatibility == "" and src.min_ttl == 0.0
    assert src.exclude_unschedulable is True and src.kube_access_check is True
    assert src.publish_internal_services is False and src.ignore_hostname_annotation is False
    assert (src.crd_source_apiversion, src.crd_source_kind) == ("externaldns.k8s.io/v1alpha1", "DNSEndpoint")


def test_flags_parse_into_the_typed_config() -> None:
    _parser, cfg = load_config([*BASE, "--namespace=web", "--label-filter=team=a,tier!=db",
                                "--fqdn-template={{.Name}}.a.example,{{.Name}}.b.example",
                                "--ignore-hostname-annotation", "--service-type-filter=LoadBalancer",
                                "--ingress-class=nginx", "--min-ttl=1m", "--exclude-target-net=10.0.0.0/8",
                                "--nat64-networks=64:ff9b::/96", "--no-exclude-unschedulable",
                                "--gateway-name=public"], environ={})
    src = cfg.sources
    assert src.namespace == "web" and src.label_filter == "team=a,tier!=db"
    assert src.fqdn_template == ("{{.Name}}.a.example,{{.Name}}.b.example",)  # a template is never split
    assert src.ignore_hostname_annotation and src.service_type_filter == ("LoadBalancer",)
    assert src.ingress_class == ("nginx",) and src.min_ttl == 60.0 and src.exclude_target_net == ("10.0.0.0/8",)
    assert src.nat64_networks == ("64:ff9b::/96",) and src.exclude_unschedulable is False
    assert src.gateway_name == "public"


def test_environment_sets_flags() -> None:
    src = parse_config(BASE, {"EXTERNAL_DNS_NAMESPACE": "env-ns", "EXTERNAL_DNS_PUBLISH_HOST_IP": "true",
                              "EXTERNAL_DNS_DEFAULT_TARGETS": "192.0.2.1,192.0.2.2"}).sources
    assert src.namespace == "env-ns" and src.publish_host_ip is True
    assert src.default_targets == ("192.0.2.1", "192.0.2.2")


@pytest.mark.parametrize(("args", "message"), [
    (["--annotation-prefix="], "--annotation-prefix cannot be empty"),
    (["--annotation-prefix=custom.example"], "--annotation-prefix must end with '/'"),
    (["--label-filter=a in (b"], "--label-filter does not specify a valid label selector"),
    (["--annotation-filter=!!"], "--annotation-filter does not specify a valid label selector"),
    (["--gateway-label-filter=a in (b"], "--gateway-label-filter does not specify a valid label selector"),
    (["--fqdn-template={{.Name"], "--fqdn-template: "),
    (["--ignore-hostname-annotation"], "--ignore-hostname-annotation: FQDN Template must be set"),
    (["--ingress-class=nginx", "--annotation-filter=kubernetes.io/ingress.class=nginx"],
     "--ingress-class is mutually exclusive"),
    (["--min-ttl=-1s"], "--min-ttl must not be negative, got -1s"),
    (["--exclude-target-net=10.0.0.0/33"], "--exclude-target-net: invalid CIDR '10.0.0.0/33'"),
    (["--target-net-filter=nonsense"], "--target-net-filter: invalid CIDR 'nonsense'"),
    (["--nat64-networks=10.0.0.0/8"], "--nat64-networks: '10.0.0.0/8' must be an IPv6 /96 network"),
    (["--nat64-networks=64:ff9b::/64"], "must be an IPv6 /96 network"),
    (["--crd-source-kind=Other"], "--crd-source-apiversion/--crd-source-kind: only externaldns.k8s.io/v1alpha1"),
    (["--manifest-dir="], "--manifest-dir must be set for --source=manifest"),
])
def test_bad_values_name_the_flag(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config([*BASE, *args], environ={})


def test_unknown_service_type_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse([*BASE, "--service-type-filter=Headless"], environ={})
    assert exited.value.code == 2 and "--service-type-filter" in capsys.readouterr().err
