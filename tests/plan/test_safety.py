"""Plan safety verdicts (plan/safety.py) and their flags (cmd/flags_safety.py): thresholds at / just under /
just over the limit, the minimum-existing rule, TXT markers and foreign records not counted, per-zone
thresholds, root NS, --force. The gate in the controller: tests/controller/test_safety_gate.py."""

from __future__ import annotations

import pytest

from external_dns.cmd.flags import ConfigError
from external_dns.cmd.flags_safety import safety_config
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.plan.safety import (
    REASON_DELETES_ALL,
    REASON_ROOT_NS_CHANGE,
    REASON_TOO_MANY_DELETES,
    REASON_TOO_MANY_UPDATES,
    CountedRecords,
    DeletesAllError,
    RootNsChangeError,
    SafetyConfig,
    Thresholds,
    TooMuchChangeError,
    ZoneThreshold,
    assess,
    check_zone,
    count_existing,
    parse_zone_threshold,
)
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from tests.helpers.safety import OWNER, churn, existing, ns, parse


# -- thresholds ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("count", "safe"), [(5, True), (6, True), (7, False)])
def test_update_threshold_just_under_at_and_just_over(count: int, safe: bool) -> None:
    v = assess("example.com", churn("example.com", updates=count), 20, Thresholds())
    assert v.safe is safe
    if not safe:
        err = v.problems[0]
        assert isinstance(err, TooMuchChangeError)
        assert err.reason == REASON_TOO_MANY_UPDATES
        assert str(err) == "[example.com.] Too many updates, 35.00% is over 30.00% (7/20), force required"
        with pytest.raises(TooMuchChangeError):
            v.raise_if_unsafe()


@pytest.mark.parametrize(("count", "safe"), [(2, True), (3, True), (4, False)])
def test_delete_threshold_just_under_at_and_just_over(count: int, safe: bool) -> None:
    # 3/10 is exactly 30 %: strictly greater is unsafe, equal passes.
    v = assess("example.com.", churn("example.com", deletes=count), 10, Thresholds())
    assert v.safe is safe
    assert (v.creates, v.updates, v.deletes, v.existing) == (0, 0, count, 10)
    if not safe:
        assert v.problems[0].reason == REASON_TOO_MANY_DELETES


def test_error_message_has_zone_reason_percentage_threshold_and_counts() -> None:
    v = assess("example.com", churn("example.com", deletes=9), 20, Thresholds())
    assert str(v.problems[0]) == "[example.com.] Too many deletes, 45.00% is over 30.00% (9/20), force required"
    err = v.problems[0]
    assert isinstance(err, TooMuchChangeError)
    assert (err.change_count, err.existing_count, err.threshold, err.percent) == (9, 20, 0.3, 45.0)


def test_updates_checked_before_deletes_and_both_reported() -> None:
    v = assess("z.org", churn("z.org", updates=8, deletes=8), 20, Thresholds())
    assert [p.reason for p in v.problems] == [REASON_TOO_MANY_UPDATES, REASON_TOO_MANY_DELETES]
    with pytest.raises(TooMuchChangeError, match="Too many updates"):
        v.raise_if_unsafe()


def test_creates_never_count() -> None:
    assert assess("z.org", churn("z.org", creates=500), 20, Thresholds()).safe


def test_min_existing_rule() -> None:
    # 9 existing records: not percentage-checked, even when almost everything changes.
    assert assess("z.org", churn("z.org", deletes=8, updates=1), 9, Thresholds()).safe
    # 10 existing: checked.
    assert not assess("z.org", churn("z.org", deletes=4), 10, Thresholds()).safe
    # a lower minimum checks smaller zones.
    assert not assess("z.org", churn("z.org", deletes=4), 5, Thresholds(min_existing=5)).safe
    # an empty zone is never percentage-checked.
    assert assess("z.org", churn("z.org", deletes=3), 0, Thresholds(min_existing=0)).safe


@pytest.mark.parametrize("existing_count", [1, 2, 9, 10, 500])
def test_a_plan_deleting_every_record_we_own_is_refused_whatever_the_zone_size(existing_count: int) -> None:
    """The wipe guard: a source that reads as empty deletes every record we own and creates none. Small zones
    (under --min-existing-records) included: the thresholds would let them go."""
    v = assess("z.org", churn("z.org", deletes=existing_count), existing_count, Thresholds(delete=1.0))
    assert [p.reason for p in v.problems] == [REASON_DELETES_ALL]
    err = v.problems[0]
    assert isinstance(err, DeletesAllError)
    assert str(err) == (f"[z.org.] The plan deletes every record this owner holds in the zone "
                        f"({existing_count}/{existing_count}) and creates none, force required (check that the "
                        "sources still see their objects: --annotation-prefix, --namespace, filters)")
    assert assess("z.org", churn("z.org", deletes=existing_count), existing_count, Thresholds(delete=1.0),
                  force=True).safe


