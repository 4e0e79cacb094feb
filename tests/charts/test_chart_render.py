"""The chart renders, lints and validates: default values and three realistic value files, every object
checked against the Kubernetes OpenAPI schemas (kubernetes-validate, offline), pod security and probes as
the issue asks, and the values schema rejecting typos and wrong types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import helm_python as helm
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from tests.charts.render import (
    CHART_DIR,
    VALUE_FILES,
    VALUES_DIR,
    containers,
    crd_objects,
    find,
    find_all,
    load_values,
    render_chart,
    render_manifests,
)

CASES = [None, *VALUE_FILES]
# Oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and the newest schemas shipped.
KUBE_VERSIONS = ("1.25.0", kubernetes_validate.latest_version())
# Kinds outside the Kubernetes API (their CRDs come from other projects), checked field by field below.
NOT_BUILT_IN = {("monitoring.coreos.com/v1", "ServiceMonitor"), ("monitoring.coreos.com/v1", "PrometheusRule")}


def _validate(obj: dict[str, Any]) -> None:
    for version in KUBE_VERSIONS:
        kubernetes_validate.validate(obj, version, strict=True)


@pytest.mark.parametrize("values_file", CASES)
def test_every_object_is_valid_kubernetes(values_file: str | None) -> None:
    objects = render_chart(load_values(values_file))
    assert objects
    for obj in objects:
        if (obj["apiVersion"], obj["kind"]) in NOT_BUILT_IN:
            continue
        try:
            _validate(obj)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{values_file}: {obj['kind']} {obj['metadata']['name']}: {exc.message} at "
                        f"{'.'.join(str(p) for p in exc.path)}")


def test_validation_catches_an_invalid_object() -> None:
    """The validator is really on: a Deployment with a mistyped field fails."""
    deployment = find(render_chart(), "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "http"
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(deployment)
    deployment = find(render_chart(), "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy_"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(deployment)


def test_crds_are_valid_and_complete() -> None:
    crds = {c["spec"]["names"]["kind"]: c for c in crd_objects()}
    assert {"DNSEndpoint", "DNSRecord"} <= set(crds), f"crds/ must hold DNSEndpoint and DNSRecord, has {sorted(crds)}"
    assert crds["DNSEndpoint"]["spec"]["group"] == "externaldns.k8s.io"
    assert crds["DNSRecord"]["spec"]["group"] == "kuadrant.io"
    for crd in crds.values():
        _validate(crd)


@pytest.mark.parametrize("values_file", CASES)
def test_helm_lint_strict(values_file: str | None) -> None:
    report = helm.lint(CHART_DIR, load_values(values_file), strict=True, namespace="dns", kube_version="v1.30.0")
    problems = [m for m in report["messages"] if m["severity"] >= 2] + [{"error": e} for e in report["errors"]]
    assert not problems, problems
    assert report["total_charts_linted"] == 1


@pytest.mark.parametrize("values_file", CASES)
def test_pod_security(values_file: str | None) -> None:
    objects = render_chart(load_values(values_file))
    pod = find(objects, "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert isinstance(pod["securityContext"]["runAsUser"], int) and pod["securityContext"]["runAsUser"] > 0
    for container in pod["containers"]:
        sc = container["securityContext"]
        assert sc["runAsNonRoot"] is True, container["name"]
        assert sc["readOnlyRootFilesystem"] is True, container["name"]
        assert sc["allowPrivilegeEscalation"] is False, container["name"]
        assert sc["privileged"] is False, container["name"]
        assert sc["capabilities"] == {"drop": ["ALL"]}, container["name"]
        # A read-only root filesystem still gets a writable /tmp.
        assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"]


@pytest.mark.parametrize("values_file", CASES)
def test_probes_and_metrics_service(values_file: str | None) -> None:
    objects = render_chart(load_values(values_file))
    main = containers(objects)["external-dns"]
    assert main["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert main["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert main["ports"] == [{"name": "http", "containerPort": 7979, "protocol": "TCP"}]
    assert "--metrics-address=:7979" in main["args"]
    service = find(objects, "Service")
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    assert service["spec"]["selector"].items() <= \
        find(objects, "Deployment")["spec"]["template"]["metadata"]["labels"].items()


def test_defaults_one_replica_recreate_no_pdb() -> None:
    objects = render_chart()
    deployment = find(objects, "Deployment")
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert not find_all(objects, "PodDisruptionBudget")
    assert not find_all(objects, "ServiceMonitor")
    assert "--leader-elect" not in containers(objects)["external-dns"]["args"]


def test_leader_election_replicas_pdb_and_lease_role() -> None:
    objects = render_chart(load_values("route53-service-ingress.yaml"))
    deployment = find(objects, "Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"] == {"type": "RollingUpdate",  # written out: see tests/realkube/test_chart.py
                                              "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    pdb = find(objects, "PodDisruptionBudget")
    assert pdb["spec"]["minAvailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    args = containers(objects)["external-dns"]["args"]
    assert "--leader-elect" in args
    assert "--leader-elect-namespace=dns" in args
    lease_role = find(objects, "Role", "edns-external-dns-py-leader-election")
    assert lease_role["metadata"]["namespace"] == "dns"
    assert any("leases" in r["resources"] for r in lease_role["rules"])
    binding = find(objects, "RoleBinding", "edns-external-dns-py-leader-election")
    assert binding["roleRef"]["name"] == lease_role["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "edns-external-dns-py", "namespace": "dns"}]


def test_service_monitor_selects_the_metrics_service() -> None:
    objects = render_chart(load_values("route53-service-ingress.yaml"))
    monitor = find(objects, "ServiceMonitor")
    service = find(objects, "Service")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["dns"]}
    assert monitor["spec"]["endpoints"][0]["port"] == service["spec"]["ports"][0]["name"]
    assert monitor["spec"]["endpoints"][0]["path"] == "/metrics"
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"


def test_webhook_sidecar() -> None:
    objects = render_chart(load_values("webhook-sidecar.yaml"))
    by_name = containers(objects)
    assert set(by_name) == {"external-dns", "webhook"}
    assert "--webhook-provider-url=http://localhost:8888" in by_name["external-dns"]["args"]
    sidecar = by_name["webhook"]
    assert sidecar["args"][0] == "webhook-server"
    assert sidecar["ports"] == [{"name": "http-webhook", "containerPort": 8080, "protocol": "TCP"}]
    assert sidecar["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http-webhook"}
    assert sidecar["env"][0]["valueFrom"]["secretKeyRef"] == {"name": "rfc2136-tsig", "key": "secret"}


def test_credentials_are_secret_references() -> None:
    """No secret value appears in any rendered object: TSIG secret and AES key come from secretKeyRef."""
    objects = render_chart(load_values("rfc2136-crd-tsig.yaml"))
    env = {e["name"]: e for e in containers(objects)["external-dns"]["env"]}
    assert env["EXTERNAL_DNS_RFC2136_TSIG_SECRET"] == {
        "name": "EXTERNAL_DNS_RFC2136_TSIG_SECRET",
        "valueFrom": {"secretKeyRef": {"name": "rfc2136-tsig", "key": "secret"}}}
    assert env["EXTERNAL_DNS_TXT_ENCRYPT_AES_KEY"]["valueFrom"]["secretKeyRef"] == {
        "name": "external-dns-txt-key", "key": "aes-key"}
    assert not find_all(objects, "Secret")
    aws = render_chart({"aws": {"credentials": {"secretName": "route53-keys"}}})
    aws_env = {e["name"]: e for e in containers(aws)["external-dns"]["env"]}
    assert aws_env["AWS_SECRET_ACCESS_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "route53-keys"
    assert "value" not in aws_env["AWS_ACCESS_KEY_ID"]


# --- the values schema --------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "message"), [
    ({"sorces": ["service"]}, "additional properties 'sorces' not allowed"),
    ({"txtOwnerID": "a"}, "additional properties 'txtOwnerID' not allowed"),
    ({"provider": {"name": "aws", "webhok": {}}}, "additional properties 'webhok' not allowed"),
    ({"interval": 60}, "/interval"),
    ({"interval": "1 minute"}, "/interval"),
    ({"sources": "service"}, "/sources"),
    ({"sources": ["servce"]}, "/sources/0"),
    ({"policy": "delete-all"}, "/policy"),
    ({"replicaCount": "2"}, "/replicaCount"),
    ({"service": {"port": 70000}}, "/service/port"),
    ({"triggerLoopOnEvent": "yes"}, "/triggerLoopOnEvent"),
    ({"domainFilters": "example.com"}, "/domainFilters"),
    ({"extraArgs": "--interval=1m"}, "/extraArgs"),
    ({"extraArgs": {"interval": {"a": 1}}}, "/extraArgs/interval"),
    ({"provider": "route53"}, "/provider"),
    ({"provider": {"name": "route53"}}, "/provider/name"),
    ({"service": {"ipFamilyPolicy": "DualStack"}}, "/service/ipFamilyPolicy"),
    ({"secretConfiguration": {"enabled": True, "mountPat": "/x"}}, "additional properties 'mountPat' not allowed"),
    ({"annotationPrefix": "example.com"}, "/annotationPrefix"),
])
def test_schema_rejects(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as err:
        render_chart(values)
    assert message in str(err.value)


def test_schema_accepts_env_secret_references_and_plain_env() -> None:
    objects = render_chart({"env": [
        {"name": "AWS_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "TZ", "value": "UTC"}]})
    names = [e["name"] for e in containers(objects)["external-dns"]["env"]]
    assert names == ["AWS_SECRET_ACCESS_KEY", "TZ"]


@pytest.mark.parametrize(("values", "message"), [
    ({"provider": {"name": "rfc2136"}, "rfc2136": {"host": ["ns1"]}}, "rfc2136.tsigSecretRef"),
    ({"provider": {"name": "webhook"}}, "provider.webhook.image.repository"),
    ({"txtEncrypt": {"enabled": True}}, "txtEncrypt.aesKeySecretRef"),
    # upstream 1.21 refuses both too (its deployment template fails)
    ({"txtPrefix": "pre-", "txtSuffix": "-suf"}, "txtPrefix and txtSuffix are mutually exclusive"),
    # the hint: what to set for more than one replica
    ({"replicaCount": 2}, "set leaderElection.enabled=true"),
    ({"serviceMonitor": {"enabled": True}, "service": {"enabled": False}}, "service.enabled"),
])
def test_templates_refuse_incomplete_combinations(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmRenderError) as err:
        render_chart(values)
    assert message in str(err.value)


def test_notes_render() -> None:
    notes = render_manifests(load_values("route53-service-ingress.yaml"))["external-dns-py/templates/NOTES.txt"]
    assert "owner ID \"prod-eu-1\"" in notes
    assert "WARNING: domainFilters" not in notes
    assert "WARNING: domainFilters is empty" in render_manifests()["external-dns-py/templates/NOTES.txt"]


@pytest.fixture
def yaml_resolvers_kept() -> Any:
    """yamllint adds a YAML 1.2 octal int resolver to PyYAML's Resolver when imported (process-wide): later
    tests comparing with the safe loader would then read `0o17` as 15. The table is put back after the test."""
    resolver = yaml.resolver.Resolver
    saved = {k: list(v) for k, v in resolver.yaml_implicit_resolvers.items()}
    yield
    resolver.yaml_implicit_resolvers = saved


@pytest.mark.parametrize("values_file", CASES)
@pytest.mark.usefixtures("yaml_resolvers_kept")
def test_rendered_yaml_passes_yamllint(values_file: str | None) -> None:
    from yamllint import linter  # type: ignore[import-untyped]
    from yamllint.config import YamlLintConfig  # type: ignore[import-untyped]

    conf = YamlLintConfig("extends: default\nrules: {line-length: {max: 160}, document-start: disable, "
                          "indentation: {indent-sequences: whatever}, empty-lines: {max-start: 1}}")
    for path, text in render_manifests(load_values(values_file)).items():
        if path.endswith("NOTES.txt") or not text.strip():
            continue
        problems = [p for p in linter.run(text, conf) if p.level == "error"]
        assert not problems, f"{path}: {[str(p) for p in problems]}"
    assert yaml.safe_load((CHART_DIR / "values.yaml").read_text())


@pytest.mark.usefixtures("yaml_resolvers_kept")
def test_values_and_chart_files_pass_yamllint() -> None:
    from yamllint import linter
    from yamllint.config import YamlLintConfig

    conf = YamlLintConfig("extends: default\nrules: {line-length: {max: 110}, document-start: disable, "
                          "truthy: {check-keys: false}, indentation: {indent-sequences: consistent}}")
    files = [CHART_DIR / "Chart.yaml", CHART_DIR / "values.yaml", CHART_DIR / "files" / "rbac-rules.yaml",
             *sorted(VALUES_DIR.glob("*.yaml"))]
    for path in files:
        problems = list(linter.run(path.read_text(), conf, str(path)))
        assert not problems, f"{path}: {[str(p) for p in problems]}"


def test_leader_election_with_one_replica_has_no_pdb() -> None:
    """A PodDisruptionBudget of minAvailable 1 over a single pod would block every node drain."""
    objects = render_chart({"leaderElection": {"enabled": True}})
    assert not find_all(objects, "PodDisruptionBudget")
    assert "--leader-elect" in containers(objects)["external-dns"]["args"]


def test_pdb_max_unavailable() -> None:
    objects = render_chart({"replicaCount": 3, "leaderElection": {"enabled": True},
                            "podDisruptionBudget": {"maxUnavailable": 1}})
    assert find(objects, "PodDisruptionBudget")["spec"] == {
        "maxUnavailable": 1, "selector": find(objects, "Deployment")["spec"]["selector"]}


# Values the external-dns chart also has: same names, so its users' value files carry over.
EXTERNAL_DNS_CHART_NAMES = ("provider", "sources", "policy", "registry", "txtOwnerId", "txtPrefix", "txtSuffix",
                            "domainFilters", "excludeDomains", "interval", "triggerLoopOnEvent", "logLevel",
                            "logFormat", "extraArgs", "env", "resources", "nodeSelector", "tolerations", "affinity",
                            "serviceMonitor", "namespaced", "serviceAccount", "rbac", "podSecurityContext",
                            "securityContext", "livenessProbe", "readinessProbe", "service", "image",
                            "labelFilter", "annotationFilter", "managedRecordTypes", "podAnnotations", "podLabels")


def test_values_follow_the_external_dns_chart_names() -> None:
    import json

    values = yaml.safe_load((CHART_DIR / "values.yaml").read_text())
    schema = json.loads((CHART_DIR / "values.schema.json").read_text())
    for name in EXTERNAL_DNS_CHART_NAMES:
        assert name in values, name
        assert name in schema["properties"], name
    # Every default value is described by the schema (additionalProperties: false everywhere).
    assert set(values) <= set(schema["properties"])


def test_packaged_chart_renders_the_same(tmp_path: Path) -> None:
    """`helm package` keeps everything the chart needs (templates, files/, crds/, schema; .helmignore)."""
    archive = helm.package(CHART_DIR, destination=tmp_path)
    assert Path(archive).name == "external-dns-py-0.1.0.tgz"
    values = load_values("rfc2136-crd-tsig.yaml")
    with helm.Chart.load(archive) as packaged:
        assert packaged.schema is not None
        assert {Path(c["filename"]).name for c in packaged.crds} >= {"dnsendpoints.yaml", "dnsrecords.yaml"}
        assert packaged.render(values, name="edns", namespace="dns", is_install=True) == render_manifests(values)
        with pytest.raises(helm.HelmValuesError):
            packaged.render({"sorces": []}, name="edns", namespace="dns")


def test_lint_at_the_oldest_supported_kubernetes() -> None:
    report = helm.lint(CHART_DIR, load_values("route53-service-ingress.yaml"), strict=True, kube_version="v1.25.0")
    assert not [m for m in report["messages"] if m["severity"] >= 2] and not report["errors"], report


def test_prometheus_rule_alerts_on_metrics_the_program_exports() -> None:
    import importlib
    import re

    from prometheus_client import REGISTRY

    for module in ("external_dns.controller.metrics", "external_dns.controller.safety_gate",
                   "external_dns.controller.leader_election"):
        importlib.import_module(module)
    exported = {family.name + suffix for family in REGISTRY.collect() for suffix in ("", "_total")}
    objects = render_chart({"prometheusRule": {"enabled": True, "extraRules": [
        {"alert": "Custom", "expr": "vector(1)"}]}, "leaderElection": {"enabled": True}})
    rule = find(objects, "PrometheusRule")
    service = find(objects, "Service")
    rules = rule["spec"]["groups"][0]["rules"]
    names = [r["alert"] for r in rules]
    assert names[:6] == ["ExternalDNSDown", "ExternalDNSSyncStale", "ExternalDNSSyncErrors",
                         "ExternalDNSUnsafePlanRefused", "ExternalDNSRegistryErrors", "ExternalDNSSourceErrors"]
    assert "ExternalDNSNoLeader" in names and names[-1] == "Custom"
    for r in rules[:-1]:
        assert f'job="{service["metadata"]["name"]}"' in r["expr"], r
        assert r["labels"] == {"severity": "warning"}
        for metric in re.findall(r"\b(?:external_dns_[a-z0-9_]+|leader_election_[a-z_]+)", r["expr"]):
            assert metric in exported, f"{r['alert']}: {metric} is not exported"
    assert "{{ $labels.zone }}" in rules[3]["annotations"]["summary"]
    without_leader = find(render_chart({"prometheusRule": {"enabled": True}}), "PrometheusRule")
    assert "ExternalDNSNoLeader" not in [r["alert"] for r in without_leader["spec"]["groups"][0]["rules"]]
    assert not find_all(render_chart(), "PrometheusRule")
