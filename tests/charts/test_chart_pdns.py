"""PowerDNS through the chart: upstream's way (provider pdns + extraArgs + env from a Secret, upstream 1.21
has no pdns keys) and the chart's own optional pdns.* values (server, server id, API key and TLS client files
from Secrets only). Rendered args and env are parsed by the real CLI parser; a provider built from them reads
a real pdns_server."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import helm_python as helm
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from external_dns.cmd import flags_pdns
from external_dns.cmd.build_providers import build_pdns
from tests.charts.args import SECRET_PLACEHOLDERS, parse_main
from tests.charts.render import CHART_DIR, VALUES_DIR, containers, find, render_chart, render_manifests
from tests.servers.pdns import PdnsServer

NOTES = "external-dns-py/templates/NOTES.txt"
TLS_DIR = "/etc/external-dns/pdns-tls"


def values(name: str) -> dict[str, Any]:
    data = yaml.safe_load((VALUES_DIR / name).read_text())
    assert isinstance(data, dict)
    return data


def ours(**pdns: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"server": "http://pdns.dns.svc:8081",
                            "apiKeySecretRef": {"name": "pdns-api", "key": "api-key"}}
    base.update(pdns)
    return {"provider": "pdns", "pdns": base}


def test_upstream_inline_tutorial_values_reach_the_flags() -> None:
    cfg = parse_main(render_chart(values("upstream/pdns.yaml")))
    assert (cfg.core.provider, cfg.pdns.server, cfg.pdns.server_id) == ("pdns", "http://pdns.dns.svc:8081", "localhost")
    assert cfg.pdns.api_key == "changeme-not-a-real-key"


def test_upstream_extra_args_map_and_env_secret() -> None:
    name = "upstream/pdns-env-secret.yaml"
    objects = render_chart(values(name))
    cfg = parse_main(objects)
    assert (cfg.pdns.server, cfg.pdns.server_id, cfg.pdns.skip_tls_verify) == \
        ("https://pdns.dns.svc:8443/prefix", "ns1", True)
    assert cfg.pdns.api_key == SECRET_PLACEHOLDERS["EXTERNAL_DNS_PDNS_API_KEY"]
    assert "holds a secret" not in render_manifests(values(name))[NOTES]
    flags_pdns.validate(cfg)  # what the program checks at start-up


def test_chart_values_become_flags_env_and_a_mounted_secret() -> None:
    objects = render_chart(values("pdns-tls-secret.yaml"))
    main = containers(objects)["external-dns"]
    cfg = parse_main(objects)
    assert (cfg.pdns.server, cfg.pdns.server_id, cfg.pdns.skip_tls_verify) == \
        ("https://pdns.dns.svc:8443", "localhost", False)
    assert (cfg.tls.ca, cfg.tls.client_cert, cfg.tls.client_cert_key) == \
        (f"{TLS_DIR}/ca.crt", f"{TLS_DIR}/tls.crt", f"{TLS_DIR}/tls.key")
    # The key only as a Secret reference; the TLS files from a read-only Secret volume at the flags' paths.
    env = {e["name"]: e for e in main["env"]}
    assert env["EXTERNAL_DNS_PDNS_API_KEY"] == {
        "name": "EXTERNAL_DNS_PDNS_API_KEY", "valueFrom": {"secretKeyRef": {"name": "pdns-api", "key": "api-key"}}}
    assert not any(a.startswith("--pdns-api-key") for a in main["args"])
    mount = next(m for m in main["volumeMounts"] if m["name"] == "pdns-tls")
    assert mount == {"name": "pdns-tls", "mountPath": TLS_DIR, "readOnly": True}
    pod = find(objects, "Deployment")["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "pdns-tls")
    assert volume == {"name": "pdns-tls", "secret": {"secretName": "pdns-client-tls"}}
    assert "holds a secret" not in render_manifests(values("pdns-tls-secret.yaml"))[NOTES]


def test_chart_values_render_valid_objects_and_lint() -> None:
    vals = values("pdns-tls-secret.yaml")
    for obj in render_chart(vals):
        kubernetes_validate.validate(obj, kubernetes_validate.latest_version(), strict=True)
    report = helm.lint(CHART_DIR, vals, strict=True, namespace="dns", kube_version="v1.30.0")
    assert not report.get("errors"), report


def test_skip_tls_verify_and_no_tls_mount_without_a_tls_secret() -> None:
    objects = render_chart(ours(server="https://pdns:8443", skipTlsVerify=True, serverId="ns2"))
    cfg = parse_main(objects)
    assert (cfg.pdns.skip_tls_verify, cfg.pdns.server_id, cfg.tls.ca) == (True, "ns2", "")
    assert all(m["name"] != "pdns-tls" for m in containers(objects)["external-dns"]["volumeMounts"])


def test_extra_args_still_win_over_the_chart_values() -> None:
    vals = ours()
    vals["extraArgs"] = ["--pdns-server-id=other"]
    assert parse_main(render_chart(vals)).pdns.server_id == "other"


@pytest.mark.parametrize("vals", [{"provider": "aws", "pdns": ours()["pdns"]}, {"provider": "pdns"}])
def test_nothing_rendered_from_pdns_values_unless_pdns_server_is_set(vals: dict[str, Any]) -> None:
    main = containers(render_chart(vals))["external-dns"]
    assert not any(a.startswith(("--pdns-", "--tls-")) for a in main["args"])
    assert all(e["name"] != "EXTERNAL_DNS_PDNS_API_KEY" for e in main.get("env", []))


@pytest.mark.parametrize(("vals", "message"), [
    ({"provider": "pdns", "pdns": {"server": "http://pdns:8081"}}, "pdns.server needs pdns.apiKeySecretRef"),
    (ours(tls={"caKey": "ca.crt"}), "need pdns.tls.secretName"),
    (ours(server="https://pdns:8443", tls={"secretName": "t", "clientCertKey": "tls.crt"}),
     "must be given together"),
    (ours(tls={"secretName": "t", "caKey": "ca.crt"}), "pdns.tls needs an https:// pdns.server"),
])
def test_incomplete_values_fail_with_a_message(vals: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmError) as err:
        render_chart(vals)
    assert message in str(err.value)


@pytest.mark.parametrize(("pdns", "message"), [
    ({"apiKey": "inline"}, "additional properties 'apiKey' not allowed"),
    ({"server": "pdns.dns.svc:8081"}, "server"),
    ({"serverId": "a/b"}, "serverId"),
    ({"server": "https://user:inline-password@pdns:8443"}, "server"),  # credentials only from Secrets
])
def test_schema_refuses_inline_keys_and_malformed_values(pdns: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as err:
        render_chart(ours(**pdns))
    assert message in str(err.value)


@pytest.mark.integration
def test_a_provider_built_from_the_rendered_flags_reads_a_real_server(pdns: PdnsServer) -> None:
    vals = ours(server=pdns.url)
    vals["domainFilters"] = ["example.org"]
    cfg = parse_main(render_chart(vals))
    cfg = replace(cfg, pdns=replace(cfg.pdns, api_key=pdns.api_key))  # what the kubelet injects from the Secret
    provider = build_pdns(cfg)
    try:
        assert provider.zones() == ("example.org",)
        assert {ep.record_type for ep in provider.records()} == {"NS"}
    finally:
        provider.close()