def test_what_is_no_wipe() -> None:
    # one record of ours left; a replacement (deletes all, creates others: a type change, a rename); an empty
    # zone; the deletes of a DNSRecord's own records (guard_wipe=False) or exempt ones (its deletion)
    assert assess("z.org", churn("z.org", deletes=2), 3, Thresholds(delete=1.0)).safe
    assert assess("z.org", churn("z.org", deletes=3, creates=1), 3, Thresholds(delete=1.0)).safe
    assert assess("z.org", churn("z.org", deletes=0), 0, Thresholds()).safe
    assert assess("z.org", churn("z.org", deletes=3), 3, Thresholds(delete=1.0), guard_wipe=False).safe
    assert assess("z.org", churn("z.org", deletes=3), 3, Thresholds(delete=1.0), deletes_exempt=True).safe


def test_custom_thresholds() -> None:
    assert assess("z.org", churn("z.org", deletes=10), 20, Thresholds(delete=0.5)).safe
    assert not assess("z.org", churn("z.org", deletes=11), 20, Thresholds(delete=0.5)).safe
    assert not assess("z.org", churn("z.org", updates=1), 20, Thresholds(update=0.0)).safe
    assert assess("z.org", churn("z.org", updates=20), 20, Thresholds(update=1.0)).safe


# -- the denominator ----------------------------------------------------------------------------------------
def test_ownership_txt_records_and_foreign_records_are_not_counted() -> None:
    zone = "example.org"
    records = existing(zone, 10)
    markers = [Endpoint(dns_name=f"a-h{i:03d}.{zone}", record_type="TXT",
                        targets=Targets([f'"heritage=external-dns,external-dns/owner={OWNER}"'])) for i in range(10)]
    foreign = existing("other." + zone, 10, owner="someone-else")
    unowned = existing("manual." + zone, 10, owner=None)
    current = records + markers + foreign + unowned
    assert count_existing(current, OWNER) == 10
    assert count_existing(current, OWNER, ["A", "AAAA", "CNAME"]) == 10
    # Without an owner (noop registry) every record counts, but never the markers.
    assert count_existing(current) == 30
    # 4 deletes of 10 owned records: 40 %, refused; octoDNS would count 40 records and see 10 %.
    v = check_zone(SafetyConfig(), zone, churn(zone, deletes=4), current, owner_id=OWNER)
    assert v.existing == 10
    assert str(v.problems[0]) == "[example.org.] Too many deletes, 40.00% is over 30.00% (4/10), force required"


def test_txt_registry_current_records_give_the_owned_denominator() -> None:
    provider = InMemoryProvider(["example.org"])
    registry = TXTRegistry(provider, owner_id=OWNER)
    registry.apply_changes(Changes(create=existing("example.org", 12, owner=None)))
    provider.apply_changes(Changes(create=existing("hand.example.org", 5, owner=None)))  # not ours, no TXT
    current = registry.records()
    assert len(provider.records()) == 12 * 2 + 5  # records + their ownership TXT + hand-made
    assert count_existing(current, OWNER, ["A", "AAAA", "CNAME"]) == 12


# -- root NS ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["create", "update", "delete"])
def test_root_ns_change_is_unsafe_whatever_the_size(kind: str) -> None:
    c = Changes()
    if kind == "create":
        c.create.append(ns("example.com"))
    elif kind == "update":
        c.update_old.append(ns("example.com"))
        c.update_new.append(ns("example.com.", "ns2.example.net"))
    else:
        c.delete.append(ns("Example.COM."))
    v = assess("example.com", c, 2, Thresholds())  # 2: deleting one of them is no wipe
    assert [p.reason for p in v.problems] == [REASON_ROOT_NS_CHANGE]
    assert isinstance(v.problems[0], RootNsChangeError)
    assert str(v.problems[0]) == "[example.com.] Root NS record change, force required"


def test_delegation_ns_and_new_zones_are_not_root_ns_changes() -> None:
    c = Changes(create=[ns("sub.example.com")], delete=[ns("other.example.com")])
    assert assess("example.com", c, 1, Thresholds()).safe
    root = Changes(create=[ns("example.com")])
    assert assess("example.com", root, 0, Thresholds(), zone_exists=False).safe
    assert assess("", root, 0, Thresholds()).safe  # the catch-all zone has no apex


def test_force_skips_every_check() -> None:
    c = churn("example.com", updates=20, deletes=20)
    c.create.append(ns("example.com"))
    v = assess("example.com", c, 20, Thresholds(), force=True)
    assert v.safe and v.forced


# -- configuration and flags --------------------------------------------------------------------------------
def test_parse_zone_threshold() -> None:
    assert parse_zone_threshold("Example.COM.=update:0.2,delete:0.1") == ("example.com", ZoneThreshold(0.2, 0.1))
    assert parse_zone_threshold("example.com=delete:0") == ("example.com", ZoneThreshold(None, 0.0))


