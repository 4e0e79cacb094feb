"""Values written for the upstream external-dns chart (1.21) work unchanged: one file per provider we support
and the upstream tutorials' values (tests/charts/values/upstream/). Each renders, every object is valid
Kubernetes, `helm lint --strict` passes, and the external-dns container's args are accepted by our parser
and mean what the values say. Unknown keys are still refused with a message naming the key; a secret in
args renders and NOTES.txt warns."""

from __future__ import annotations

import base64
from typing import Any

import helm_python as helm
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from external_dns.cmd.config import build_parser
from external_dns.sources.rbac import LISTENER_SET_RULES, rules_for_sources
from tests.charts.args import SECRET_PLACEHOLDERS, parse_main, provider_name
from tests.charts.render import (
    CHART_DIR,
    VALUES_DIR,
    containers,
    find,
    find_all,
    permissions,
    render_chart,
    render_manifests,
)

UPSTREAM_DIR = VALUES_DIR / "upstream"
UPSTREAM_FILES = sorted(p.name for p in UPSTREAM_DIR.glob("*.yaml"))
NOTES = "external-dns-py/templates/NOTES.txt"
NOT_BUILT_IN = {("monitoring.coreos.com/v1", "ServiceMonitor")}
LISTENER_SETS = permissions(LISTENER_SET_RULES)


def upstream(name: str) -> dict[str, Any]:
    data = yaml.safe_load((UPSTREAM_DIR / name).read_text())
    assert isinstance(data, dict)
    return data


def test_every_provider_we_support_has_an_upstream_shaped_values_file() -> None:
    from external_dns.cmd.build import PROVIDER_BUILDERS

    covered = {provider_name(upstream(name)) for name in UPSTREAM_FILES}
    assert set(PROVIDER_BUILDERS) <= covered, f"no upstream-shaped values for {set(PROVIDER_BUILDERS) - covered}"


@pytest.mark.parametrize("name", UPSTREAM_FILES)
def test_upstream_values_render_valid_objects(name: str) -> None:
    objects = render_chart(upstream(name))
    for obj in objects:
        if (obj["apiVersion"], obj["kind"]) in NOT_BUILT_IN:
            continue
        try:
            for version in ("1.25.0", kubernetes_validate.latest_version()):  # the chart's oldest and newest
                kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name}: {obj['kind']} {obj['metadata']['name']}: {exc.message} at "
                        f"{'.'.join(str(p) for p in exc.path)}")


@pytest.mark.parametrize("name", UPSTREAM_FILES)
def test_upstream_values_pass_helm_lint_strict(name: str) -> None:
    report = helm.lint(CHART_DIR, upstream(name), strict=True, namespace="dns", kube_version="v1.30.0")
    assert not report.get("errors") and report["total_charts_linted"] == 1, report


@pytest.mark.parametrize("name", UPSTREAM_FILES)
def test_upstream_values_args_are_accepted_by_our_parser(name: str) -> None:
    values = upstream(name)
    cfg = parse_main(render_chart(values))
    assert cfg.core.provider == provider_name(values)
    assert cfg.core.source_names == tuple(values.get("sources", ["service", "ingress"]))
    assert cfg.core.policy == values.get("policy", "upsert-only")
    assert cfg.filters.domain_filter == tuple(values.get("domainFilters") or [])


