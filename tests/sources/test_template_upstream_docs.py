"""Every template example of external-dns's own guides (docs/advanced/fqdn-templating.md and the template
examples of docs/sources/unstructured.md) rendered on the objects those guides describe, with the names
they say come out. Where a guide's text contradicts Go's behaviour, the Go behaviour is tested and the
row says so."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.template import FQDNTemplate


def _svc(name: str, namespace: str = "default", labels: dict[str, str] | None = None,
         annotations: dict[str, str] | None = None, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {},
                         "annotations": annotations or {}},
            "spec": spec or {"type": "ClusterIP"}}


def _pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                           "labels": labels}, "spec": {}}


MY_SERVICE = _svc("my-service", "my-namespace")
NGINX_V2 = _svc("nginx-v2", "my-namespace", annotations={"dns.company.com/label": "my-org-tld-v2"},
                spec={"type": "ClusterIP", "clusterIP": "None"})
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.7"},
                                 {"type": "ExternalIP", "address": "2001:db8::7"},
                                 {"type": "ExternalIP", "address": "203.0.113.7"},
                                 {"type": "ExternalIP", "address": "203.0.113.8"}]}}

KIND_TEMPLATE = '{{ if eq .Kind "Service" }}{{ .Name }}.svc.example.com{{ end }}'
TWO_KINDS = ('{{ if eq .Kind "Service" }}{{ .Name }}.svc.example.com{{ end }}'
             '{{ if eq .Kind "Pod" }}{{ .Name }}.pod.example.com{{ end }}')
EXTERNAL_NAME = ('{{ if eq .Kind "Service" }}{{ if eq .Spec.Type "ExternalName" }}{{ .Name }}'
                 '.external.example.com{{ end }}{{ end }}')
SELECTOR = ('{{ if eq .Kind "Service" }}{{ if index .Spec.Selector "app" }}{{ .Name }}.'
            '{{ index .Spec.Selector "app" }}.example.com{{ end }}{{ end }}')
RANGE_LABELS = ('{{ if eq .Kind "Service" }}{{ range $key, $value := .Labels }}{{ if contains $key "app" }}'
                '{{ $.Name }}.{{ $value }}.example.com{{ printf "," }}{{ end }}{{ end }}{{ end }}')
ANNOTATION_KEYS = ('{{ range $key, $value := .Annotations }}{{ if contains $key "dns.example.com/" }}'
                   '{{ $value }}{{ printf "," }}{{ end }}{{ end }}')
ANNOTATION_VALUES = ('{{ range $key, $value := .Annotations }}{{ if contains $value ".example.com" }}'
                     '{{ $value }}{{ printf "," }}{{ end }}{{ end }}')
KEY_AND_VALUE = ('{{ if eq .Kind "Service" }}{{ range $k, $v := .Annotations }}{{ if and (contains $k "dns/") '
                 '(contains $v "example.com") }}{{ $v }}{{ printf "," }}{{ end }}{{ end }}{{ end }}')
POD_LABELS = ('{{ if eq .Kind "Pod" }}{{ range $k, $v := .Labels }}{{ if and (contains $k "app") '
              '(contains $v "my-service-") }}{{ $.Name }}.{{ $v }}.example.com{{ printf "," }}{{ end }}{{ end }}'
              '{{ end }}')
MULTI_VARIANT = ('{{ .Name }}.{{ .Labels.env }}.{{ .Labels.region }}.example.com, {{ if eq .Labels.env "prod" }}'
                 '{{ .Name }}.my-company.tld{{ end }}')
NODE_ADDRESSES = ('{{range .Status.Addresses}}{{if and (eq .Type "ExternalIP") (isIPv4 .Address)}}'
                  '{{.Address | replace "." "-"}}{{break}}{{end}}{{end}}.example.com')

CASES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    ("basic usage", "{{ .Name }}.example.com,{{ .Name }}.{{ .Namespace }}.example.tld", MY_SERVICE,
     ["my-service.example.com", "my-service.my-namespace.example.tld"]),
    ("with namespace", "{{.Name}}.{{.Namespace}}.example.com", _svc("my-service"),
     ["my-service.default.example.com"]),
    ("with namespace (2)", "{{.Name}}.{{.Namespace}}.example.com", _svc("other-service", "kube-system"),
     ["other-service.kube-system.example.com"]),
    ("labels", "{{ .Labels.environment }}.{{ .Name }}.example.com",
     _svc("my-service", labels={"environment": "staging"}), ["staging.my-service.example.com"]),
    ("multiple templates", "{{.Name}}.example.com,{{.Name}}.svc.example.com", MY_SERVICE,
     ["my-service.example.com", "my-service.svc.example.com"]),
    ("or default (annotation set)", '{{ or .Annotations.dns "invalid" }}.example.com',
     _svc("a", annotations={"dns": "shop"}), ["shop.example.com"]),
    ("or default (annotation missing)", '{{ or .Annotations.dns "invalid" }}.example.com', _svc("a"),
     ["invalid.example.com"]),
    ("annotation via ObjectMeta",
     '{{ index .ObjectMeta.Annotations "dns.company.com/label" }}.{{ .Namespace }}.company.local', NGINX_V2,
     ["my-org-tld-v2.my-namespace.company.local"]),
    ("scheme migration", "{{.Name}}.new-dns.example.com", MY_SERVICE, ["my-service.new-dns.example.com"]),
    ("kind: service", KIND_TEMPLATE, MY_SERVICE, ["my-service.svc.example.com"]),
    ("kind: pods skipped", KIND_TEMPLATE, _pod("p", {}), []),
    ("two kinds: service", TWO_KINDS, MY_SERVICE, ["my-service.svc.example.com"]),
    ("two kinds: pod", TWO_KINDS, _pod("web-0", {}), ["web-0.pod.example.com"]),
    ("ExternalName only", EXTERNAL_NAME, _svc("ext", spec={"type": "ExternalName", "externalName": "x.org"}),
     ["ext.external.example.com"]),
    ("ExternalName only (ClusterIP skipped)", EXTERNAL_NAME, MY_SERVICE, []),
    ("selector", SELECTOR, _svc("web", spec={"type": "ClusterIP", "selector": {"app": "shop"}}),
     ["web.shop.example.com"]),
    ("selector missing", SELECTOR, _svc("web", spec={"type": "ClusterIP", "selector": {"tier": "x"}}), []),
    ("range over labels", RANGE_LABELS,
     _svc("web", labels={"app": "shop", "app.kubernetes.io/name": "cart", "tier": "front"}),
     ["web.cart.example.com", "web.shop.example.com"]),
    ("one annotation", '{{ index .Annotations "dns.example.com/hostname" }}.example.com',
     _svc("a", annotations={"dns.example.com/hostname": "api"}), ["api.example.com"]),
    ("annotation keys", ANNOTATION_KEYS,
     _svc("a", annotations={"dns.example.com/a": "a.example.org", "dns.example.com/b": "b.example.org",
                            "other/c": "c.example.org"}), ["a.example.org", "b.example.org"]),
    ("annotation values", ANNOTATION_VALUES,
     _svc("a", annotations={"x": "one.example.com", "y": "two.example.net"}), ["one.example.com"]),
    ("annotation key and value", KEY_AND_VALUE,
     _svc("a", annotations={"dns/a": "a.example.com", "dns/b": "b.example.net", "x/c": "c.example.com"}),
     ["a.example.com"]),
    ("kind and label filters", POD_LABELS, _pod("pod-name", {"app1": "my-service-123", "other": "x"}),
     ["pod-name.my-service-123.example.com"]),
    ("multi-variant (prod)", MULTI_VARIANT, _svc("api", labels={"env": "prod", "region": "us-east-1"}),
     ["api.my-company.tld", "api.prod.us-east-1.example.com"]),
    ("multi-variant (staging)", MULTI_VARIANT, _svc("api", labels={"env": "staging", "region": "eu"}),
     ["api.staging.eu.example.com"]),
    ("annotation in template", "{{.Annotations.hostname}}.example.com",
     _svc("a", annotations={"hostname": "shop"}), ["shop.example.com"]),
    ("helm-escaped template after tpl", "{{ .Name }}.uat.example.com", MY_SERVICE,
     ["my-service.uat.example.com"]),
    ("node addresses", NODE_ADDRESSES, NODE, ["203-0-113-7.example.com"]),
    # the function table
    ("contains", '{{ if contains "hello" "ell" }}true{{ end }}.org', MY_SERVICE, ["true.org"]),
    ("isIPv4", '{{ isIPv4 "192.168.1.1" }}.org', MY_SERVICE, ["true.org"]),
    ("isIPv6", '{{ isIPv6 "2001:db8::1" }}.org', MY_SERVICE, ["true.org"]),
    ("isIPv6 (mapped)", '{{ isIPv6 "::FFFF:192.168.1.1" }}.org', MY_SERVICE, ["true.org"]),
    # the guide writes `replace "hello" "l" "w" -> hewwo`; external-dns's replace is (old, new, target), so
    # that call replaces "hello" in "w" and the target-last call gives "hewwo"
    ("replace (guide's order)", '{{ replace "hello" "l" "w" }}.org', MY_SERVICE, ["w.org"]),
    ("replace (target last)", '{{ replace "l" "w" "hello" }}.org', MY_SERVICE, ["hewwo.org"]),
    ("trim", '{{ trim "  hello  " }}.org', MY_SERVICE, ["hello.org"]),
    ("toLower", '{{ toLower "HELLO" }}.org', MY_SERVICE, ["hello.org"]),
    # the guide writes `trimPrefix "pre" "prefix" -> fix`; Go's strings.TrimPrefix(s, prefix) takes the
    # string first, so that call gives "pre" and the string-first call gives "fix"
    ("trimPrefix (guide's order)", '{{ trimPrefix "pre" "prefix" }}.org', MY_SERVICE, ["pre.org"]),
    ("trimPrefix", '{{ trimPrefix "prefix" "pre" }}.org', MY_SERVICE, ["fix.org"]),
    ("trimSuffix (guide's order)", '{{ trimSuffix "fix" "suffix" }}.org', MY_SERVICE, ["fix.org"]),
    ("trimSuffix", '{{ trimSuffix "suffix" "fix" }}.org', MY_SERVICE, ["suf.org"]),
]


@pytest.mark.parametrize(("template", "obj", "names"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fqdn_templating_guide(template: str, obj: dict[str, Any], names: list[str]) -> None:
    assert FQDNTemplate(template).render(obj) == names


# docs/sources/unstructured.md: the target templates of its examples, on the objects it shows
VMI = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance",
       "metadata": {"name": "vm1", "namespace": "lab"},
       "status": {"interfaces": [{"ipAddress": "10.1.2.3", "name": "default"}]}}
RDS = {"apiVersion": "rds.aws.crossplane.io/v1alpha1", "kind": "RDSInstance", "metadata": {"name": "orders"},
       "status": {"atProvider": {"endpoint": {"address": "orders.abc.rds.amazonaws.com"}}}}
POOL = {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
        "metadata": {"name": "production-pool", "namespace": "metallb-system",
                     "annotations": {"external-dns.alpha.kubernetes.io/hostname": "lb.example.com"}},
        "spec": {"addresses": ["192.168.10.11/32"]}}
ROUTE = {"apiVersion": "apisix.apache.org/v2", "kind": "ApisixRoute",
         "metadata": {"name": "httpbin", "namespace": "ingress-apisix"},
         "status": {"apisix": {"gateway": "apisix-gateway.ingress-apisix.svc.cluster.local"}}}
CERT = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": {"name": "my-app-tls", "namespace": "production",
                     "annotations": {"external-dns.alpha.kubernetes.io/target": "10.0.0.50"}},
        "spec": {"dnsNames": ["my-app.example.com", "www.my-app.example.com"]}}

UNSTRUCTURED = [
    ("kubevirt", VMI, "{{.Name}}.{{.Namespace}}.vmi.example.com", '{{index .Status.interfaces 0 "ipAddress"}}',
     ["vm1.lab.vmi.example.com"], ["10.1.2.3"]),
    ("crossplane", RDS, "{{.Name}}.db.example.com", "{{.Status.atProvider.endpoint.address}}",
     ["orders.db.example.com"], ["orders.abc.rds.amazonaws.com"]),
    ("by kind", RDS, "{{.Name}}.{{.Kind}}.example.com", "{{.Status.atProvider.endpoint.address}}",
     ["orders.RDSInstance.example.com"], ["orders.abc.rds.amazonaws.com"]),
    ("metallb", POOL, '{{index .Annotations "external-dns.alpha.kubernetes.io/hostname"}}',
     "{{index .Spec.addresses 0}}", ["lb.example.com"], ["192.168.10.11/32"]),
    ("apisix", ROUTE, "{{.Name}}.route.example.com", "{{.Status.apisix.gateway}}",
     ["httpbin.route.example.com"], ["apisix-gateway.ingress-apisix.svc.cluster.local"]),
    ("cert-manager", CERT, "{{index .Spec.dnsNames 0}}",
     '{{index .Annotations "external-dns.alpha.kubernetes.io/target"}}', ["my-app.example.com"], ["10.0.0.50"]),
]


@pytest.mark.parametrize(("obj", "fqdn", "target", "names", "targets"), [c[1:] for c in UNSTRUCTURED],
                         ids=[c[0] for c in UNSTRUCTURED])
def test_unstructured_guide(obj: dict[str, Any], fqdn: str, target: str, names: list[str],
                            targets: list[str]) -> None:
    assert FQDNTemplate(fqdn).render(obj) == names
    assert FQDNTemplate(target).render(obj) == targets


def test_missing_label_in_a_plain_field_is_an_error_for_that_object() -> None:
    # the multi-variant template on an object without the `region` label: Go prints "<no value>" into
    # the name (which then fails validation); here the object is reported instead
    with pytest.raises(ValueError, match="no entry for key 'region'"):
        FQDNTemplate(MULTI_VARIANT).render(_svc("api", labels={"env": "prod"}))


def test_faq_template() -> None:
    # docs/faq.md: `--fqdn-template={{.Name}}.my-org.com`
    assert FQDNTemplate("{{.Name}}.my-org.com").render(MY_SERVICE) == ["my-service.my-org.com"]


@pytest.mark.parametrize("template", ["{{name}}.uat.example.com", "{{name}}.example.org"])
def test_the_guides_improper_syntax_is_refused(template: str) -> None:
    # the templating guide's "improper templating syntax" example (and the Kafka tutorial's form): Go fails
    # with `function "name" not defined`; so does this engine, at start-up
    with pytest.raises(ValueError, match="function 'name' not defined"):
        FQDNTemplate(template)
