"""The rest of Go's text/template in --fqdn-template / --target-template / --fqdn-target-template (issue 28 item
13): `slice`, `html`, `js`, `urlquery`, `call`, `{{define}}` / `{{template}}` / `{{block}}` and the getters of
Go's typed objects (`.GetName`). Expected values are Go's own (text/template's exec_test.go and funcs' tests,
Go 1.26), run on the data a Kubernetes object gives a template; a list prints through `print` here (printing
it directly is refused on purpose: `[...]` is never a name)."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.gotemplate.execute import MAX_TEMPLATE_DEPTH
from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.template import GoTemplate

OBJ: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod", "uid": "4f6c-uid", "generation": 7, "generateName": "web-",
                 "labels": {"app": "shop", "tier": "front"}, "annotations": {"team": "dns"},
                 "finalizers": ["a", "b"], "resourceVersion": "42"},
    "spec": {"si": [3, 4, 5], "s": "xyz", "flag": True, "ps": "a string", "it": "It'd be nice.",
             "script": '<script>alert("XSS");</script>', "nothing": None},
}


def run(text: str, obj: dict[str, Any] | None = None) -> str:
    return GoTemplate(text).execute(obj or OBJ, "Deployment", "service")


def fails(text: str) -> str:
    with pytest.raises(TemplateError) as err:
        run(text)
    return str(err.value)


# -- slice ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("{{print (slice .Spec.si)}}", "[3 4 5]"),
    ("{{print (slice .Spec.si 1)}}", "[4 5]"),
    ("{{print (slice .Spec.si 1 2)}}", "[4]"),
    ("{{print (slice .Spec.si 1 2 3)}}", "[4]"),
    ("{{slice .Spec.s}}", "xyz"),
    ("{{slice .Spec.s 0 1}}", "x"),
    ("{{slice .Spec.s 1}}", "yz"),
    ("{{slice .Spec.s 1 2}}", "y"),
    ("{{slice .Name 0 1}}-{{slice .Namespace 1}}", "w-rod"),
    ("{{index (slice .Spec.si 1) 0}}", "4"),
    ("{{len (slice .Spec.si 3)}}", "0"),
])
def test_slice(text: str, want: str) -> None:
    assert run(text) == want


@pytest.mark.parametrize(("text", "error"), [
    ("{{slice .Spec.si -1}}", "index out of range: -1"),
    ("{{slice .Spec.si 1 -2}}", "index out of range: -2"),
    ("{{slice .Spec.si 1 2 -1}}", "index out of range: -1"),
    ("{{slice .Spec.si 2 1}}", "invalid slice index: 2 > 1"),
    ("{{slice .Spec.si 2 2 1}}", "invalid slice index: 2 > 1"),
    ("{{slice .Spec.si 4 5}}", "index out of range: 4"),
    ("{{slice .Spec.si 2 2 5}}", "index out of range: 5"),
    ("{{slice .Spec.s 1 5}}", "index out of range: 5"),
    ("{{slice .Spec.s 1 2 2}}", "cannot 3-index slice a string"),
    ("{{slice .Spec.si 1 2 3 4}}", "too many slice indexes: 4"),
    ("{{slice .Spec.si `1`}}", "cannot index slice/array with type string"),
    ("{{slice .Spec.nothing}}", "slice of untyped nil"),
    ("{{slice .Spec.flag}}", "can't slice item of type bool"),
])
def test_slice_errors(text: str, error: str) -> None:
    assert error in fails(text)


# -- html, js, urlquery ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("{{html .Spec.script}}", "&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;"),
    ("{{printf .Spec.script | html}}", "&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;"),
    ("{{html .Spec.ps}}", "a string"),
    ("{{html .Spec.nothing}}", "&lt;nil&gt;"),
    ("{{html .Spec.missing}}", "&lt;no value&gt;"),
    ("{{html 1 2 `x`}}", "1 2x"),  # fmt.Sprint of several arguments
    ("{{html `it's & \x00`}}", "it&#39;s &amp; \ufffd"),
    ("{{js .Spec.it}}", "It\\'d be nice."),
    ('{{js `Go "jump" \\`}}', 'Go \\"jump\\" \\\\'),
    ("{{js `Yukihiro says \"今日は世界\"`}}", 'Yukihiro says \\"今日は世界\\"'),
    ("{{js \"unprintable \\uFFFE\"}}", "unprintable \\uFFFE"),
    ("{{js `<html>`}}", "\\u003Chtml\\u003E"),
    ("{{js `no = in attributes`}}", "no \\u003D in attributes"),
    ("{{js `&#x27; does not become HTML entity`}}", "\\u0026#x27; does not become HTML entity"),
    ("{{js \"tab\\there\"}}", "tab\\u0009here"),
    ('{{"http://www.example.org/"|urlquery}}', "http%3A%2F%2Fwww.example.org%2F"),
    ("{{urlquery `a b&c=d/é~_-.`}}", "a+b%26c%3Dd%2F%C3%A9~_-."),
    ("{{urlquery}}{{html}}{{js}}", ""),
])
def test_escapers(text: str, want: str) -> None:
    assert run(text) == want


# -- call ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "error"), [
    ("{{call .Spec.flag}}", "error calling call: non-function .Spec.flag of type bool"),
    ("{{call .Name}}", "error calling call: non-function .Name of type string"),
    ("{{call .GetName}}", "error calling call: non-function .GetName of type string"),  # the getter ran
    ("{{call nil}}", "error calling call: call of nil"),
    ("{{call .Spec.missing 1}}", "error calling call: call of nil"),
])
def test_call_has_no_function_to_call_in_object_data(text: str, error: str) -> None:
    """Template data holds no function values (external-dns's objects have none either: Go's call fails the
    same way on them, as external-dns's own `{{ call .Name }}` test expects)."""
    assert error in fails(text)


# -- define, template, block -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ('{{define "host"}}{{.Name}}.{{.Namespace}}{{end}}{{template "host" .}}.example.org', "web.prod.example.org"),
    ('{{template "one" 0}}{{define "one"}}{{template "two" .}}{{end}}{{define "two"}}{{template "three" .}}{{end}}'
     '{{define "three"}}{{index "hi" $}}{{end}}', "104"),  # Go's nested templates test: index of "hi" is a byte
    ('a({{block "inner" .Name}}bar({{.}})baz{{end}})b', "a(bar(web)baz)b"),
    ('{{define "x"}}[{{.}}]{{end}}{{template "x" 1}}', "[1]"),
    ('{{define "x"}} {{end}}{{define "x"}}y{{end}}{{template "x"}}', "y"),  # an empty body gives way
    ('{{define "endpoint"}}{{.Name}}.org{{end}}', "web.org"),  # external-dns's template's own name
    ('{{define "x"}}{{$}}{{end}}{{with $v := .Name}}{{template "x" $v}}{{end}}', "web"),  # $ is the new dot
    ('{{define "r"}}{{if .}}x{{template "r" slice . 1}}{{end}}{{end}}{{template "r" "abcd"}}', "xxxx"),
    ('{{define "only"}}x{{end}}', ""),
])
def test_named_templates(text: str, want: str) -> None:
    assert run(text) == want


