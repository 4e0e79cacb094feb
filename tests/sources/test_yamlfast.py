"""FastSafeLoader gives exactly what PyYAML's safe loader gives: the same documents, the same errors."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.sources.yamlfast import FastSafeLoader

SAFE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def both(text: str) -> tuple[Any, Any]:
    def load(loader: Any) -> Any:
        try:
            return ("ok", list(yaml.load_all(text, Loader=loader)))
        except yaml.YAMLError as exc:
            return ("error", type(exc).__name__, str(exc))

    return load(SAFE), load(FastSafeLoader)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20),
                    st.sampled_from(["yes", "No", "on", "~", "null", "0x1f", "0o17", "1_000", "1e3", ".inf", "-.Inf",
                                     "2001-12-14t21:59:43.10-05:00", "2002-12-14", "<<", "=", "", " ", "'", '"',
                                     "a: b", "- x", "#c", "&a", "*a", "!t", "%", "@", "`"]),
                    st.dates(), st.datetimes(timezones=st.none()))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner, max_size=4)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(values, min_size=1, max_size=3), flow=st.sampled_from([None, True, False]))
def test_same_documents_as_the_safe_loader(docs: list[Any], flow: bool | None) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, allow_unicode=True)
    safe, fast = both(text)
    assert fast == safe


@pytest.mark.parametrize("text", [
    "a: &x {k: [1, 2]}\nb: *x\nc: *x\n",
    "base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\n",
    "- &l [1, 2]\n- <<: [{a: 1}, {b: 2}]\n  c: 3\n",
    "a: !!str 123\nb: !!int '7'\nc: !!float '1'\nd: !!bool 'yes'\ne: !!null ''\n",
    "bin: !!binary aGVsbG8=\nts: 2001-12-14 21:59:43.10 -5\nd: 2002-12-14\n",
    "s: !!set {a, b}\no: !!omap [{a: 1}, {b: 2}]\np: !!pairs [{a: 1}, {a: 2}]\n",
    "? [1, 2]\n: unhashable\n",
    "? {a: 1}\n: unhashable\n",
    "x: !custom 1\n",
    "dup: 1\ndup: 2\n",
    "&r [*r]\n",
    "a: &r {self: *r}\n",
    "--- 1\n--- [a]\n--- {a: b}\n...\n",
    "key: 'single' \nother: \"dq \\u00e9\"\nplain: 01\noct: 0o10\nhex: 0x10\nsexa: 1:20\n",
    "bad: [1, 2\n",
    "- *undefined\n",
    "a: !!map [1]\n",
    "a: !!seq {b: 1}\n",
    "",
])
def test_same_results_for_tags_aliases_merges_and_errors(text: str) -> None:
    safe, fast = both(text)
    if safe[0] == "ok" and any(isinstance(d, list) and d and d[0] is d for d in safe[1]):
        # a recursive list: compare the structure, not with == (which would recurse forever)
        assert fast[0] == "ok" and fast[1][0][0] is fast[1][0]
        return
    if text.startswith("a: &r"):
        assert fast[0] == "ok" and fast[1][0]["a"]["self"] is fast[1][0]["a"]
        return
    assert fast == safe


def test_aliased_collections_are_shared_not_copied() -> None:
    docs = list(yaml.load_all("a: &x [1, 2]\nb: *x\n", Loader=FastSafeLoader))
    assert docs[0]["a"] is docs[0]["b"]


def test_timestamps_and_dates_keep_their_types() -> None:
    (doc,) = yaml.load_all("d: 2002-12-14\nt: 2001-12-14 21:59:43\n", Loader=FastSafeLoader)
    assert doc == {"d": datetime.date(2002, 12, 14), "t": datetime.datetime(2001, 12, 14, 21, 59, 43)}
