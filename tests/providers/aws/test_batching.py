"""Unit tests of change batching: limits, UPSERT counting twice, ownership groups kept together, order."""

from __future__ import annotations

from external_dns.providers.aws.batching import Limits, Route53Change, batch_changes
from external_dns.providers.aws.records import rrset_for
from tests.providers.aws.conftest import E


def change(action: str, name: str, rtype: str = "A", *targets: str, owned: str = "") -> Route53Change:
    ep = E(name, rtype, list(targets) or ["10.0.0.1"])
    if owned:
        ep.labels["ownedRecord"] = owned
    return Route53Change(action, rrset_for(ep, "Z1"), ep)


def test_everything_fits_in_one_sorted_batch() -> None:
    changes = [change("CREATE", "b.example.com"), change("DELETE", "c.example.com"),
               change("UPSERT", "a.example.com")]
    batches, dropped = batch_changes(changes, Limits())
    assert not dropped
    assert [c.describe() for c in batches[0]] == [
        "UPSERT a.example.com A", "DELETE c.example.com A", "CREATE b.example.com A"]


def test_split_by_change_count() -> None:
    changes = [change("CREATE", f"r{i:04}.example.com") for i in range(2500)]
    batches, dropped = batch_changes(changes, Limits())
    assert [len(b) for b in batches] == [1000, 1000, 500] and not dropped


def test_upsert_counts_twice_for_values_and_bytes() -> None:
    up = change("UPSERT", "a.example.com", "A", "10.0.0.1", "10.0.0.2")
    assert (up.size_values, up.size_bytes) == (4, 32)
    changes = [change("UPSERT", f"r{i:04}.example.com") for i in range(600)]
    batches, _ = batch_changes(changes, Limits())
    assert [len(b) for b in batches] == [500, 100]


def test_bytes_limit() -> None:
    value = '"' + "x" * 198 + '"'
    changes = [change("CREATE", f"t{i:03}.example.com", "TXT", value) for i in range(400)]
    batches, _ = batch_changes(changes, Limits(size_bytes=32000))
    assert all(sum(c.size_bytes for c in b) <= 32000 for b in batches)
    assert [len(b) for b in batches] == [160, 160, 80]


def test_record_and_its_ownership_txt_stay_together() -> None:
    changes = []
    for i in range(5):
        name = f"r{i}.example.com"
        changes.append(change("CREATE", name))
        changes.append(change("CREATE", f"a-{name}", "TXT", '"heritage=external-dns"', owned=name))
    batches, _ = batch_changes(changes, Limits(changes=3))
    assert [len(b) for b in batches] == [2, 2, 2, 2, 2]
    for batch in batches:
        names = {c.rrset["Name"] for c in batch}
        assert len({n.removeprefix("a-") for n in names}) == 1


def test_group_over_a_limit_is_dropped_and_the_rest_goes() -> None:
    big = change("CREATE", "big.example.com", "A", *[f"10.0.{i // 250}.{i % 250}" for i in range(12)])
    small = [change("CREATE", f"s{i}.example.com") for i in range(3)]
    batches, dropped = batch_changes([big, *small], Limits(size_values=10))
    assert [d.group for d in dropped] == ["big.example.com"]
    assert "12 values > --aws-batch-change-size-values 10" in dropped[0].reason
    assert sum(len(b) for b in batches) == 3
