"""Named templates (sources/gotemplate/execute.py, issue 28 item 13): `{{define}}`, `{{template}}` and `{{block}}`
as Go runs them, and what Go refuses (undefined names, recursion past MAX_TEMPLATE_DEPTH, outer variables)."""

from __future__ import annotations

import pytest

from external_dns.sources.gotemplate.execute import MAX_TEMPLATE_DEPTH
from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.template import GoTemplate
from tests.sources.gotemplate.helpers import fails, run


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
