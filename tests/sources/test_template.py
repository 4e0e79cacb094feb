"""The safe FQDN template engine: what it renders and what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.template import FQDNTemplate, TemplateError, parse_fqdn_template

OBJ: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "Web", "namespace": "prod", "labels": {"team": "Payments"},
                 "annotations": {"zone": "eu", "json": '{"host": "h1"}', "list": '["a", "b"]'}},
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
        ("a }} b", ["a }} b"]),  # Go leaves a lone closing delimiter in text alone
        ("{{/* a comment */}}{{.Name}}.org", ["Web.org"]),
        ("x  {{- /* trimmed */ -}}  .org", ["x.org"]),
        ('{{ printf "%s-%d.%s" .Name 7 "org" }}', ["Web-7.org"]),
        ('{{ print "a" 1 2 "b" }}.org', ["a1 2b.org"]),
        ("{{ (.Name) }}.org", ["Web.org"]),
        ("{{ $n := .Name }}{{ $n = toLower $n }}{{ $n }}.org", ["web.org"]),
        ('{{ with .Labels.team }}{{ . }}{{ else }}none{{ end }}.org', ["Payments.org"]),
        ('{{ with .Labels.nope }}{{ . }}{{ else }}none{{ end }}.org', ["none.org"]),
        ('{{ if eq .Namespace "dev" }}d{{ else if eq .Namespace "prod" }}p{{ else }}o{{ end }}.org', ["p.org"]),
        ('{{ if ne .Namespace "prod" }}x{{ else }}y{{ end }}.org', ["y.org"]),
        ('{{ if eq .Namespace "a" "b" "prod" }}any{{ end }}.org', ["any.org"]),
        ('{{ if not (hasKey .Labels "nope") }}n{{ end }}.org', ["n.org"]),
        ('{{ if and .Name (not .Labels.nope) }}a{{ end }}.org', ["a.org"]),
        ('{{ or .Labels.nope .Name }}.org', ["Web.org"]),
        ('{{ range $i, $p := .Spec.ports }}p{{ $i }}-{{ $p.port }}{{ end }}.org', ["p0-80.org"]),
        ('{{ range .Spec.none }}x{{ else }}empty{{ end }}.org', ["empty.org"]),
        ('{{ range $k, $v := .Labels }}{{ $k }}={{ $v }}{{ end }}.org', ["team=Payments.org"]),
        ('{{ range 3 }}{{ if eq . 1 }}{{ continue }}{{ end }}{{ . }}{{ end }}.org', ["02.org"]),
        ('{{ len .Name }}.{{ len .Spec.ports }}.org', ["3.1.org"]),
        ('{{ if gt (len .Name) 2 }}long{{ end }}.org', ["long.org"]),
        ('{{ if lt 1.5 2.5 }}f{{ end }}{{ if ge "b" "a" }}s{{ end }}.org', ["fs.org"]),
        ('{{ .Spec.Type | toLower }}.org', ["loadbalancer.org"]),  # Go field name -> JSON key
        ('{{ .ObjectMeta.Name }}.{{ .TypeMeta.Kind }}.org', ["Web.Service.org"]),
        ('{{ .Object.metadata.namespace }}.org', ["prod.org"]),
        ('{{ index (index .Annotations "json" | fromJson) "host" }}.org', ["h1.org"]),
        ('{{ range (index .Annotations "list" | fromJson) }}{{ . }}.org,{{ end }}', ["a.org", "b.org"]),
        ('{{ if fromJson "not json" }}x{{ else }}nil{{ end }}.org', ["nil.org"]),
        ('{{ if isIPv4 "192.0.2.1" }}4{{ end }}{{ if isIPv6 "::ffff:192.0.2.1" }}6{{ end }}.org', ["46.org"]),
        ('{{ if isIPv4 "01.2.3.4" }}bad{{ else }}ok{{ end }}.org', ["ok.org"]),
        ('{{ if isSource "service" }}svc{{ else }}other{{ end }}.org', ["other.org"]),
        ('{{ toUpper "ab" | printf "%s.org" }}', ["AB.org"]),
        ('{{ "a.b.c" | replace "." "-" }}.org', ["a-b-c.org"]),
        ("{{ 'a' }}{{ 0x10 }}{{ -1 }}.org", ["9716-1.org"]),
        ('{{ "\\u00e9" }}.org', ["\u00e9.org"]),
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
        ("{{ call }}", "wrong number of args for call: want at least 1 got 0"),
        ("{{ .Name + 1 }}", "unexpected '+'"),
        ("{{}}", "empty command"),
        ("{{.__class__.__init__}}", ""),  # parses: only dict keys are ever read (see test_no_python_reach)
        ("{{ template .Name }}", "unexpected 'Name' in template clause"),
        ('{{ if .Name }}{{ define "x" }}y{{ end }}{{ end }}', "unexpected <define> in command"),
        ('{{ define "x" }}y{{ end }}{{ define "x" }}z{{ end }}', 'multiple definition of template "x"'),
        ('{{ block "x" }}y{{ end }}', "empty block clause"),
        ('{{ define "x" }}y', "unexpected EOF in define clause"),
        ("{{ $x }}", "undefined variable '$x'"),
        ("{{ $x = 1 }}", "undefined variable '$x'"),
        ("{{ $k, $v := .Labels }}", "too many declarations"),
        ("{{ toLower }}", "wrong number of args for toLower: want 1 got 0"),
        ('{{ trimPrefix .Name }}', "wrong number of args for trimPrefix: want 2 got 1"),
        ("{{ .Name | }}", "missing command"),
        ("{{ .Name .Namespace }}", "can't give argument to non-function .Name"),
        ('{{ "a\\q" }}', "unsupported escape"),
        ('{{ "abc }}', "unterminated quoted string"),
        ("{{ .Name | .Namespace }}", "can't give argument to non-function .Namespace"),
        ("{{ if .Name }}x", "has no {{end}}"),
        ("{{ end }}", "unexpected {{end}}"),
        ("{{ break }}", "{{break}} outside {{range}}"),
        ("{{ nil }}", "nil is not a command"),
        ("{{ (.Name }}", "unclosed left paren"),
        ("{{ 1x }}", "bad number syntax"),
        ("{{/* open", "unclosed comment"),
        ("{{ else }}", "unexpected {{else}}"),
        ("(" * 0 + "{{" + "(" * 70 + ".Name" + ")" * 70 + "}}", "more than 64 nested"),
    ],
)
def test_refusals(template: str, fragment: str) -> None:
    if not fragment:
        FQDNTemplate(template)
        return
    with pytest.raises(TemplateError) as err:
        FQDNTemplate(template)
    assert fragment in str(err.value)


def test_parse_errors_name_line_and_column() -> None:
    with pytest.raises(TemplateError) as err:
        FQDNTemplate("a\n  {{ .Name | nope }}")
    assert "template: 2:14: function 'nope' not defined" in str(err.value)


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("{{.Spec.missing}}.org", "map has no entry for key 'missing'"),
        ("{{.Labels.nope}}.org", "map has no entry for key 'nope'"),
        ("{{.Spec.ports}}.org", "value is a list, not a string"),
        ("{{.Spec}}.org", "value is a map, not a string"),
        ("{{.Name.x}}.org", "can't evaluate field x in type string"),
        ("{{.Spec.missing.x}}.org", "nil pointer evaluating <no value>.x"),
        ('{{index .Name "x"}}.org', "cannot index slice/array with type string"),
        ('{{index .Spec.ports 5}}.org', "index out of range: 5"),
        ('{{ toLower .Labels.nope }}', "toLower: invalid value (map has no entry for key 'nope'); expected string"),
        ('{{ toLower 5 }}', "toLower: wrong type for value; expected string; got int"),
        ('{{ if eq .Name 5 }}x{{ end }}', "incompatible types for comparison"),
        ('{{ if lt .Spec.ports 5 }}x{{ end }}', "invalid type for comparison"),
        ('{{ range .Name }}x{{ end }}', "range can't iterate over string"),
        ('{{ len 5 }}', "len of type int"),
        ('{{ hasKey .Name "x" }}', "expected map"),
    ],
)
def test_execution_errors(template: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as err:
        FQDNTemplate(template).render(OBJ)
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"template {template!r}: ")


def test_empty_template_is_none() -> None:
    assert parse_fqdn_template("") is None
    assert parse_fqdn_template("  ") is None
    assert parse_fqdn_template(None) is None


def test_no_python_reach() -> None:
    # names are dict keys only: Python attributes are just missing keys
    for template in ("{{ .__class__ }}", "{{ .Name.__len__ }}", "{{ $.__dict__ }}"):
        with pytest.raises(TemplateError, match=r"no entry for key|can.t evaluate field"):
            FQDNTemplate(template).render(OBJ)


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ('{{ range 20000 }}x{{ end }}', "more than 10000 range iterations"),
        ('{{ range 100 }}{{ range 100 }}{{ range 2 }}{{ end }}{{ end }}{{ end }}', "range iterations"),
        ('{{ range 9000 }}xxxxxxxxxx{{ end }}', "output larger than 65536 bytes"),
        ('{{ $s := "aaaaaaaaaaaaaaaa" }}{{ range 20 }}{{ $s = replace "a" "aa" $s }}{{ end }}',
         "a value grew beyond 65536 bytes"),
        ('{{ replace "" (printf "%100s" "") (printf "%1000s" "") }}', "a value grew beyond"),
        ('{{ printf "%100000s" "x" }}', "width or precision larger than 1024"),
    ],
)
def test_limits(template: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as err:
        FQDNTemplate(template).render(OBJ)
    assert fragment in str(err.value)


def test_template_size_is_capped() -> None:
    with pytest.raises(TemplateError, match="longer than 65536 bytes"):
        FQDNTemplate("x" * 70_000)


def test_is_source_compares_with_the_running_source() -> None:
    t = FQDNTemplate('{{ if isSource "ingress" }}{{ .Name }}.ing.org{{ end }}')
    assert t.render(OBJ, source="ingress") == ["Web.ing.org"]
    assert t.render(OBJ, source="service") == []


def test_repeated_flag_values_join_with_commas() -> None:
    t = parse_fqdn_template(["{{.Name}}.a.org", "", "{{.Name}}.b.org"])
    assert t is not None and t.text == "{{.Name}}.a.org,{{.Name}}.b.org"
    assert t.render(OBJ) == ["Web.a.org", "Web.b.org"]
    assert parse_fqdn_template(["", " "]) is None


def test_fqdn_target_pairs() -> None:
    t = FQDNTemplate('{{ .Name }}.org:192.0.2.1, {{ .Name }}.org:{{ .Namespace }}.lb.net., '
                     'v6.org:2001:db8::1, nocolon.org, empty.org:, :1.2.3.4')
    pairs, skipped = t.pairs(OBJ)
    assert pairs == [("Web.org", "192.0.2.1"), ("Web.org", "prod.lb.net"), ("v6.org", "2001:db8::1")]
    assert skipped == [":1.2.3.4", "empty.org:", "nocolon.org"]
