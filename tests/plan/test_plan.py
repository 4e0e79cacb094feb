"""The worked plan examples of external-dns plan_test.go, compared as multisets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from prometheus_client import REGISTRY

from external_dns.endpoint import (
    DomainFilter,
    Endpoint,
    MatchAllDomainFilters,
    ProviderSpecificProperty,
)
from external_dns.plan import (
    POLICIES,
    Changes,
    Plan,
    should_update_provider_specific,
    should_update_ttl,
    targets_changed,
)
from tests.helpers.endpoints import ep

OWNER = "owner"
RESOURCE = "resource"


def fp(e: Endpoint) -> tuple[object, ...]:
    """A hashable fingerprint of every compared field (labels included, as Go's deep equality)."""
    return (
        e.dns_name,
        e.record_type,
        tuple(e.targets),
        e.record_ttl,
        e.set_identifier,
        tuple(sorted(e.labels.items())),
        tuple((p.name, p.value) for p in e.provider_specific),
    )


def same_set(got: Sequence[Endpoint], want: Sequence[Endpoint]) -> bool:
    return Counter(map(fp, got)) == Counter(map(fp, want))


def check(
    changes: Changes,
    create: Sequence[Endpoint] = (),
    update_old: Sequence[Endpoint] = (),
    update_new: Sequence[Endpoint] = (),
    delete: Sequence[Endpoint] = (),
) -> None:
    assert same_set(changes.create, create), f"create: {[str(e) for e in changes.create]}"
    assert same_set(changes.update_old, update_old), f"update_old: {[str(e) for e in changes.update_old]}"
    assert same_set(changes.update_new, update_new), f"update_new: {[str(e) for e in changes.update_new]}"
    assert same_set(changes.delete, delete), f"delete: {[str(e) for e in changes.delete]}"


def with_owner(e: Endpoint, owner: str) -> Endpoint:
    c = e.copy()
    c.labels[OWNER] = owner
    return c


# Fixtures of external-dns plan_test.go.
def foo_v1() -> Endpoint:
    return ep("foo", "CNAME", "v1", labels={RESOURCE: "ingress/default/foo-v1", OWNER: "pwner"})


def foo_v2() -> Endpoint:
    return ep("foo", "CNAME", "v2", labels={RESOURCE: "ingress/default/foo-v2"})


def foo_v2_no_label() -> Endpoint:
    return ep("foo", "CNAME", "v2")


def foo_a5() -> Endpoint:
    return ep("foo", "A", "5.5.5.5", labels={RESOURCE: "ingress/default/foo-5"})


def foo_aaaa() -> Endpoint:
    return ep("foo", "AAAA", "2001:DB8::1", labels={RESOURCE: "ingress/default/foo-AAAA"})


def bar127() -> Endpoint:
    return ep("bar", "A", "127.0.0.1", labels={RESOURCE: "ingress/default/bar-127"})


def bar127_ttl() -> Endpoint:
    return ep("bar", "A", "127.0.0.1", ttl=300, labels={RESOURCE: "ingress/default/bar-127"})


def bar192() -> Endpoint:
    return ep("bar", "A", "192.168.0.1", labels={RESOURCE: "ingress/default/bar-192"})


def multiple(target: str, set_id: str) -> Endpoint:
    return ep("multiple", "A", target, set_id=set_id, labels={RESOURCE: "ingress/default/multiple"})


ALL_TYPES = ("A", "AAAA", "CNAME", "TXT")


def calc(
    current: Sequence[Endpoint],
    desired: Sequence[Endpoint],
    policy: str = "sync",
    owner_id: str = "",
    old_owner_id: str = "",
    managed: Sequence[str] = ALL_TYPES,
    exclude: Sequence[str] = (),
    domain_filter: DomainFilter | MatchAllDomainFilters | None = None,
) -> Changes:
    p = Plan(
        current,
        desired,
        [POLICIES[policy]],
        domain_filter=domain_filter,
        managed_records=managed,
        exclude_records=exclude,
        owner_id=owner_id,
        old_owner_id=old_owner_id,
    )
    return p.calculate().changes


def test_01_no_current_creates_min_candidate() -> None:
    check(calc([], [foo_v1(), foo_v2(), bar127()]), create=[foo_v1(), bar127()])


def test_02_current_resource_keeps_the_name() -> None:
    check(calc([foo_v1()], [foo_v2(), foo_v1(), bar127()]), create=[bar127()])


def test_03_unlabelled_current_updates_to_min_candidate() -> None:
    want_new = with_owner(foo_v1(), "")
    check(
        calc([foo_v2_no_label()], [foo_v2(), foo_v1(), bar127()]),
        create=[bar127()],
        update_old=[foo_v2_no_label()],
        update_new=[want_new],
    )


def test_04_ttl_set_triggers_update() -> None:
    check(
        calc([bar127()], [bar127_ttl()]),
        update_old=[bar127()],
        update_new=[with_owner(bar127_ttl(), "")],
    )


def test_05_unset_desired_ttl_never_updates() -> None:
    check(calc([bar127_ttl()], [bar127()]))


def test_06_provider_specific_value_change() -> None:
    cur = bar127()
    cur.provider_specific = [
        ProviderSpecificProperty("alias", "false"),
        ProviderSpecificProperty("external-dns.alpha.kubernetes.io/cloudflare-proxied", "true"),
    ]
    want = bar127()
    want.provider_specific = [
        ProviderSpecificProperty("alias", "false"),
        ProviderSpecificProperty("external-dns.alpha.kubernetes.io/cloudflare-proxied", "false"),
    ]
    check(calc([cur], [want]), update_old=[cur], update_new=[with_owner(want, "")])


def test_07_provider_specific_removed() -> None:
    cur = bar127()
    cur.provider_specific = [ProviderSpecificProperty("alias", "false"), ProviderSpecificProperty("p", "false")]
    want = bar127()
    want.provider_specific = [ProviderSpecificProperty("alias", "false")]
    check(calc([cur], [want]), update_old=[cur], update_new=[with_owner(want, "")])


def test_08_type_change_is_delete_plus_create() -> None:
    check(calc([foo_v1()], [foo_a5()], owner_id="pwner"), create=[foo_a5()], delete=[foo_v1()])


def test_09_cname_to_a_and_aaaa() -> None:
    check(
        calc([foo_v1()], [foo_a5(), foo_aaaa()], owner_id="pwner"),
        create=[foo_a5(), foo_aaaa()],
        delete=[foo_v1()],
    )


def test_10_a_and_aaaa_to_cname() -> None:
    cur = [with_owner(foo_a5(), "nerf"), with_owner(foo_aaaa(), "nerf")]
    check(calc(cur, [foo_v2()], owner_id="nerf"), create=[foo_v2()], delete=cur)


def test_11_foreign_row_blocks_creates_and_deletes() -> None:
    cur = ep("foo", "A", "5.5.5.5")
    check(calc([cur], [foo_v2()], owner_id="pwner"))


def test_12_cname_candidate_discarded_against_a_aaaa() -> None:
    cur = with_owner(foo_v1(), "nerf")
    check(
        calc([cur], [foo_v1(), foo_a5(), foo_aaaa()], owner_id="nerf"),
        create=[foo_a5(), foo_aaaa()],
        delete=[cur],
    )


def test_13_conflicting_candidates_without_current() -> None:
    check(calc([], [foo_v1(), foo_a5(), foo_aaaa()]), create=[foo_a5(), foo_aaaa()])


def test_14_sync_deletes_undesired() -> None:
    check(calc([foo_v1(), bar192()], [foo_v1()]), delete=[bar192()])


def test_15_upsert_only_keeps_undesired() -> None:
    check(calc([foo_v1(), bar192()], [foo_v1()], policy="upsert-only"))


def test_16_set_identifiers_are_separate_rows() -> None:
    m1, m2, m3 = multiple("192.168.0.1", "test-set-1"), multiple("192.168.0.2", "test-set-1"), multiple(
        "192.168.0.2", "test-set-2"
    )
    check(calc([m1], [m2, m3]), create=[m3], update_old=[m1], update_new=[with_owner(m2, "")])


def test_17_set_identifier_change_is_delete_plus_create() -> None:
    m2, m3 = multiple("192.168.0.2", "test-set-1"), multiple("192.168.0.2", "test-set-2")
    check(calc([m2], [m3]), create=[m3], delete=[m2])


def test_18_dual_stack_drops_aaaa() -> None:
    ds_a = ep("ds", "A", "1.1.1.1", labels={OWNER: "owner"})
    ds_aaaa = ep("ds", "AAAA", "2001:DB8::1", labels={OWNER: "owner"})
    check(calc([ds_a, ds_aaaa], [ep("ds", "A", "1.1.1.1")]), delete=[ds_aaaa])


def test_18b_dual_stack_with_owner_id() -> None:
    ds_a = ep("ds", "A", "1.1.1.1", labels={OWNER: "owner"})
    ds_aaaa = ep("ds", "AAAA", "2001:DB8::1", labels={OWNER: "owner"})
    check(calc([ds_a, ds_aaaa], [ep("ds", "A", "1.1.1.1")], owner_id="owner"), delete=[ds_aaaa])


def test_19_old_owner_id_forces_update() -> None:
    cur = ep("foo", "A", "5.5.5.5", labels={OWNER: "bar"})
    want = ep("foo", "A", "5.5.5.5")
    check(
        calc([cur], [want], owner_id="bar", old_owner_id="foo"),
        update_old=[cur],
        update_new=[with_owner(want, "bar")],
    )


def test_19b_without_old_owner_no_update() -> None:
    cur = ep("foo", "A", "5.5.5.5", labels={OWNER: "bar"})
    check(calc([cur], [ep("foo", "A", "5.5.5.5")], owner_id="bar"))


def test_20_excluded_type_is_invisible() -> None:
    txt = ep("foo", "TXT", "txt", labels={OWNER: "pwner"})
    check(calc([txt], [foo_v2()], managed=ALL_TYPES, exclude=("TXT",)), create=[foo_v2()])


def test_20b_txt_managed_blocks_cname_create_by_ownership() -> None:
    # Not excluded: the TXT current record is in the row, so a CNAME create for an unowned row is gated.
    txt = ep("foo", "TXT", "txt")
    check(calc([txt], [foo_v2()], owner_id="pwner"))


def test_21_domain_filter_hides_excluded_records() -> None:
    df = DomainFilter(["domain.tld"], ["ex.domain.tld"])
    current = [ep("foo.ex.domain.tld", "A", "1.2.3.4")]
    desired = [
        ep("foo.domain.tld", "A", "1.2.3.4"),
        ep("bar.domain.tld", "A", "1.2.3.5"),
        ep("baz.domain.tld", "A", "1.2.3.6"),
        ep("foo.ex.domain.tld", "A", "1.2.3.4"),
    ]
    check(calc(current, desired, domain_filter=df), create=desired[:3])
    check(calc(current, desired, domain_filter=MatchAllDomainFilters([df, None])), create=desired[:3])
    check(calc(current, desired, domain_filter=MatchAllDomainFilters([df, DomainFilter([])])), create=desired[:3])
    narrower = DomainFilter(["foo.domain.tld"])
    check(calc(current, desired, domain_filter=MatchAllDomainFilters([df, narrower])), create=desired[:1])


def test_a_filter_of_one_member_able_to_reject_is_asked_directly() -> None:
    """The plan asks the one configured member of a MatchAllDomainFilters itself (one call less per record);
    with two such members it asks the whole."""
    df = DomainFilter(["domain.tld"])
    both = MatchAllDomainFilters([df, DomainFilter(["foo.domain.tld"])])
    assert Plan([], [], domain_filter=MatchAllDomainFilters([None, DomainFilter([]), df]))._matcher() is df
    assert Plan([], [], domain_filter=both)._matcher() is both
    assert Plan([], [], domain_filter=MatchAllDomainFilters([DomainFilter([])]))._matcher() is None


# -- further behaviour -----------------------------------------------------------------------------------


def test_create_only_drops_updates_and_deletes() -> None:
    check(calc([bar127(), foo_v1()], [bar127_ttl(), ep("new", "A", "1.1.1.1")], policy="create-only"),
          create=[ep("new", "A", "1.1.1.1")])


def test_names_are_normalised_into_one_row() -> None:
    cur = ep("Foo.Example.COM.", "A", "1.1.1.1")
    check(calc([cur], [ep("foo.example.com", "A", "1.1.1.1")]))


def test_idna_names_share_a_row() -> None:
    cur = ep("xn--bcher-kva.example.com", "A", "1.1.1.1")
    check(calc([cur], [ep("Bücher.example.com", "A", "1.1.1.1")]))


def test_targets_compared_case_insensitive_and_ip_canonical() -> None:
    check(calc([ep("a", "CNAME", "LB.example.com")], [ep("a", "CNAME", "lb.example.com")]))
    check(calc([ep("a", "AAAA", "2001:db8:0::1")], [ep("a", "AAAA", "2001:DB8::1")]))


def test_empty_managed_records_manages_nothing() -> None:
    check(calc([bar192()], [foo_v1()], managed=()))


def test_owner_filter_removes_foreign_deletes_and_updates() -> None:
    mine = ep("mine", "A", "1.1.1.1", labels={OWNER: "me"})
    theirs = ep("theirs", "A", "1.1.1.1", labels={OWNER: "them"})
    check(
        calc([mine, theirs], [ep("mine", "A", "2.2.2.2"), ep("theirs", "A", "2.2.2.2")], owner_id="me"),
        update_old=[mine],
        update_new=[ep("mine", "A", "2.2.2.2", labels={OWNER: "me"})],
    )
    check(calc([mine, theirs], [], owner_id="me"), delete=[mine])


def test_duplicate_current_deleted_once_with_owner() -> None:
    a = ep("dup", "A", "1.1.1.1", labels={OWNER: "me"})
    b = ep("dup", "A", "1.1.1.2", labels={OWNER: "me"})
    changes = calc([a, b], [], owner_id="me")
    assert len(changes.delete) == 1 and changes.delete[0] is a


def test_inputs_are_not_mutated() -> None:
    cur = ep("x", "A", "1.1.1.1", labels={OWNER: "me"})
    want = ep("x", "A", "2.2.2.2")
    changes = calc([cur], [want], owner_id="me")
    assert want.labels == {}
    assert changes.update_new[0].labels == {OWNER: "me"}


def test_calculate_is_deterministic() -> None:
    desired = [ep(f"n{i}", "A", f"10.0.0.{i}") for i in range(50)]
    first = [str(e) for e in calc([], desired).create]
    again = [str(e) for e in calc([], list(reversed(desired))).create]
    assert first == again == sorted(first, key=lambda s: s.split()[0])


def test_result_plan_resets_managed_records() -> None:
    p = Plan([], [ep("a", "TXT", "x")], ["sync"], managed_records=["TXT"]).calculate()
    assert p.managed_records == ["A", "AAAA", "CNAME"]
    assert [e.dns_name for e in p.changes.create] == ["a"]


def test_unknown_policy_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown policy: nope"):
        Plan([], [], ["nope"])


def _gauge(record_type: str, owner: str, foreign: str, domain: str) -> float | None:
    return REGISTRY.get_sample_value(
        "external_dns_registry_skipped_records_owner_mismatch_per_sync",
        {"record_type": record_type, "owner": owner, "foreign_owner": foreign, "domain": domain},
    )


def test_owner_mismatch_gauge() -> None:
    cur = ep("www.Example.com", "A", "1.1.1.1", labels={OWNER: "Other"})
    unlabelled = ep("www.example.com", "TXT", "x", set_id="")
    changes = calc([cur, unlabelled], [ep("www.example.com", "CNAME", "lb.example.com")], owner_id="me")
    assert changes.create == []
    assert _gauge("a", "me", "other", "example.com") == 1.0
    assert _gauge("txt", "me", "", "example.com") == 1.0
    # Reset at the start of every calculation with an owner ID.
    calc([], [], owner_id="me")
    assert _gauge("a", "me", "other", "example.com") is None


def test_unconvertible_names_do_not_break_the_plan() -> None:
    odd = [ep("emoji😀.example.com", "A", "1.1.1.1"), ep("xn--zz-.example.com", "A", "1.1.1.2")]
    good = ep("ok.example.com", "A", "1.1.1.3")
    changes = calc([], [*odd, good])
    assert same_set(changes.create, [*odd, good])


def test_record_types_within_a_row_are_ordered() -> None:
    desired = [ep("foo", "TXT", "t"), ep("foo", "AAAA", "::1"), ep("foo", "A", "1.1.1.1")]
    assert [e.record_type for e in calc([], desired).create] == ["A", "AAAA", "TXT"]


# -- update predicates --------------------------------------------------------------------------------------------


def _ps(*pairs: tuple[str, str]) -> list[ProviderSpecificProperty]:
    return [ProviderSpecificProperty(n, v) for n, v in pairs]


@pytest.mark.parametrize(
    ("current", "desired", "want"),
    [
        ((("aws/evaluate-target-health", "true"),), (("aws/evaluate-target-health", "true"),), False),
        ((("custom/property", "true"),), (("custom/property", "true"),), False),
        ((("custom/property", "true"),), (("custom/property", "false"),), True),
        ((("custom/property", "true"),), (("new/property", "true"),), True),
        ((), (), False),
        ((), (("added", "x"),), True),
        ((("removed", "x"),), (), True),
        ((("a", "1"), ("b", "2")), (("b", "2"), ("a", "1")), False),  # order-insensitive
        ((("a", "1"),), (("A", "1"),), True),  # names compared exactly
    ],
)
def test_should_update_provider_specific(
    current: tuple[tuple[str, str], ...], desired: tuple[tuple[str, str], ...], want: bool
) -> None:
    c = Endpoint("foo.com", "A", provider_specific=_ps(*current))
    d = Endpoint("bar.com", "A", provider_specific=_ps(*desired))
    assert should_update_provider_specific(d, c) is want


def test_ttl_and_target_predicates() -> None:
    assert should_update_ttl(ep("a", "A", ttl=300), ep("a", "A", ttl=0))
    assert not should_update_ttl(ep("a", "A", ttl=0), ep("a", "A", ttl=300))
    assert not should_update_ttl(ep("a", "A", ttl=300), ep("a", "A", ttl=300))
    assert targets_changed(ep("a", "A", "1.1.1.1"), ep("a", "A", "2.2.2.2"))
    assert not targets_changed(ep("a", "CNAME", "LB.x"), ep("a", "CNAME", "lb.x"))
