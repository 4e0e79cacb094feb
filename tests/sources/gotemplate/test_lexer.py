"""The template lexer (sources/gotemplate/lexer.py): text and action tokens, Go's trim markers and comments, string,
raw string, character and number literals with Go's escapes, and every refusal naming Go's line:column."""

from __future__ import annotations

import pytest

from external_dns.sources.gotemplate.lexer import MAX_TEMPLATE_BYTES, Lexer, TemplateError, position


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.value) for t in Lexer(text).run()]


def test_text_and_an_action() -> None:
    assert kinds('a.{{ .Name | printf "%s" $x }}.org') == [
        ("text", "a."), ("left", "{{"), ("field", "Name"), ("|", "|"), ("ident", "printf"), ("string", "%s"),
        ("var", "$x"), ("right", "}}"), ("text", ".org"), ("eof", "")]


def test_trim_markers_and_comments() -> None:
    assert kinds("a  {{- .X -}}  b") == [("text", "a"), ("left", "{{"), ("field", "X"), ("right", "}}"),
                                         ("text", "b"), ("eof", "")]
    assert kinds("a{{-1}}") == [("text", "a"), ("left", "{{"), ("number", "-1"), ("right", "}}"), ("eof", "")]
    assert kinds("a {{/* note */}} b {{- /* trimmed */ -}} c") == [("text", "a "), ("text", " b"), ("text", "c"),
                                                                    ("eof", "")]


def test_literals_with_gos_escapes() -> None:
    toks = kinds(r'{{ "a\tb\x41\u00e9\101\"" `raw\n` ' + "'x' '\\n' 0x1F 1e+3 -2.5 $v := .A.B }}")
    assert toks[1:-2] == [("string", 'a\tbAéA"'), ("string", "raw\\n"), ("char", str(ord("x"))), ("char", "10"),
                          ("number", "0x1F"), ("number", "1e+3"), ("number", "-2.5"), ("var", "$v"), (":=", ":="),
                          ("field", "A"), ("field", "B")]


@pytest.mark.parametrize(("text", "message"), [
    ("a\n {{ .Name", "template: 2:2: unclosed action"),
    ('{{ "open }}', "template: 1:1: unterminated quoted string"),
    ("{{ `raw }}", "template: 1:1: unclosed action (unterminated raw quoted string)"),
    (r'{{ "\q" }}', "template: 1:5: unsupported escape in quoted string"),
    ("{{ 'ab' }}", "template: 1:4: malformed character constant"),
    ("{{ /* open", "template: 1:1: unclosed comment"),
    ("{{/* c */ x}}", "template: 1:1: comment ends before closing delimiter"),
    ("x\n\n   {{ ; }}", "template: 3:7: unexpected ';' in command"),
])
def test_refusals_name_line_and_column(text: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Lexer(text).run()


def test_size_limit_and_positions() -> None:
    with pytest.raises(TemplateError, match=f"template is longer than {MAX_TEMPLATE_BYTES} bytes"):
        Lexer("é" * (MAX_TEMPLATE_BYTES // 2 + 1))  # counted in bytes, not characters
    assert position("ab\ncd", 0) == "1:1" and position("ab\ncd", 4) == "2:2"
