"""The args and env the chart renders are accepted by the real CLI parser and validation
(`external_dns.cmd.config.load_config`, and the webhook-server's for the sidecar), and mean what the values
say. Secret references are replaced by well-formed placeholder values, as the kubelet would inject them."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.cmd.webhook_server import _validate as validate_webhook_server
from external_dns.sources.rbac import rbac_document
from tests.charts.args import SECRET_PLACEHOLDERS, container_environ, parse_main, provider_name
from tests.charts.render import VALUE_FILES, containers, load_values, render_chart


@pytest.mark.parametrize("values_file", [None, *VALUE_FILES])
def test_main_container_args_are_accepted(values_file: str | None) -> None:
    values = load_values(values_file)
    cfg = parse_main(render_chart(values))
    assert cfg.core.source_names == tuple(values.get("sources", ["service", "ingress"]))
    assert cfg.core.policy == values.get("policy", "upsert-only")
    assert cfg.core.provider == provider_name(values)
    assert cfg.txt.owner_id == (values.get("txtOwnerId") or "default")
    assert cfg.filters.domain_filter == tuple(values.get("domainFilters", []))
    assert cfg.controller.metrics_address == ":7979"


def test_route53_values_become_flags() -> None:
    cfg = parse_main(render_chart(load_values("route53-service-ingress.yaml")))
    assert cfg.core.interval == 300.0
    assert cfg.controller.events is True
    assert cfg.txt.prefix == "edns-"
    assert cfg.filters.exclude_domains == ("internal.example.com",)
    assert cfg.aws.zone_type == "public"
    assert cfg.aws.zone_tags == ("team=platform",)
    assert cfg.aws.batch_change_size == 500
    assert cfg.log.format == "json"
    assert cfg.leader_election.enabled is True
    assert cfg.leader_election.namespace == "dns"
    assert cfg.leader_election.name == "edns-external-dns-py"
    assert (cfg.leader_election.lease_duration, cfg.leader_election.renew_deadline, cfg.leader_election.retry_period) \
        == (15.0, 10.0, 2.0)
    env = {e["name"]: e.get("value") for e in containers(render_chart(load_values(
        "route53-service-ingress.yaml")))["external-dns"]["env"]}
    assert env["AWS_DEFAULT_REGION"] == "eu-west-1"


def test_rfc2136_values_become_flags() -> None:
    cfg = parse_main(render_chart(load_values("rfc2136-crd-tsig.yaml")))
    assert cfg.sources.namespace == "dns"
    assert cfg.rfc2136.hosts == ("ns1.example.internal",)
    assert cfg.rfc2136.port == 53
    assert cfg.rfc2136.zones == ("example.internal",)
    assert cfg.rfc2136.tsig_keyname == "externaldns-key"
    assert cfg.rfc2136.tsig_secret == SECRET_PLACEHOLDERS["EXTERNAL_DNS_RFC2136_TSIG_SECRET"]
    assert cfg.rfc2136.axfr is True
    assert cfg.rfc2136.min_ttl == 60.0
    assert cfg.txt.encrypt_enabled is True
    assert cfg.txt.encrypt_aes_key == SECRET_PLACEHOLDERS["EXTERNAL_DNS_TXT_ENCRYPT_AES_KEY"]
    assert cfg.filters.managed_record_types == ("A", "AAAA", "CNAME", "TXT")
    assert cfg.log.level == "debug"


def test_webhook_values_become_flags_and_sidecar_args_are_accepted() -> None:
    objects = render_chart(load_values("webhook-sidecar.yaml"))
    cfg = parse_main(objects)
    assert cfg.webhook.url == "http://localhost:8888"
    assert cfg.webhook.read_timeout == 10.0
    sidecar = containers(objects)["webhook"]
    assert sidecar["args"][0] == "webhook-server"
    server_cfg = parse_config(sidecar["args"][1:], container_environ(sidecar))
    validate_webhook_server(server_cfg)
    assert server_cfg.core.provider == "rfc2136"
    assert server_cfg.webhook.server_address == "127.0.0.1:8888"
    # The sidecar's health port is the one its probes use.
    port = sidecar["ports"][0]["containerPort"]
    assert server_cfg.webhook.server_health_address == f"0.0.0.0:{port}"


def test_service_type_filter_reaches_the_parser() -> None:
    cfg = parse_main(render_chart({"serviceTypeFilter": ["LoadBalancer", "ExternalName"]}))
    assert cfg.sources.service_type_filter == ("LoadBalancer", "ExternalName")


def test_values_with_yaml_special_characters_reach_the_program_unchanged() -> None:
    values = {"labelFilter": "app in (web, api),!legacy", "annotationFilter": "example.com/team in (web)",
              "txtPrefix": "%{record_type}-edns.", "txtOwnerId": "yes", "domainFilters": ["*.example.org", "null"],
              "extraArgs": ["--fqdn-template={{ `{{.Name}}.example.org` }}"]}  # escaped for tpl, as upstream
    cfg = parse_main(render_chart(values))
    assert cfg.sources.label_filter == "app in (web, api),!legacy"
    assert cfg.sources.annotation_filter == "example.com/team in (web)"
    assert cfg.txt.prefix == "%{record_type}-edns."  # YAML-special first character (a directive)
    assert cfg.txt.owner_id == "yes"
    assert cfg.filters.domain_filter == ("*.example.org", "null")
    assert cfg.sources.fqdn_template == ("{{.Name}}.example.org",)


def test_extra_args_come_last_and_win() -> None:
    cfg = parse_main(render_chart({"extraArgs": ["--interval=30s", "--workers=4"]}))
    assert cfg.core.interval == 30.0
    assert cfg.controller.workers == 4


def test_a_mistyped_extra_arg_is_rejected_by_the_parser() -> None:
    """The check has teeth: what the real parser refuses fails here too."""
    objects = render_chart({"extraArgs": ["--polcy=sync"]})
    with pytest.raises(SystemExit):
        parse_main(objects)


def test_a_combination_the_program_refuses_is_caught() -> None:
    objects = render_chart({"extraArgs": ["--txt-prefix=a-", "--txt-suffix=-b"]})  # the values keys give only one
    with pytest.raises(ConfigError, match="mutual exclusive"):
        parse_main(objects)


KNOWN_SOURCES = sorted(rbac_document()["sources"])


@pytest.mark.parametrize("sources", [[name] for name in KNOWN_SOURCES] + [KNOWN_SOURCES])
def test_every_chart_source_is_accepted_by_the_cli(sources: list[str]) -> None:
    extra = ["--manifest-dir=/etc/external-dns/manifests"] if "manifest" in sources else []
    cfg = parse_main(render_chart({"sources": sources, "extraArgs": extra}))
    assert cfg.core.source_names == tuple(sources)
