"""Property tests of the template engine: whatever the template text and whatever the object, parsing and
rendering either succeed or raise TemplateError (never another exception, never unbounded work), and the
engine agrees with a direct reading of the object on generated field templates."""

from __future__ import annotations

import contextlib
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from external_dns.sources.gotemplate import execute
from external_dns.sources.gotemplate.funcs import FUNCS
from external_dns.sources.gotemplate.parse import Action, Command, Ident, Pipeline
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
@example("{{len fromJson}}", None, {})  # a function given as an argument is called bare: was an IndexError
@example("}} .", None, {})  # Go trims an item, then drops its trailing dot: the name "}} " keeps a space
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
    # items split on ',', trimmed, then one trailing dot dropped (as Go): "a ." gives "a " (edge validation
    # refuses that name later), so only the start is always trimmed
    assert all(isinstance(n, str) and n and "," not in n and n == n.lstrip() and (n + ".").strip() == n + "."
               for n in names)


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


NEEDS_ARGS = sorted(name for name, (_fn, low, _high) in FUNCS.items() if low > 0)


@pytest.mark.parametrize("name", NEEDS_ARGS)
def test_a_function_given_bare_as_an_argument_is_refused_with_gos_message(name: str) -> None:
    # Go calls a function named as an argument with no arguments; ours are refused when parsed, in Go's words
    want = FUNCS[name][1] if FUNCS[name][1] == FUNCS[name][2] else f"at least {FUNCS[name][1]}"
    with pytest.raises(TemplateError, match=f"1:10: wrong number of args for {name}: want {want} got 0$"):
        FQDNTemplate(f"{{{{ print {name} }}}}.org")


@pytest.mark.parametrize("name", NEEDS_ARGS)
def test_the_executor_checks_arity_itself(name: str) -> None:
    # a tree the parser would refuse: the executor still answers TemplateError, never an IndexError
    tree = (Action(Pipeline((), False, (Command((Ident(name),), 0),), 0)),)
    with pytest.raises(TemplateError, match=f"^wrong number of args for {name}: want .* got 0$"):
        execute.run(tree, {})