def test_aws_tutorial_values() -> None:
    cfg = parse_main(render_chart(upstream("aws-tutorial.yaml")))
    assert (cfg.aws.zone_type, cfg.aws.zones_cache_duration, cfg.txt.owner_id) == ("public", 3600.0, "my-identifier")
    sa = find(render_chart(upstream("aws-tutorial.yaml")), "ServiceAccount")
    assert sa["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].endswith("role/external-dns")


def test_provider_string_and_extra_args_map() -> None:
    objects = render_chart(upstream("aws-string-map.yaml"))
    cfg = parse_main(objects)
    assert cfg.core.provider == "aws"
    assert cfg.aws.batch_change_size == 500
    assert cfg.aws.zone_id_filter == ("Z1D633PJN98FT9", "Z2ABCDEF")
    assert cfg.aws.prefer_cname is True  # null: a bare flag
    assert cfg.aws.evaluate_target_health is False
    assert (cfg.core.interval, cfg.controller.events, cfg.log.format, cfg.txt.prefix) == (300.0, True, "json", "%{record_type}-")
    env = {e["name"]: e for e in containers(objects)["external-dns"]["env"]}
    assert env["AWS_SECRET_ACCESS_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "external-dns-aws"


def test_rfc2136_tutorial_through_extra_args() -> None:
    values = upstream("rfc2136-tutorial.yaml")
    manifests = render_manifests(values)
    cfg = parse_main(render_chart(values))
    assert cfg.rfc2136.hosts == ("192.0.2.53",) and cfg.rfc2136.port == 53
    assert cfg.rfc2136.zones == ("k8s.example.org",)
    assert cfg.rfc2136.tsig_keyname == "externaldns-key" and cfg.rfc2136.axfr is True
    assert base64.b64decode(cfg.rfc2136.tsig_secret)
    # Rendered as given, and the user is told why it is a bad idea.
    assert "WARNING: extraArgs holds a secret (--rfc2136-tsig-secret)" in manifests[NOTES]
    assert "EXTERNAL_DNS_RFC2136_TSIG_SECRET" not in str(containers(render_chart(values))["external-dns"].get("env"))


def test_pdns_values_warn_about_the_inline_api_key() -> None:
    notes = render_manifests(upstream("pdns.yaml"))[NOTES]
    assert "WARNING: extraArgs holds a secret (--pdns-api-key)" in notes


@pytest.mark.parametrize("name", ["aws-tutorial.yaml", "aws-string-map.yaml", "webhook-provider.yaml", "inmemory.yaml"])
def test_no_secret_warning_without_secrets(name: str) -> None:
    assert "holds a secret" not in render_manifests(upstream(name))[NOTES]


def test_inline_secret_env_renders_and_warns() -> None:
    values = {"env": [{"name": "AWS_SECRET_ACCESS_KEY", "value": "inline"}]}
    env = containers(render_chart(values))["external-dns"]["env"]
    assert {"name": "AWS_SECRET_ACCESS_KEY", "value": "inline"} in env
    assert "WARNING: env AWS_SECRET_ACCESS_KEY holds a secret inline" in render_manifests(values)[NOTES]


def test_chart_secret_flag_list_is_the_parsers() -> None:
    """NOTES.txt warns about exactly the flags the program masks as secrets."""
    text = (CHART_DIR / "templates" / "_helpers.tpl").read_text()
    start = text.index('define "external-dns-py.secretFlags"')
    listed = set(text[start:text.index("{{- end }}", start)].split("(list", 1)[1].split(")")[0].replace('"', "").split())
    assert listed == {s.replace("_", "-") for s in build_parser().secrets}


def test_extra_args_map_value_forms() -> None:
    cfg = parse_main(render_chart({"extraArgs": {"--interval": "30s", "exclude-domains": ["a.org", "b.org"],
                                                 "once": True, "dry-run": "", "workers": 4}}))
    assert (cfg.core.interval, cfg.filters.exclude_domains, cfg.core.once, cfg.core.dry_run, cfg.controller.workers) == \
        (30.0, ("a.org", "b.org"), True, True, 4)


def test_webhook_provider_values() -> None:
    objects = render_chart(upstream("webhook-provider.yaml"))
    sidecar = containers(objects)["webhook"]
    assert sidecar["image"] == "ghcr.io/example/external-dns-example-webhook:v1.2.3"
    assert sidecar["readinessProbe"]["successThreshold"] == 1
    assert sidecar["readinessProbe"]["httpGet"]["path"] == "/readyz"
    service = find(objects, "Service")
    assert [p["name"] for p in service["spec"]["ports"]] == ["http", "http-webhook"]
    endpoints = find(objects, "ServiceMonitor")["spec"]["endpoints"]
    main, webhook = endpoints
    assert (main["port"], main["scheme"], main["interval"]) == ("http", "http", "1m")
    # The webhook's own settings win; unset ones fall back to the main serviceMonitor's.
    assert (webhook["port"], webhook["scheme"], webhook["interval"], webhook["scrapeTimeout"]) == \
        ("http-webhook", "https", "30s", "10s")
    assert webhook["tlsConfig"] == {"insecureSkipVerify": True}


def test_every_upstream_key_has_its_upstream_meaning() -> None:
    values = upstream("every-upstream-key.yaml")
    objects = render_chart(values)
    namespaced = [o for o in objects if o["kind"] not in ("ClusterRole", "ClusterRoleBinding")]
    sources_role = [o for o in objects if o["kind"] in ("Role", "RoleBinding")
                    and not o["metadata"]["name"].endswith("leader-election")]
    assert sources_role and all(o["metadata"]["namespace"] == "apps" for o in sources_role)
    assert all(o["metadata"]["namespace"] == "platform-dns" for o in namespaced if o not in sources_role)
    pod = find(objects, "Deployment")["spec"]["template"]["spec"]
    assert pod["imagePullSecrets"] == [{"name": "global-registry"}, {"name": "registry"}]
    assert pod["dnsPolicy"] == "ClusterFirst" and pod["dnsConfig"]["options"][0]["name"] == "ndots"
    assert "terminationGracePeriodSeconds" not in pod  # upstream's null: the cluster default
    assert [c["name"] for c in pod["initContainers"]] == ["wait"]
    assert [c["name"] for c in pod["containers"]] == ["external-dns", "proxy"]
    mounts = {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}
    assert mounts["secrets"]["mountPath"] == "/etc/external-dns/"
    secret = find(objects, "Secret")
    assert base64.b64decode(secret["data"]["credentials.json"]) == b'{"example": true}'
    assert {"name": "secrets", "secret": {"secretName": secret["metadata"]["name"]}} in pod["volumes"]
    service = find(objects, "Service")["spec"]
    assert (service["ipFamilies"], service["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    endpoint = find(objects, "ServiceMonitor")["spec"]["endpoints"][0]
    assert endpoint["scheme"] == "https" and endpoint["tlsConfig"] == {"insecureSkipVerify": True}
    assert endpoint["bearerTokenFile"].endswith("/token") and "interval" not in endpoint
    assert pod["containers"][0]["readinessProbe"]["successThreshold"] == 1
    cfg = parse_main(objects)
    assert cfg.sources.namespace == "apps"
    assert cfg.sources.annotation_prefix == "external-dns.alpha.kubernetes.io/"
    assert cfg.filters.managed_record_types == ("A", "AAAA", "CNAME", "TXT")


def test_source_namespace_without_namespaced_only_sets_the_flag() -> None:
    objects = render_chart({"sourceNamespace": "apps"})
    assert parse_main(objects).sources.namespace == "apps"
    assert not find_all(objects, "Role")


@pytest.mark.parametrize(("values", "message"), [
    ({"provider": {"nme": "aws"}}, "additional properties 'nme' not allowed"),
    ({"serviceMonitor": {"shceme": "https"}}, "additional properties 'shceme' not allowed"),
    ({"provider": {"name": "webhook", "webhook": {"serviceMonitor": {"intervl": "1m"}}}},
     "additional properties 'intervl' not allowed"),
    ({"secretConfiguration": {"enabld": True}}, "additional properties 'enabld' not allowed"),
    ({"namespaceOveride": "x"}, "additional properties 'namespaceOveride' not allowed"),
])
def test_unknown_keys_are_refused_by_name(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as err:
        render_chart(values)
    assert message in str(err.value)


def test_secret_placeholders_cover_every_secret_env() -> None:
    for name in ("aws-string-map.yaml", "webhook-provider.yaml"):
        for var in containers(render_chart(upstream(name)))["external-dns"].get("env", []):
            if "valueFrom" in var:
                assert var["name"] in SECRET_PLACEHOLDERS


def _readme_rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    for line in (CHART_DIR / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[1] in ("upstream", "ours"):
            rows[cells[0].strip("`")] = cells[1]
    return rows


def test_chart_readme_lists_every_value_as_upstream_or_ours() -> None:
    rows = _readme_rows()
    values = yaml.safe_load((CHART_DIR / "values.yaml").read_text())
    missing: list[str] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        for key, value in node.items():
            path = prefix + key
            if isinstance(value, dict) and any(r.startswith(path + ".") for r in rows):
                walk(value, path + ".")
            elif path not in rows:
                missing.append(path)

    walk(values, "")
    assert not missing, f"values not in charts/external-dns-py/README.md: {missing}"
    for path in rows:
        node: Any = values
        for part in path.split("."):
            assert isinstance(node, dict) and part in node, f"README lists {path}, which values.yaml lacks"
            node = node[part]



def test_secret_in_webhook_sidecar_args_renders_and_warns() -> None:
    values = {"provider": {"name": "webhook", "webhook": {
        "image": {"repository": "external-dns-py", "tag": "0.1.0"},
        "args": ["webhook-server", "--provider=pdns", "--pdns-api-key=inline-key"]}}}
    sidecar = containers(render_chart(values))["webhook"]
    assert "--pdns-api-key=inline-key" in sidecar["args"]
    notes = render_manifests(values)[NOTES]
    assert "WARNING: provider.webhook.args holds a secret (--pdns-api-key)" in notes
    assert "extraArgs holds a secret" not in notes


def test_webhook_provider_running_elsewhere_needs_no_sidecar() -> None:
    objects = render_chart({"provider": "webhook", "extraArgs": ["--webhook-provider-url=http://dns-webhook.dns:8888"]})
    assert list(containers(objects)) == ["external-dns"]
    assert [p["name"] for p in find(objects, "Service")["spec"]["ports"]] == ["http"]
    assert parse_main(objects).webhook.url == "http://dns-webhook.dns:8888"


def test_gateway_namespace_sets_the_flag_and_a_role_there_when_namespaced() -> None:
    values = {"namespaced": True, "sourceNamespace": "apps", "gatewayNamespace": "infra",
              "sources": ["service", "gateway-httproute"]}
    objects = render_chart(values)
    cfg = parse_main(objects)
    assert (cfg.sources.gateway_namespace, cfg.sources.namespace) == ("infra", "apps")
    roles = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in find_all(objects, "Role")}
    gateways = [o for (ns, _), o in roles.items() if ns == "infra"]
    assert len(gateways) == 1
    assert gateways[0]["rules"] == [{"apiGroups": ["gateway.networking.k8s.io"], "resources": ["gateways"],
                                     "verbs": ["get", "list", "watch"]}]
    bindings = [o for o in find_all(objects, "RoleBinding") if o["metadata"]["namespace"] == "infra"]
    assert bindings and bindings[0]["roleRef"]["name"] == gateways[0]["metadata"]["name"]
    # Cluster-wide (not namespaced) the ClusterRole already covers every namespace: the flag only.
    plain = render_chart({"gatewayNamespace": "infra", "sources": ["gateway-httproute"]})
    assert parse_main(plain).sources.gateway_namespace == "infra" and not find_all(plain, "Role")


def test_enabled_is_accepted_and_has_no_effect() -> None:
    assert render_chart({"enabled": True}) == render_chart({})


def test_gateway_listener_sets_pass_the_flag_and_grant_listener_sets() -> None:
    assert render_chart({"enableGatewayListenerSets": False}) == render_chart({})
    on = render_chart({"enableGatewayListenerSets": True, "sources": ["gateway-httproute"]})
    assert parse_main(on).sources.gateway_listener_sets
    assert permissions(find(on, "ClusterRole")["rules"]) == permissions(
        rules_for_sources(["gateway-httproute"], listener_sets=True))
    # namespaced: the sources still read ListenerSets in every namespace, so the ClusterRole grants them
    scoped = render_chart({"enableGatewayListenerSets": True, "sources": ["gateway-httproute"], "namespaced": True})
    assert permissions(find(scoped, "ClusterRole")["rules"]) >= LISTENER_SETS
    assert not LISTENER_SETS & permissions(find(scoped, "Role")["rules"])
    # without a gateway source the flag changes nothing the sources read
    plain = render_chart({"enableGatewayListenerSets": True, "sources": ["service"]})
    assert not LISTENER_SETS & permissions(find(plain, "ClusterRole")["rules"])


@pytest.mark.parametrize("flag", sorted(build_parser().secrets))
def test_every_secret_flag_given_inline_through_env_warns(flag: str) -> None:
    name = "EXTERNAL_DNS_" + flag.upper()
    notes = render_manifests({"env": [{"name": name, "value": "inline"}]})[NOTES]
    assert f"WARNING: env {name} holds a secret inline" in notes
    by_ref = {"env": [{"name": name, "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}
    assert "holds a secret" not in render_manifests(by_ref)[NOTES]


def test_secret_configuration_renders_and_warns() -> None:
    values = upstream("every-upstream-key.yaml")
    assert "WARNING: secretConfiguration puts credentials in the release's values" in render_manifests(values)[NOTES]
    assert "secretConfiguration" not in render_manifests({})[NOTES]


def test_extra_args_go_through_tpl_as_upstream() -> None:
    """Upstream renders extraArgs with `tpl`: values may use the release, and a --fqdn-template is escaped as
    upstream's FQDN templating guide shows (list and map forms)."""
    listed = parse_main(render_chart({"extraArgs": ["--txt-owner-id={{ .Release.Name }}-owner",
                                                    "--fqdn-template={{ `{{.Name}}.uat.example.com` }}"]}))
    assert listed.txt.owner_id.endswith("-owner") and "{{" not in listed.txt.owner_id
    assert listed.sources.fqdn_template == ("{{.Name}}.uat.example.com",)
    mapped = parse_main(render_chart({"extraArgs": {"txt-owner-id": "{{ .Release.Name }}-owner",
                                                    "fqdn-template": ["{{ `{{.Name}}.a.example.com` }}",
                                                                      "{{ `{{.Name}}.b.example.com` }}"]}}))
    assert mapped.txt.owner_id == listed.txt.owner_id
    assert mapped.sources.fqdn_template == ("{{.Name}}.a.example.com", "{{.Name}}.b.example.com")


@pytest.mark.parametrize("key", ["namespaceOverride", "sourceNamespace", "gatewayNamespace"])
def test_a_namespace_value_that_is_no_namespace_name_is_refused_by_name(key: str) -> None:
    with pytest.raises(helm.HelmValuesError) as err:
        render_chart({key: "{{ .Release.Namespace }}-apps"})
    assert f"/{key}" in str(err.value) and "does not match pattern" in str(err.value)


def test_affinity_and_spread_constraints_get_the_pod_selector_when_they_have_none() -> None:
    values = {"topologySpreadConstraints": [
                  {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                  {"maxSkew": 2, "topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway",
                   "labelSelector": {"matchLabels": {"team": "dns"}}}],
              "affinity": {"podAntiAffinity": {
                  "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname"}],
                  "preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 5, "podAffinityTerm": {"topologyKey": "zone"}}]},
                  "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                      "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "Exists"}]}]}}}}
    objects = render_chart(values)
    deployment = find(objects, "Deployment")
    selector = {"matchLabels": deployment["spec"]["selector"]["matchLabels"]}
    pod = deployment["spec"]["template"]["spec"]
    spread = pod["topologySpreadConstraints"]
    assert spread[0]["labelSelector"] == selector
    assert spread[1]["labelSelector"] == {"matchLabels": {"team": "dns"}}  # an explicit one is kept
    anti = pod["affinity"]["podAntiAffinity"]
    assert anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] == selector
    assert anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"] == selector
    assert pod["affinity"]["nodeAffinity"] == values["affinity"]["nodeAffinity"]  # type: ignore[index]
    assert "labelSelector" not in values["topologySpreadConstraints"][0]  # type: ignore[index]


def test_txt_prefix_or_suffix_and_both_refused_as_upstream() -> None:
    with pytest.raises(helm.HelmRenderError, match="txtPrefix and txtSuffix are mutually exclusive"):
        render_chart({"txtPrefix": "pre-", "txtSuffix": "-suf"})
    assert parse_main(render_chart({"txtSuffix": "-suf"})).txt.suffix == "-suf"
    assert parse_main(render_chart({"txtPrefix": "pre-"})).txt.prefix == "pre-"


def test_extra_args_map_merges_without_helms_not_a_table_warning(capfd: pytest.CaptureFixture[str]) -> None:
    """The default `extraArgs` is a map, as upstream's: a map from the user merges without Helm's coalescing
    warning (`skipped value for ...extraArgs: Not a table.`), and a list still replaces it."""
    capfd.readouterr()
    as_map = parse_main(render_chart({"extraArgs": {"interval": "30s"}}))
    as_list = parse_main(render_chart({"extraArgs": ["--interval=30s"]}))
    assert as_map.core.interval == as_list.core.interval == 30.0
    err = capfd.readouterr().err  # Helm (Go) logs the warning to the process's stderr
    assert "Not a table" not in err and "skipped value" not in err


def test_host_aliases_render_into_the_pod() -> None:
    aliases = [{"ip": "192.0.2.53", "hostnames": ["ns1.corp.example"]}]
    pod = find(render_chart({"hostAliases": aliases}), "Deployment")["spec"]["template"]["spec"]
    assert pod["hostAliases"] == aliases
    assert "hostAliases" not in find(render_chart({}), "Deployment")["spec"]["template"]["spec"]


def test_replica_count_above_one_names_leader_election() -> None:
    with pytest.raises(helm.HelmRenderError) as err:
        render_chart({"replicaCount": 2})
    assert "replicaCount: 2 needs leader election: set leaderElection.enabled=true" in str(err.value)
    assert find(render_chart({"replicaCount": 2, "leaderElection": {"enabled": True}}),
                "Deployment")["spec"]["replicas"] == 2


def test_webhook_sidecar_url_from_extra_args_is_rendered_once() -> None:
    values: dict[str, Any] = {"provider": {"name": "webhook", "webhook": {"image": {"repository": "example/hook"}}}}
    for extra in ({"webhook-provider-url": "http://hook.dns:8888"}, ["--webhook-provider-url=http://hook.dns:8888"]):
        args = containers(render_chart({**values, "extraArgs": extra}))["external-dns"]["args"]
        assert [a for a in args if a.startswith("--webhook-provider-url")] == \
            ["--webhook-provider-url=http://hook.dns:8888"]
    args = containers(render_chart(values))["external-dns"]["args"]
    assert [a for a in args if a.startswith("--webhook-provider-url")] == ["--webhook-provider-url=http://localhost:8888"]


def test_empty_sources_render_as_upstream_with_sources_from_extra_args() -> None:
    """`sources: []` renders (upstream does): the sources may come from extraArgs, and RBAC covers them."""
    objects = render_chart({"sources": [], "extraArgs": ["--source=crd"]})
    assert parse_main(objects).core.source_names == ("crd",)
    assert permissions(find(objects, "ClusterRole")["rules"]) == permissions(rules_for_sources(["crd"]))
    notes = render_manifests({"sources": []})[NOTES]
    assert "WARNING: no source" in notes
    assert "WARNING: no source" not in render_manifests({"sources": [], "extraArgs": {"source": "crd"}})[NOTES]


def test_templated_service_account_annotations_and_secret_configuration() -> None:
    values = {"serviceAccount": {"annotations": {"example.com/{{ .Release.Name }}": "{{ .Release.Namespace }}"}},
              "secretConfiguration": {"enabled": True, "mountPath": "/etc/{{ .Release.Name }}/",
                                      "subPath": "{{ .Release.Name }}.json", "data": {"creds": "{{ .Release.Name }}"}}}
    objects = render_chart(values)
    sa = find(objects, "ServiceAccount")
    release = sa["metadata"]["labels"]["app.kubernetes.io/instance"]
    assert sa["metadata"]["annotations"] == {f"example.com/{release}": sa["metadata"]["namespace"]}
    mount = next(m for m in containers(objects)["external-dns"]["volumeMounts"] if m["name"] == "secrets")
    assert (mount["mountPath"], mount["subPath"]) == (f"/etc/{release}/", f"{release}.json")
    assert base64.b64decode(find(objects, "Secret")["data"]["creds"]).decode() == release
