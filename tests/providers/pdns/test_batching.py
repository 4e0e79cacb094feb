"""Packing a zone's changes into PATCH requests (provider._batches / _body), as properties: groups are never
split, order is kept, every request stays under the rrset and byte limits unless one group alone exceeds
them, and inside a request deletes come before replaces."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from external_dns.providers.pdns import PDNSConfig, PDNSProvider
from external_dns.providers.pdns.provider import _ENCODE, _add, _body, _encode, _Group


def group(key: str, names: list[tuple[str, bool]]) -> _Group:
    g = _Group(key)
    for name, delete in names:
        rrset = ({"name": f"{name}.example.org.", "type": "A", "changetype": "DELETE"} if delete else
                 {"name": f"{name}.example.org.", "type": "A", "ttl": 300, "changetype": "REPLACE",
                  "records": [{"content": "10.0.0.1", "disabled": False}]})
        _add(g, rrset)
    return g


GROUPS = st.lists(st.lists(st.tuples(st.from_regex(r"[a-z]{1,40}", fullmatch=True), st.booleans()),
                           min_size=1, max_size=6), max_size=60)


@given(GROUPS, st.integers(1, 12), st.integers(1024, 8192))
def test_batches_respect_limits_and_keep_groups(raw: list[list[tuple[str, bool]]], max_rrsets: int,
                                               max_bytes: int) -> None:
    provider = PDNSProvider(PDNSConfig(server="http://127.0.0.1:1", api_key="k", max_patch_rrsets=max_rrsets,
                                       max_patch_bytes=max_bytes))
    groups = [group(f"g{i}", names) for i, names in enumerate(raw)]
    batches = list(provider._batches(groups))
    assert [g for b in batches for g in b] == groups  # every group once, in order, never split
    for batch in batches:
        count = sum(len(g.rrsets) for g in batch)
        size = sum(g.size() for g in batch)
        assert len(batch) == 1 or (count <= max_rrsets and size <= max_bytes)
        body = json.loads(_body(batch))
        kinds = [r["changetype"] for r in body["rrsets"]]
        assert kinds == sorted(kinds)  # DELETE < REPLACE: deletes first
        assert len(body["rrsets"]) == count


def test_a_replace_wins_over_a_delete_of_the_same_rrset() -> None:
    g = group("x", [("same", True), ("same", False)])
    assert [kind for kind, _ in g.rrsets.values()] == ["REPLACE"]
    g = group("x", [("same", False), ("same", True)])
    assert [kind for kind, _ in g.rrsets.values()] == ["REPLACE"]


TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


@given(st.lists(st.tuples(TEXT, st.booleans()), max_size=4), TEXT, st.integers(0, 2**31), TEXT,
       st.sampled_from(["REPLACE", "DELETE"]), st.booleans())
def test_encoding_is_byte_for_byte_the_json_encoder(records: list[tuple[str, bool]], name: str, ttl: int,
                                                    rtype: str, changetype: str, extra_key: bool) -> None:
    """The direct writer of rrset_replace's shape gives exactly json's compact output (non-ASCII escaped,
    quotes and control characters escaped); other shapes go to the encoder itself."""
    rrset: dict[str, object] = {"name": name, "type": rtype, "ttl": ttl, "changetype": changetype,
                                "records": [{"content": c, "disabled": d} for c, d in records]}
    if extra_key:
        rrset["comments"] = []
    assert _encode(rrset) == _ENCODE(rrset).encode()
    assert json.loads(_encode(rrset)) == rrset


def test_group_size_follows_replaced_rrsets() -> None:
    g = group("x", [("a", False), ("b", True), ("a", True), ("b", False)])
    assert g.size() == sum(len(raw) + 1 for _, raw in g.rrsets.values())