def test_named_template_failures() -> None:
    assert 'template "nope" not defined' in fails('{{if .Name}}{{template "nope"}}{{end}}')
    assert run('{{if false}}{{template "nope"}}{{end}}ok') == "ok"  # looked up when run, as Go
    assert f"exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})" in fails('{{define "r"}}{{template "r" .}}{{end}}'
                                                                            '{{template "r" .}}')
    deep = '{{define "r"}}' + "{{if true}}" * 60 + '{{template "r" .}}' + "{{end}}" * 60 + '{{end}}{{template "r"}}'
    assert "too deeply" in fails(deep) or "maximum template depth" in fails(deep)
    with pytest.raises(TemplateError, match='multiple definition of template "endpoint"'):
        GoTemplate('{{define "endpoint"}}a{{end}}b')  # both bodies non-empty, as Go
    with pytest.raises(TemplateError, match="undefined variable '\\$v'"):
        GoTemplate('{{$v := 1}}{{define "x"}}{{$v}}{{end}}')  # a definition sees no outer variable


# -- the getters of Go's typed objects ---------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("{{.GetName}}.{{.GetNamespace}}.example.org", "web.prod.example.org"),
    ("{{.ObjectMeta.GetName}}-{{.Metadata.GetNamespace}}", "web-prod"),
    ("{{.GetUID}} {{.GetGeneration}} {{.GetGenerateName}} {{.GetResourceVersion}}", "4f6c-uid 7 web- 42"),
    ('{{index .GetLabels "app"}}.{{index .GetAnnotations "team"}}', "shop.dns"),
    ("{{range .GetFinalizers}}{{.}}{{end}}", "ab"),
    ("{{len .GetOwnerReferences}}{{.GetSelfLink}}", "0"),
    ("{{.GetObjectKind.GroupVersionKind.Kind}}/{{.TypeMeta.GroupVersionKind.Group}}"
     "/{{.GetObjectKind.GroupVersionKind.Version}}", "Deployment/apps/v1"),
    ("{{.GetObjectMeta.GetName}}", "web"),
    ("{{if .GetLabels.tier}}{{.GetLabels.tier}}{{end}}", "front"),
])
def test_object_getters(text: str, want: str) -> None:
    assert run(text) == want


def test_getters_are_the_objects_not_any_maps() -> None:
    assert "no entry for key" in fails("{{.Spec.GetName}}")  # a spec has no such method
    assert "no entry for key" in fails("{{.Labels.GetName}}")  # nor a map of labels
    assert "no entry for key" in fails("{{.GetCreationTimestamp}}")  # timestamps are not offered
    bare = {"metadata": {"name": "n"}}
    assert run("{{.GetName}}{{.GetNamespace}}{{len .GetLabels}}{{.GetGeneration}}", bare) == "n00"
