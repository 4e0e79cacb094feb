"""The safe FQDN template engine: what it renders and what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.template import FQDNTemplate, TemplateError, parse_fqdn_template

OBJ: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "Web", "namespace": "prod", "labels": {"team": "Payments"},
                 "annotations": {"zone": "eu"}},
    "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]},
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{.Name}}.example.org", ["Web.example.org"]),
        ("{{.Name}}.{{.Namespace}}.example.org.", ["Web.prod.example.org"]),
        ("{{.Name}}.a.org, {{.Name}}.b.org,{{.Name}}.a.org", ["Web.a.org", "Web.b.org"]),
        ("{{ .Kind | toLower }}-{{.Name | toLower}}.example.org", ["service-web.example.org"]),
        ('{{index .Labels "team" | toLower}}.example.org', ["payments.example.org"]),
        ('{{index .Annotations "zone"}}.example.org', ["eu.example.org"]),
        ('x{{index .Labels "missing"}}.example.org', ["x.example.org"]),
        ('{{trimPrefix .Name "W"}}.example.org', ["eb.example.org"]),
        ('{{trimSuffix .Namespace "od"}}.example.org', ["pr.example.org"]),
        ('{{replace "e" "3" .Name}}.example.org', ["W3b.example.org"]),
        ("{{.Labels.team}}.example.org", ["Payments.example.org"]),
        ("{{.Spec.type}}.example.org", ["LoadBalancer.example.org"]),
        ("{{- .Name -}} .example.org", ["Web.example.org"]),
        ('{{`raw`}}.{{"q\\"x" | trim}}.org', ['raw.q"x.org']),
        (",,", []),
        ("static.example.org", ["static.example.org"]),
    ],
)
def test_render(template: str, expected: list[str]) -> None:
    t = parse_fqdn_template(template)
    assert t is not None
    assert t.render(OBJ) == expected


def test_kind_falls_back_to_argument() -> None:
    obj = {"metadata": {"name": "a"}}
    assert FQDNTemplate("{{.Kind}}.{{.Name}}.org").render(obj, "Ingress") == ["Ingress.a.org"]


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("{{.Name", "unclosed action"),
        ("{{.Name}}}}", "unexpected '}}'"),
        ('{{printf "%s" .Name}}', "function 'printf' is not allowed"),
        ("{{ call .Name }}", "function 'call' is not allowed"),
        ("{{ .Name + 1 }}", "unexpected '+'"),
        ("{{ (.Name) }}", "unexpected '('"),
        ("{{}}", "empty action"),
        ("{{.__class__}}", "bad field"),
        ("{{.Name.}}", "bad field"),
        ("{{ .Secret }}", "unknown field .Secret"),
        ("{{ if .Name }}x{{ end }}", "function 'if' is not allowed"),
        ("{{ range .Labels }}x{{ end }}", "function 'range' is not allowed"),
        ('{{ template "x" }}', "function 'template' is not allowed"),
        ("{{ $x := .Name }}", "unexpected '$'"),
        ("{{ toLower }}", "toLower takes 1 argument(s), got 0"),
        ('{{ trimPrefix .Name }}', "trimPrefix takes 2 argument(s), got 1"),
        ("{{ index .Labels }}", "index needs a map and at least one key"),
        ("{{ .Name | }}", "missing command"),
        ("{{ .Name .Namespace }}", "is not a function"),
        ('{{ "a\\q" }}', "unsupported escape"),
        ('{{ "abc }}', "unclosed action"),
        ("{{ .Name | .Namespace }}", "is not a function"),
    ],
)
def test_refusals(template: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as err:
        FQDNTemplate(template)
    assert fragment in str(err.value)


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("{{.Spec.missing}}.org", "no entry for key 'missing'"),
        ("{{.Labels.nope}}.org", "no entry for key 'nope'"),
        ("{{.Spec.ports}}.org", "is a list, not a string"),
        ("{{.Name.x}}.org", "cannot read a field of a str"),
        ('{{index .Name "x"}}.org', "index of a str"),
    ],
)
def test_execution_errors(template: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as err:
        FQDNTemplate(template).render(OBJ)
    assert fragment in str(err.value)


def test_empty_template_is_none() -> None:
    assert parse_fqdn_template("") is None
    assert parse_fqdn_template("  ") is None
    assert parse_fqdn_template(None) is None
