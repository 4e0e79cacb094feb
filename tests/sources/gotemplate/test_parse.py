"""The template parser (sources/gotemplate/parse.py): tokens to a tree of frozen nodes, everything checked before
anything runs (functions, variables, controls, nesting), named templates gathered into a program."""

from __future__ import annotations

import pytest

from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.gotemplate.parse import (
    MAX_DEPTH,
    Action,
    Command,
    Control,
    Field,
    Ident,
    Pipeline,
    TemplateCall,
    Text,
    Variable,
    parse,
    parse_program,
)


def test_a_pipeline_and_a_range_as_nodes() -> None:
    [first, action] = parse("a.{{ .Name | toLower }}")
    assert first == Text("a.")
    assert isinstance(action, Action) and [c.operands for c in action.pipe.commands] == [
        (Field(("Name",)),), (Ident("toLower"),)]
    text = "{{range $k, $v := .Labels}}{{$k}}{{end}}"
    [loop] = parse(text)
    assert isinstance(loop, Control) and loop.kind == "range" and loop.pipe.decl == ("$k", "$v")
    [inner] = loop.body
    at = text.index("$k}}")  # nodes keep their offset for the errors of a run
    assert isinstance(inner, Action) and inner.pipe == Pipeline((), False, (Command((Variable("$k", ()),), at),), at)


@pytest.mark.parametrize(("text", "message"), [
    ("{{ nope .X }}", "template: 1:4: function 'nope' not defined (allowed: and, call, contains,"),
    ("{{ $v }}", "template: 1:4: undefined variable '$v'"),
    ("{{end}}", "template: 1:3: unexpected {{end}}"),
    ("{{if .X}}a", "template: 1:3: unexpected EOF: {{if}} has no {{end}}"),
    ('{{ if 1 }}{{ define "x" }}y{{ end }}{{ end }}', "template: 1:14: unexpected <define> in command"),
    ("{{ .X | 3 }}", "template: 1:9: can't give argument to non-function 3"),
    ("{{" + "(" * (MAX_DEPTH + 6) + ".X" + ")" * (MAX_DEPTH + 6) + "}}", f"more than {MAX_DEPTH} nested parentheses"),
])
def test_refused_before_anything_runs(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as info:
        parse(text)
    assert str(info.value).startswith(message) or message in str(info.value)


def test_named_templates_are_gathered_into_a_program() -> None:
    program = parse_program('{{define "a"}}A{{end}}{{template "a"}}')
    assert program.templates["a"] == (Text("A"),)
    assert program.templates["endpoint"] == program.main  # the main template under external-dns's name
    assert any(isinstance(n, TemplateCall) and n.name == "a" for n in program.main)
    assert parse("plain text") == (Text("plain text"),)
