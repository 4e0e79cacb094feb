"""The line-based block YAML reader gives exactly what the safe loader gives, or None (then the full loader
reads the text): never a different document, never a document where the safe loader fails."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.sources.yamlblock import load_block_documents

SAFE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> tuple[str, Any]:
    try:
        return "ok", list(yaml.load_all(text, Loader=SAFE))
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        return "error", str(exc)


def check(text: str) -> list[Any] | None:
    """load_block_documents(text), asserted equal to the safe loader's documents when not None."""
    fast = load_block_documents(text)
    if fast is not None:
        assert safe_load(text) == ("ok", fast), text
    return fast


# Pieces of lines, many of them outside the subset or invalid YAML, so random texts hit every refusal.
KEYS = ["a", "b", "name", "on", "yes", "1", "0x1f", "null", "~", "a.b/c-d_e", "a b", "<<", "'q'", '"k"', "x:y",
        "-k", "k", "2001-12-14", "1.5", "True"]
SCALARS = ["v", "300", "-1", "+1", "1_000", "0o17", "0x1f", "1e3", ".5", ".inf", "-.Inf", ".nan", "~", "null",
           "Null", "true", "No", "off", "y", "=", "<<", "2002-12-14", "2001-12-14 21:59:43.10 -5",
           "2001-13-45", "1:20", "a:b", "a: b", "a #c", "a#c", "#c", "-", "- x", "-x", "--", "---", "...",
           "'s'", "'s''q'", "'a #b'", '"d"', '"e\\u00e9"', '"a"b', '"', "'", "[]", "[ ]", "[a, b]",
           "[a,]", "[a, [b]]", '["x", "y,z"]', "[a: b]", "{}", "{ }", "{a: b}", "&x v", "*x", "!t v", "!!str 1",
           "|", ">", "%x", "@x", "`x", "a b  c", "http://h:80/p?q=1&r", "(x)", "$x^", "x;y%z!", "<none>",
           "1 2", "? x", ": x", "v:", "10.0.0.1", "host-00001.z.test"]
line = st.one_of(
    st.builds(lambda ind, dashes, key, val: " " * ind + "- " * dashes + key + ":" + (" " + val if val else ""),
              st.integers(0, 6), st.integers(0, 2), st.sampled_from(KEYS), st.one_of(st.just(""),
                                                                                     st.sampled_from(SCALARS))),
    st.builds(lambda ind, dashes, val: " " * ind + "- " * dashes + val, st.integers(0, 6), st.integers(0, 2),
              st.sampled_from(SCALARS)),
    st.sampled_from(["", "  ", "# comment", "  # indented comment", "---", "--- ", "--- x", "...", "%YAML 1.1",
                     "-", "  -", "- ", "key:  ", "a:\t1", "a: 1\r", "é: x"]),
)


@settings(max_examples=1000, deadline=None)
@given(lines=st.lists(line, max_size=12), end=st.sampled_from(["", "\n"]))
def test_random_lines_give_the_safe_loaders_result_or_none(lines: list[str], end: str) -> None:
    check("\n".join(lines) + end)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12),
                    st.text("abz019 .-_:/#'\"[]{},&*!|>%@`~=<", max_size=8), st.sampled_from(SCALARS),
                    st.dates(), st.datetimes(timezones=st.none()))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text("abz09_./-", min_size=1, max_size=8), st.sampled_from(KEYS),
                              st.integers()), inner, max_size=4)),
    max_leaves=25)


@settings(max_examples=500, deadline=None)
@given(docs=st.lists(values, min_size=1, max_size=3), indent=st.integers(2, 4),
       flow=st.sampled_from([False, None]), start=st.booleans())
def test_dumped_documents_give_the_safe_loaders_result_or_none(docs: list[Any], indent: int, flow: bool | None,
                                                              start: bool) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, indent=indent, explicit_start=start)
    check(text)


# Block YAML written the way manifests are (own emitter: compact `- key: v` items, indentless sequences,
# comments), with tricky keys and scalars: mostly inside the subset, so values are compared, not refused.
PLAIN_KEYS = ["a", "name", "on", "yes", "1", "0x1f", "null", "a.b/c-d_e", "k", "2001-12-14", "1.5", "True", "_x"]
# scalars the subset reads, drawn more often so that whole documents stay inside it
READ = [v for v in SCALARS if load_block_documents(f"a: {v}\n") is not None]
trees = st.recursive(st.one_of(st.sampled_from(READ), st.sampled_from(READ), st.sampled_from(READ),
                               st.sampled_from(SCALARS)), lambda inner: st.one_of(
    st.lists(inner, min_size=1, max_size=3),
    st.lists(st.tuples(st.sampled_from(PLAIN_KEYS), inner), min_size=1, max_size=3)), max_leaves=12)


def emit(node: Any, col: int, step: int, indentless: bool, out: list[str], comments: bool) -> None:
    """Append the lines of a block node whose first line starts at `col`."""
    pad = " " * col
    if isinstance(node, list) and node and isinstance(node[0], tuple):  # a map: (key, value) pairs
        for key, value in node:
            if comments:
                out.append(pad + "# note")
            if isinstance(value, list):
                out.append(f"{pad}{key}:")
                seq = isinstance(value[0], str) or not isinstance(value[0], tuple)
                emit(value, col if seq and indentless else col + step, step, indentless, out, comments)
            else:
                out.append(f"{pad}{key}: {value}")
        return
    for item in node:
        if isinstance(item, list):  # `- ` then the item's first line on the same line
            inner: list[str] = []
            emit(item, col + 2, step, indentless, inner, False)
            out.append(f"{pad}- {inner[0][col + 2:]}")
            out.extend(inner[1:])
        else:
            out.append(f"{pad}- {item}")


