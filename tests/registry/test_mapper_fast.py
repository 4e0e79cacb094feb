"""The mapper's remembered affixes and its default-mapper shortcut give exactly what the plain rules give:
`to_txt_name` / `to_endpoint_name` against a reference written out from the rules (prefix or suffix with or
without `%{record_type}`, wildcard replacement, names with and without dots, type words, odd case)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from external_dns.registry.mapper import RECORD_TYPE_TEMPLATE, SUPPORTED_RECORD_TYPES, AffixNameMapper


def ref_to_txt_name(m: AffixNameMapper, dns_name: str, record_type: str) -> str:
    rtype = record_type.lower()
    prefix = m.prefix.replace(RECORD_TYPE_TEMPLATE, rtype)
    suffix = m.suffix.replace(RECORD_TYPE_TEMPLATE, rtype)
    first, dot, rest = dns_name.partition(".")
    if m.wildcard_replacement and first == "*":
        first = m.wildcard_replacement
    if not m.record_type_in_affix():
        first = f"{rtype}-{first}"
    return prefix + first + suffix + (dot + rest if dot else "")


def ref_extract(name: str) -> tuple[str, str]:
    first = name.split("-", 1)[0]
    for rtype in SUPPORTED_RECORD_TYPES:
        if first == rtype.lower():
            return name.removeprefix(first + "-"), rtype
    return name, ""


labels = st.sampled_from(["www", "*", "a", "cname", "A", "Foo", "x-y", "aaaa-b", "", "txt", "ns-1", "MX"])
names = st.lists(labels, min_size=1, max_size=4).map(".".join)
types = st.sampled_from([*SUPPORTED_RECORD_TYPES, "Cname", "caa", "X"])
affixes = st.sampled_from(["", "pre-", "%{record_type}-", "%{record_type}.", "_x.", "-suf", "-%{record_type}"])


@settings(max_examples=400, deadline=None)
@given(affixes, st.booleans(), st.sampled_from(["", "wild", "Any"]), st.lists(st.tuples(names, types), max_size=30))
def test_to_txt_name_equals_the_rules(affix: str, as_suffix: bool, repl: str,
                                      pairs: list[tuple[str, str]]) -> None:
    m = AffixNameMapper("" if as_suffix else affix, affix if as_suffix else "", repl)
    for name, rtype in pairs:  # the same type many times: remembered affixes must not go stale
        assert m.to_txt_name(name, rtype) == ref_to_txt_name(m, name, rtype)


@settings(max_examples=400, deadline=None)
@given(st.lists(names, max_size=30))
def test_default_mapper_to_endpoint_name_equals_the_rules(txt_names: list[str]) -> None:
    m = AffixNameMapper()
    for txt in txt_names:
        assert m.to_endpoint_name(txt) == ref_extract(txt.lower())
