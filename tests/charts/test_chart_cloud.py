"""Cloudflare, Google Cloud DNS and Azure through the chart: upstream's shapes (the token from a Secret in `env`,
GKE workload identity on the service account, azure.json mounted with extraVolumes) and the chart's own optional
values (Secret references only, mounted files at the paths the flags and SDKs read). Rendered args and env are
parsed by the program's own parser; the Cloudflare provider built from them reads the fake API."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from external_dns.cmd.build import build_provider
from tests.charts.args import SECRET_PLACEHOLDERS, parse_main
from tests.charts.render import VALUES_DIR, containers, find, render_chart
from tests.fakes.cloudflare import CloudflareFake


def values(name: str) -> dict[str, Any]:
    data = yaml.safe_load((VALUES_DIR / name).read_text())
    assert isinstance(data, dict)
    return data


def env_of(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in containers(objects)["external-dns"].get("env", [])}


def pod(objects: list[dict[str, Any]]) -> dict[str, Any]:
    template: dict[str, Any] = find(objects, "Deployment")["spec"]["template"]
    return template


def test_upstream_cloudflare_token_from_a_secret_and_extra_args() -> None:
    objects = render_chart(values("upstream/cloudflare-env-secret.yaml"))
    cfg = parse_main(objects)
    assert (cfg.core.provider, cfg.cloudflare.proxied, cfg.cloudflare.per_page) == ("cloudflare", True, 5000)
    assert env_of(objects)["CF_API_TOKEN"]["valueFrom"] == {"secretKeyRef": {"name": "cloudflare-api-key",
                                                                             "key": "apiKey"}}


def test_chart_cloudflare_values_become_flags_and_a_secret_reference() -> None:
    objects = render_chart(values("cloud-providers.yaml"))
    cfg = parse_main(objects)
    cf = cfg.cloudflare
    assert (cf.proxied, cf.per_page, cf.region_key) == (True, 1000, "eu")
    assert env_of(objects)["CF_API_TOKEN"]["valueFrom"]["secretKeyRef"] == {"name": "cloudflare-api-token",
                                                                             "key": "api-token"}
    assert not any("token" in a for a in containers(objects)["external-dns"]["args"])


@pytest.mark.integration
def test_a_cloudflare_provider_built_from_the_rendered_flags_reads_the_api(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = parse_main(render_chart(values("cloud-providers.yaml")))
    with CloudflareFake(token=SECRET_PLACEHOLDERS["CF_API_TOKEN"]) as fake:
        fake.add_zone("example.org")
        fake.add_record("example.org", "www.example.org", "A", "192.0.2.1", proxied=True)
        monkeypatch.setenv("CLOUDFLARE_BASE_URL", fake.url + "/client/v4")
        monkeypatch.setenv("CF_API_TOKEN", SECRET_PLACEHOLDERS["CF_API_TOKEN"])  # what the kubelet injects
        provider = build_provider(cfg)
        assert provider.zones() == ("example.org",)
        assert [(e.dns_name, list(e.targets)) for e in provider.records()] == [("www.example.org", ["192.0.2.1"])]


def test_upstream_google_workload_identity() -> None:
    objects = render_chart(values("upstream/google-workload-identity.yaml"))
    cfg = parse_main(objects)
    assert (cfg.core.provider, cfg.google.project, cfg.google.zone_visibility) == ("google", "my-project", "public")
    account = find(objects, "ServiceAccount")
    assert account["metadata"]["annotations"]["iam.gke.io/gcp-service-account"].startswith("external-dns@")
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in env_of(objects)


def test_chart_google_key_file_from_a_secret() -> None:
    objects = render_chart({"provider": "google", "google": {
        "project": "p1", "zoneVisibility": "private", "batchChangeSize": 500, "batchChangeInterval": "2s",
        "serviceAccountSecretRef": {"name": "gcp-key", "key": "credentials.json"}}})
    cfg = parse_main(objects)
    g = cfg.google
    assert (g.project, g.zone_visibility, g.batch_change_size, g.batch_change_interval) == ("p1", "private", 500, 2.0)
    assert env_of(objects)["GOOGLE_APPLICATION_CREDENTIALS"]["value"] == "/etc/external-dns/google/credentials.json"
    mount = next(m for m in containers(objects)["external-dns"]["volumeMounts"] if m["name"] == "google-credentials")
    assert mount == {"name": "google-credentials", "mountPath": "/etc/external-dns/google", "readOnly": True}
    assert {"name": "google-credentials", "secret": {"secretName": "gcp-key"}} in pod(objects)["spec"]["volumes"]


@pytest.mark.parametrize("name", ["azure", "azure-private-dns"])
def test_chart_azure_json_from_a_secret_and_workload_identity(name: str) -> None:
    objects = render_chart({"provider": name, "azure": {
        "configSecretName": "azure-config-file", "resourceGroup": "dns-rg", "subscriptionId": "sub",
        "userAssignedIdentityClientId": "client", "useWorkloadIdentityExtension": True}})
    cfg = parse_main(objects)
    az = cfg.azure
    assert (cfg.core.provider, az.config_file, az.resource_group, az.subscription_id,
            az.user_assigned_identity_client_id) == (name, "/etc/kubernetes/azure.json", "dns-rg", "sub", "client")
    assert pod(objects)["metadata"]["labels"]["azure.workload.identity/use"] == "true"
    volume = next(v for v in pod(objects)["spec"]["volumes"] if v["name"] == "azure-config-file")
    assert volume["secret"] == {"secretName": "azure-config-file", "items": [{"key": "azure.json",
                                                                              "path": "azure.json"}]}


def test_upstream_azure_config_mounted_with_extra_volumes() -> None:
    objects = render_chart(values("upstream/azure-config-secret.yaml"))
    cfg = parse_main(objects)
    assert (cfg.core.provider, cfg.azure.config_file) == ("azure", "/etc/kubernetes/azure.json")
    assert pod(objects)["metadata"]["labels"]["azure.workload.identity/use"] == "true"


@pytest.mark.parametrize(("vals", "message"), [
    ({"provider": "cloudflare", "cloudflare": {"apiTokenSecretRef": {"name": "cf"}}}, "needs name and key"),
    ({"provider": "cloudflare", "cloudflare": {"apiKeySecretRef": {"name": "cf", "key": "k"}}}, "cloudflare.email"),
    ({"provider": "google", "google": {"serviceAccountSecretRef": {"name": "g"}}}, "needs name and key"),
])
def test_incomplete_values_fail_with_a_message(vals: dict[str, Any], message: str) -> None:
    import helm_python as helm

    with pytest.raises(helm.HelmError) as err:
        render_chart(vals)
    assert message in str(err.value)
