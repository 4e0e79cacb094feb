"""Go's text/template builtins in --fqdn-template and the other template flags (sources/gotemplate/funcs.py, issue 28
item 13): `slice`, `html`, `js`, `urlquery` and `call`, with Go's own results on a Kubernetes object's data; a list
prints through `print` here (printing it directly is refused on purpose: `[...]` is never a name)."""

from __future__ import annotations

import pytest

from tests.sources.gotemplate.helpers import fails, run


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