@settings(max_examples=1000, deadline=None)
@given(docs=st.lists(st.lists(st.tuples(st.sampled_from(PLAIN_KEYS), trees), min_size=1, max_size=4),
                     min_size=1, max_size=3),
       step=st.integers(1, 4), indentless=st.booleans(), comments=st.booleans())
def test_emitted_block_yaml_gives_the_safe_loaders_result_or_none(docs: list[Any], step: int, indentless: bool,
                                                                 comments: bool) -> None:
    parts = []
    for doc in docs:
        lines: list[str] = []
        emit(doc, 0, step, indentless, lines, comments)
        parts.append("\n".join(lines) + "\n")
    check("---\n".join(parts))


def manifest(n: int, indentless: bool = True) -> str:
    pad = "" if indentless else "  "
    items = "".join(f"  {pad}- dnsName: host-{i}.example.org\n  {pad}  recordType: A\n  {pad}  recordTTL: 300\n"
                    f"  {pad}  targets: [\"10.0.0.{i}\", 10.0.1.{i}]\n  {pad}  labels: {{}}\n" for i in range(n))
    return ("apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: rec\n"
            "  namespace: default\n  annotations:\n    external-dns.alpha.kubernetes.io/ttl: '60'\n"
            f"  # a comment\nspec:\n  endpoints:\n{items}")


@pytest.mark.parametrize("text", [
    manifest(3), manifest(3, indentless=False), "---\n" + manifest(2) + "---\n" + manifest(1) + "---\n",
    "kind: Service\nmetadata:\n  name: s\n  labels:\n    app: web\nspec:\n  ports:\n  - port: 80\n    "
    "protocol: TCP\n  - port: 443\n  type: LoadBalancer\nstatus:\n  loadBalancer:\n    ingress:\n    - ip: 1.2.3.4\n",
    "", "---\n", "a: 1\n---", "# only a comment\n", "---\n# c\n---\na: 1\n", "a:\n- 1\n- b\nc: d\n",
    "- a\n-\n- - b\n  - c\n", "-\n  a: 1\n- x\n", "a: [1, 2, x]\nb: []\nc: {}\n", "d: 2002-12-14\nn: ~\nb: off\n",
    "1: 2\nyes: no\n", "a:\nb:\n  c:\n",
])
def test_typical_manifests_are_read_by_the_fast_path(text: str) -> None:
    assert check(text) is not None


@pytest.mark.parametrize("text", [
    "a: -\n", "a: b\n  c\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  x\n", "a: 'it''s'\n", 'a: "\\n"\n',
    "a: {b: c}\n", "a: 1 # c\n", "a:\tb\n", "a: é\n", "--- x\n", "...\n", "%YAML 1.1\n---\na: 1\n",
    "  a: 1\n", "a: 2001-13-45\n", "a: =\n", "? a\n: b\n", "a: [b,\n  c]\n", "k" * 600 + ": v\n",
])
def test_anything_else_goes_to_the_full_loader(text: str) -> None:
    assert load_block_documents(text) is None


def test_values_have_the_safe_loaders_types() -> None:
    (doc,) = load_block_documents("i: 0x1f\nf: 1.5\ne: 1e3\nb: On\nn: null\nd: 2002-12-14\ns: '300'\nt: 1:20\n") or [None]
    assert doc == {"i": 31, "f": 1.5, "e": "1e3", "b": True, "n": None, "d": datetime.date(2002, 12, 14), "s": "300",
                   "t": 80}


def test_repeated_collections_are_distinct_objects() -> None:
    (doc,) = load_block_documents("a: []\nb: []\nc: {}\nd: {}\ne: [x]\nf: [x]\n") or [None]
    assert doc["a"] is not doc["b"] and doc["c"] is not doc["d"] and doc["e"] is not doc["f"]


def test_the_benchmark_manifests_take_the_fast_path(tmp_path: Path) -> None:
    from bench.cli_vs_octodns import write_manifests

    write_manifests(tmp_path, "bench.test", 250)
    assert check((tmp_path / "records.yaml").read_text()) is not None


def test_remembered_values_come_back_as_read_including_null() -> None:
    # the readers' memos are looked up with a sentinel: a remembered null (None) is a hit, not a miss
    text = "- a: null\n  b: ~\n  n: 1\n- a: null\n  b: ~\n  n: 1\n- {}\n- a: [x, 1]\n  b: [x, 1]\n"
    assert check(text) == [[{"a": None, "b": None, "n": 1}, {"a": None, "b": None, "n": 1}, {},
                            {"a": ["x", 1], "b": ["x", 1]}]]


@pytest.mark.parametrize("depth", [3, 30, 31, 32, 33, 40])
@pytest.mark.parametrize("leaf", ["- v", "  k: v"])
def test_nested_sequences_of_maps_keep_the_depth_limit(depth: int, leaf: str) -> None:
    # `- key:` items are read as maps directly (not through `node`): the depth limit still applies there, at the
    # same depth as before (each `- k:` level is a sequence and a map: 64 levels of nodes)
    text = "".join("  " * i + "- k:\n" for i in range(depth)) + "  " * depth + leaf + "\n"
    fast = check(text)
    assert (fast is None) == (depth >= 32), depth


def test_lines_read_again_from_the_memo_and_past_its_bound_read_alike() -> None:
    # `[- ]key: value` lines' tokens are remembered per load (up to _MAX_LINE_MEMO lines), across documents
    many = "".join(f"k{i}: v{i}\n" for i in range(5000))
    items = "items:\n" + "- a: 1\n  b: x\n" * 3 + "- c: ~\n  d:\n  - e\n"
    text = f"{many}---\n{items}---\n{many}---\n{items}"
    fast = check(text)
    assert fast is not None and len(fast) == 4 and fast[0] == fast[2] and fast[1] == fast[3]