@pytest.mark.parametrize(("text", "needle"), [
    ("example.com", "expected ZONE=update:FRACTION,delete:FRACTION"),
    ("=update:0.2", "expected ZONE="),
    ("example.com=", "expected ZONE="),
    ("example.com=update=0.2", "is not update:FRACTION or delete:FRACTION"),
    ("example.com=creates:0.2", "'creates:0.2' is not update:FRACTION"),
    ("example.com=update:lots", "update value 'lots' is not a number"),
    ("example.com=update:1.5", "must be a fraction between 0 and 1, got 1.5"),
    ("example.com=delete:-0.1", "must be a fraction between 0 and 1, got -0.1"),
    ("example.com=update:0.1,update:0.2", "update given twice"),
])
def test_parse_zone_threshold_errors_name_the_value(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match="--zone-threshold") as info:
        parse_zone_threshold(text)
    assert needle in str(info.value)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(("args", "needle"), [
    (["--update-threshold=1.5"], "--update-threshold must be a fraction between 0 and 1, got 1.5"),
    (["--delete-threshold=-0.01"], "--delete-threshold must be a fraction between 0 and 1, got -0.01"),
    (["--delete-threshold=nan"], "--delete-threshold must be a fraction between 0 and 1, got nan"),
    (["--min-existing-records=-1"], "--min-existing-records must not be negative, got -1"),
    (["--zone-threshold=example.com:0.2"], "--zone-threshold 'example.com:0.2'"),
    (["--zone-threshold=a.com=update:0.1", "--zone-threshold=a.com=delete:0.1"], "zone 'a.com' given twice"),
    (["--plan-output-file=markdown"], "--plan-output-file 'markdown': expected FORMAT=PATH"),
    (["--plan-output-file=pdf=/tmp/x"], "unknown format 'pdf'"),
    (["--apply-batch-size=-1"], "--apply-batch-size must not be negative"),
])
def test_bad_flags_are_config_errors_naming_the_value(args: list[str], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse(*args)
    assert needle in str(info.value)


def test_bad_plan_output_choice_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        parse("--plan-output=pdf")
    assert info.value.code == 2


def test_flags_to_safety_config_with_repeatable_zone_thresholds() -> None:
    cfg = parse("--update-threshold=0.4", "--delete-threshold=0.25", "--min-existing-records=5",
                "--zone-threshold=example.com=update:0.2,delete:0.1", "--zone-threshold", "b.org=delete:0.5")
    sc = safety_config(cfg)
    assert (sc.update, sc.delete, sc.min_existing, sc.force) == (0.4, 0.25, 5, False)
    assert sc.for_zone("example.com.") == Thresholds(update=0.2, delete=0.1, min_existing=5)
    assert sc.for_zone("b.org") == Thresholds(update=0.4, delete=0.5, min_existing=5)
    assert sc.for_zone("c.org") == Thresholds(update=0.4, delete=0.25, min_existing=5)
    env = parse(environ={"EXTERNAL_DNS_ZONE_THRESHOLD": "example.com=update:0.05,delete:0.05",
                         "EXTERNAL_DNS_FORCE": "true"})
    assert safety_config(env).for_zone("example.com") == Thresholds(0.05, 0.05, 10)
    assert safety_config(env).force is True


def test_counted_records_read_as_a_sequence_of_stand_ins_and_count_in_o_pairs() -> None:
    view = CountedRecords({("A", "me"): 2, ("CNAME", ""): 1})
    items = [(e.record_type, e.labels.get("owner")) for e in view]
    assert items == [("A", "me"), ("A", "me"), ("CNAME", None)] and len(view) == 3
    assert [(view[i].record_type, view[i].labels.get("owner")) for i in range(-3, 3)] == items + items
    assert [e.record_type for e in view[1:]] == ["A", "CNAME"]
    with pytest.raises(IndexError):
        view[3]
    assert view.type_owner_counts() == {("A", "me"): 2, ("CNAME", ""): 1}
    assert count_existing(view, "me", ["A", "CNAME"]) == count_existing(list(view), "me", ["A", "CNAME"]) == 2
    assert count_existing(view) == count_existing(list(view)) == 3


def test_deletes_exempt_holds_only_the_deletes_back() -> None:
    """A DNSRecord being deleted removes its own records on purpose: the delete threshold does not count them;
    the update threshold and the root-NS guard still do."""
    deletes = Changes(delete=[Endpoint(f"h{i}.example.org", "A", Targets(["10.0.0.1"])) for i in range(10)])
    assert not assess("example.org", deletes, 10, Thresholds()).safe
    assert assess("example.org", deletes, 10, Thresholds(), deletes_exempt=True).safe
    apex = Changes(delete=[Endpoint("example.org", "NS", Targets(["ns1.example.net"]))])
    assert not assess("example.org", apex, 10, Thresholds(), deletes_exempt=True).safe
