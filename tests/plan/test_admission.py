"""Edge validation of whole change sets and the apply-time ownership re-check of a plan file (plan/admission.py):
refused endpoints are dropped with one reason each, update pairs stay paired, and a plan file's labels are never
trusted: what the provider holds now decides."""

from __future__ import annotations

from external_dns.plan.admission import admit_changes, adopt_current_labels, ownership_problems
from external_dns.plan.changes import Changes
from tests.helpers.endpoints import ep

OWNER_TXT = '"heritage=external-dns,external-dns/owner=me"'


def test_admission_drops_what_breaks_dns_limits_one_reason_each() -> None:
    good = ep("www.example.org", "A", "10.0.0.1")
    changes = Changes(
        create=[good, ep("bad.example.org", "A", "not-an-ip"), ep("a-www.example.org", "TXT", OWNER_TXT)],
        update_old=[ep("u.example.org", "A", "10.0.0.1"), ep("v.example.org", "A", "10.0.0.1")],
        update_new=[ep("u.example.org", "A", "10.0.0.2"), ep("v.example.org", "A", "10.0.0.2", ttl=-5)],
        delete=[ep("old.example.org", "A", "garbage, a record that exists"), ep("x" * 64 + ".example.org", "A")],
    )
    admitted, refused = admit_changes(changes)
    assert [e.dns_name for e in admitted.create] == ["www.example.org", "a-www.example.org"]  # ownership TXT allowed
    assert [e.dns_name for e in admitted.update_old] == [e.dns_name for e in admitted.update_new] == ["u.example.org"]
    assert [e.dns_name for e in admitted.delete] == ["old.example.org"]  # an existing record: name and TTL only
    assert len(refused) == 3
    assert refused[0].startswith("create bad.example.org A: targets")
    assert refused[1].startswith("delete " + "x" * 64 + ".example.org A: dnsName")
    assert refused[2].startswith("update v.example.org A: recordTTL")


def test_unpaired_updates_are_all_refused() -> None:
    changes = Changes(update_old=[ep("u.example.org", "A", "10.0.0.1")],
                      update_new=[ep("u.example.org", "A", "10.0.0.2"), ep("w.example.org", "A", "10.0.0.3")])
    admitted, refused = admit_changes(changes)
    assert admitted.update_old == admitted.update_new == []
    assert refused == ["update u.example.org A: updateOld and updateNew differ in length",
                       "update w.example.org A: updateOld and updateNew differ in length"]


CURRENT = [ep("mine.example.org", "A", "10.0.0.1", owner="me"), ep("theirs.example.org", "A", "10.0.0.2", owner="them"),
           ep("hand.example.org", "A", "10.0.0.3")]


def test_a_plan_file_matching_the_provider_may_be_applied() -> None:
    changes = Changes(create=[ep("new.example.org", "A", "10.0.0.9")],
                      update_old=[ep("Mine.example.org.", "A", "10.0.0.1", owner="me")],
                      update_new=[ep("mine.example.org", "A", "10.0.0.8", owner="me")],
                      delete=[ep("mine.example.org", "A", "10.0.0.1", owner="me")])
    assert ownership_problems(changes, CURRENT, "me") == []


def test_a_plan_file_claiming_records_it_does_not_own_is_refused() -> None:
    changes = Changes(
        create=[ep("mine.example.org", "A", "10.0.0.5"), ep("bad.example.org", "A", "nope")],
        update_old=[ep("theirs.example.org", "A", "10.0.0.2", owner="me")],  # the file's label lies
        update_new=[ep("theirs.example.org", "A", "10.0.0.7", ttl=-1)],
        delete=[ep("hand.example.org", "A", "10.0.0.3", owner="me"), ep("gone.example.org", "A", "10.0.0.4")],
    )
    problems = ownership_problems(changes, CURRENT, "me")
    assert problems[0] == "create mine.example.org A: the record already exists at the provider"
    assert problems[1].startswith("create bad.example.org A: targets")
    assert problems[2:5] == [
        "update theirs.example.org A: the record is owned by 'them' at the provider, not by 'me'",
        "delete hand.example.org A: the record is not owned by anyone (hand-made) at the provider, not by 'me'",
        "delete gone.example.org A: no such record at the provider",
    ]
    assert problems[5].startswith("update theirs.example.org A: recordTTL") and len(problems) == 6
    assert ownership_problems(Changes(delete=[ep("theirs.example.org", "A", "10.0.0.2")]), CURRENT, "") == []


def test_adopt_current_labels_puts_the_providers_truth_on_updates_and_deletes() -> None:
    old = ep("theirs.example.org", "A", "10.0.0.2", owner="me", resource="service/x/forged")
    new = ep("theirs.example.org", "A", "10.0.0.7", owner="me", resource="service/default/web")
    gone = ep("hand.example.org", "A", "10.0.0.3", owner="me")
    unknown = ep("unknown.example.org", "A", "10.0.0.4", owner="me")
    adopt_current_labels(Changes(update_old=[old], update_new=[new], delete=[gone, unknown]), CURRENT)
    assert old.labels == {"owner": "them"}
    assert new.labels == {"owner": "them", "resource": "service/default/web"}
    assert gone.labels == {} and unknown.labels == {"owner": "me"}
