"""ZoneFileProvider: round trip of every type, atomic writes, broken files, serial bumps, validation."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import dns.rdatatype
import dns.zone
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.cmd.build_providers import build_zonefile
from external_dns.cmd.config import parse_config
from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan.changes import Changes
from external_dns.providers.errors import (
    InvalidBatchRequestError,
    ProviderError,
    RecordNotFoundError,
)
from external_dns.providers.zonefile import (
    ZoneFileProvider,
    zone_from_filename,
)
from tests.helpers.endpoints import ep

ZONE = "example.org"


def by_key(eps: list[Endpoint]) -> dict[tuple[str, str], Endpoint]:
    return {(e.dns_name, e.record_type): e for e in eps}


def serial(path: Path) -> int:
    z = dns.zone.from_file(str(path), origin=None, relativize=False, check_origin=False)
    assert z.origin is not None
    rds = z.get_rdataset(z.origin, dns.rdatatype.SOA)
    assert rds is not None
    return int(rds[0].serial)


@pytest.fixture
def provider(tmp_path: Path) -> ZoneFileProvider:
    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    assert list(p.zones()) == [ZONE]  # creates the zone file
    return p


ALL_TYPES = [
    ep("www.example.org", "A", "192.0.2.1", "192.0.2.2", ttl=120),
    ep("www.example.org", "AAAA", "2001:db8::1"),
    ep("alias.example.org", "CNAME", "www.example.org"),
    ep("a-www.example.org", "TXT", '"heritage=external-dns,external-dns/owner=demo,external-dns/resource=service/default/web"'),
    ep("multi.example.org", "TXT", '"first part" "second \\"quoted\\" part"'),
    ep("spf.example.org", "TXT", '"v=spf1 include:_spf.example.com -all"'),
    ep("example.org", "MX", "10 mail.example.org", "20 backup.example.net"),
    ep("_sip._tcp.example.org", "SRV", "10 60 5060 sip.example.org"),
    ep("sub.example.org", "NS", "ns1.sub.example.org", "ns2.sub.example.org"),
    ep("1.2.0.192.example.org", "PTR", "www.example.org"),
    ep("example.org", "CAA", '0 issue "letsencrypt.org"'),
    ep("*.apps.example.org", "A", "192.0.2.9"),
]


def test_round_trip_of_every_type(provider: ZoneFileProvider, tmp_path: Path) -> None:
    desired = provider.adjust_endpoints([e.copy() for e in ALL_TYPES])
    assert len(desired) == len(ALL_TYPES)
    provider.apply_changes(Changes(create=desired))
    got = by_key(provider.records())
    for want in ALL_TYPES:
        have = got[(want.dns_name, want.record_type)]
        assert sorted(have.targets) == sorted(want.targets), want
        assert have.record_ttl == (want.record_ttl or 300)
    # a second provider (fresh process) reads the same file identically
    again = by_key(ZoneFileProvider(str(tmp_path)).records())
    assert {k: sorted(v.targets) for k, v in again.items()} == {k: sorted(v.targets) for k, v in got.items()}
    # the written file is plain RFC 1035 that dnspython parses back
    text = (tmp_path / "example.org.zone").read_text()
    assert "$ORIGIN example.org." in text
    assert text.index("SOA") < text.index(" NS ")


def test_adjust_endpoints_matches_read_back_form(provider: ZoneFileProvider) -> None:
    raw = [ep("t.example.org", "TXT", "v=spf1 -all"), ep("c.example.org", "CNAME", "Target.Example.COM."),
           ep("m.example.org", "MX", "10 mail.example.org.")]
    adjusted = provider.adjust_endpoints(raw)
    assert [list(e.targets) for e in adjusted] == [['"v=spf1 -all"'], ["Target.Example.COM"], ["10 mail.example.org"]]
    assert raw[0].targets == ["v=spf1 -all"], "adjust_endpoints must not mutate its input"
    provider.apply_changes(Changes(create=adjusted))
    got = by_key(provider.records())
    for e in adjusted:
        assert list(got[(e.dns_name, e.record_type)].targets) == list(e.targets)


def test_adjust_endpoints_drops_bad_input_and_keeps_the_rest(provider: ZoneFileProvider) -> None:
    eps = [ep("ok.example.org", "A", "1.2.3.4"), ep("bad.example.org", "A", "999.1.1.1"),
           ep("w.example.org", "A", "1.1.1.1", set_id="eu"), ep("x.example.org", "HINFO", "a b"),
           ep("mx.example.org", "MX", "not-a-priority mail")]
    adjusted = provider.adjust_endpoints(eps)
    assert [e.dns_name for e in adjusted] == ["ok.example.org"]


def test_long_txt_value_is_split_and_read_back(provider: ZoneFileProvider) -> None:
    value = "x" * 600
    adjusted = provider.adjust_endpoints([ep("long.example.org", "TXT", value)])
    provider.apply_changes(Changes(create=adjusted))
    have = by_key(provider.records())[("long.example.org", "TXT")]
    assert list(have.targets) == list(adjusted[0].targets)
    assert have.targets[0].replace('"', "").replace(" ", "") == value


def test_serial_is_bumped_on_every_write(provider: ZoneFileProvider, tmp_path: Path) -> None:
    path = tmp_path / "example.org.zone"
    s0 = serial(path)
    provider.apply_changes(Changes(create=[ep("a.example.org", "A", "1.1.1.1")]))
    s1 = serial(path)
    provider.apply_changes(Changes(update_old=[ep("a.example.org", "A", "1.1.1.1")],
                                   update_new=[ep("a.example.org", "A", "2.2.2.2")]))
    s2 = serial(path)
    provider.apply_changes(Changes(delete=[ep("a.example.org", "A", "2.2.2.2")]))
    s3 = serial(path)
    assert s0 < s1 < s2 < s3
    assert ("a.example.org", "A") not in by_key(provider.records())


def test_serial_wraps_without_zero(tmp_path: Path) -> None:
    (tmp_path / "db.wrap.test").write_text(
        "$ORIGIN wrap.test.\n@ 300 IN SOA ns hm 4294967295 1 1 1 1\n@ 300 IN NS ns\n")
    p = ZoneFileProvider(str(tmp_path))
    p.apply_changes(Changes(create=[ep("x.wrap.test", "A", "1.1.1.1")]))
    assert serial(tmp_path / "db.wrap.test") == 1


def test_crash_during_replace_leaves_old_file_intact(provider: ZoneFileProvider, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    provider.apply_changes(Changes(create=[ep("keep.example.org", "A", "1.1.1.1")]))
    path = tmp_path / "example.org.zone"
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("simulated crash during rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        provider.apply_changes(Changes(create=[ep("new.example.org", "A", "2.2.2.2")]))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == [".example.org.zone.lock", "example.org.zone"], \
        "the temporary file must be removed (the lock file stays: removing it would race other writers)"
    assert ("new.example.org", "A") not in by_key(provider.records())
    assert ("keep.example.org", "A") in by_key(provider.records())


def test_unparsable_zone_is_reported_untouched_and_others_continue(tmp_path: Path) -> None:
    broken = tmp_path / "broken.test.zone"
    broken_text = "$ORIGIN broken.test.\n@ 300 IN SOA ns hm 1 1 1 1 1\nwww 300 IN A 999.0.0.1\n"
    broken.write_text(broken_text)
    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    assert list(p.zones()) == ["broken.test", ZONE]  # listed, so its syncs fail (below) instead of vanishing
    assert len(p.problems) == 1
    assert "broken.test.zone:3: " in p.problems[0]
    assert "www 300 IN A 999.0.0.1" in p.problems[0]
    flt = p.get_domain_filter()
    assert flt.match("www.example.org")
    assert not flt.match("www.broken.test")
    assert not flt.match("elsewhere.net")
    p.apply_changes(Changes(create=[ep("www.example.org", "A", "1.2.3.4")]))
    with pytest.raises(ProviderError, match=r"no zone file holds www\.broken\.test"):
        p.apply_changes(Changes(create=[ep("www.broken.test", "A", "1.2.3.4")]))
    assert broken.read_text() == broken_text
    assert ("www.example.org", "A") in by_key(p.zone_records(ZONE))
    # reading everything (or the broken zone) fails naming the file: never a partial read taken as complete
    with pytest.raises(ProviderError, match=r"broken\.test\.zone:3: "):
        p.records()
    with pytest.raises(ProviderError, match=r"broken\.test\.zone:3: "):
        p.zone_records("broken.test")
    with pytest.raises(ProviderError, match=r"broken\.test\.zone:3: "):
        p.zone_snapshot("broken.test")


def test_broken_subzone_shadows_names_of_its_parent(tmp_path: Path) -> None:
    (tmp_path / "sub.example.org.zone").write_text("$ORIGIN sub.example.org.\n@ IN A\n")
    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    flt = p.get_domain_filter()
    assert flt.match("a.example.org")
    assert not flt.match("a.sub.example.org")


def test_zone_without_soa_is_refused(tmp_path: Path) -> None:
    (tmp_path / "nosoa.test.zone").write_text("$ORIGIN nosoa.test.\nwww 300 IN A 1.2.3.4\n")
    p = ZoneFileProvider(str(tmp_path))
    assert list(p.zones()) == ["nosoa.test"]
    assert "no SOA record" in p.problems[0]
    with pytest.raises(ProviderError, match="no SOA record"):
        p.records()


def test_zone_names_from_files(tmp_path: Path) -> None:
    assert zone_from_filename("example.org.zone") == "example.org"
    assert zone_from_filename("db.example.org") == "example.org"
    assert zone_from_filename(".example.org.zone.123.tmp") is None
    assert zone_from_filename("README") is None
    (tmp_path / "db.from-name.test").write_text("@ 300 IN SOA ns hm 1 1 1 1 1\n")
    (tmp_path / "whatever.zone").write_text("$ORIGIN from-origin.test.\n@ 300 IN SOA ns hm 1 1 1 1 1\n")
    p = ZoneFileProvider(str(tmp_path))
    assert list(p.zones()) == ["from-name.test", "from-origin.test"]


def test_create_zone_only_when_missing_and_on_first_use(tmp_path: Path) -> None:
    first_provider = ZoneFileProvider(str(tmp_path / "zones"), create_zones=[ZONE])
    assert not (tmp_path / "zones").exists(), "building the provider must not write anything"
    assert list(first_provider.zones()) == [ZONE]
    path = tmp_path / "zones" / "example.org.zone"
    first = path.read_text()
    p = ZoneFileProvider(str(tmp_path / "zones"), create_zones=[ZONE])
    assert path.read_text() == first
    assert by_key(p.records())[(ZONE, "NS")].targets == ["localhost"]


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("named-checkzone") is None, reason="named-checkzone (bind9-utils) not installed")
def test_created_zone_and_our_writes_load_in_named_checkzone(tmp_path: Path) -> None:
    """A created zone names an out-of-zone placeholder name server (an in-zone one would need glue)."""
    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    path = tmp_path / "example.org.zone"
    assert list(p.zones()) == [ZONE]
    check = subprocess.run(["named-checkzone", ZONE, str(path)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    p.apply_changes(Changes(create=p.adjust_endpoints([e.copy() for e in ALL_TYPES if e.record_type != "NS"])))
    check = subprocess.run(["named-checkzone", ZONE, str(path)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_validation_like_inmemory(provider: ZoneFileProvider) -> None:
    provider.apply_changes(Changes(create=[ep("a.example.org", "A", "1.1.1.1")]))
    # a create already in place is no error; one over other values is refused alone (issue 27, item 14)
    provider.apply_changes(Changes(create=[ep("a.example.org", "A", "1.1.1.1")]))
    with pytest.raises(RecordNotFoundError):
        provider.apply_changes(Changes(delete=[ep("missing.example.org", "A", "1.1.1.1")]))
    with pytest.raises(RecordNotFoundError):
        provider.apply_changes(Changes(delete=[ep("a.example.org", "A", "9.9.9.9")]))
    with pytest.raises(RecordNotFoundError):
        provider.apply_changes(Changes(update_old=[ep("b.example.org", "A", "1.1.1.1")],
                                       update_new=[ep("b.example.org", "A", "2.2.2.2")]))
    with pytest.raises(InvalidBatchRequestError):
        provider.apply_changes(Changes(create=[ep("n.example.org", "A", "1.1.1.1"), ep("n.example.org", "A", "2.2.2.2")]))
    with pytest.raises(ProviderError, match=r"no zone file holds www\.example\.com"):
        provider.apply_changes(Changes(create=[ep("www.example.com", "A", "1.1.1.1")]))
    # a refused batch writes nothing, even its valid parts
    with pytest.raises(RecordNotFoundError):
        provider.apply_changes(Changes(create=[ep("fresh.example.org", "A", "3.3.3.3")],
                                       delete=[ep("a.example.org", "A", "9.9.9.9")]))
    assert ("fresh.example.org", "A") not in by_key(provider.records())


def test_cname_never_shares_a_name(provider: ZoneFileProvider) -> None:
    provider.apply_changes(Changes(create=[ep("host.example.org", "A", "1.1.1.1")]))
    # refused alone, with a warning (issue 27, item 15): the A stays, nothing else fails
    provider.apply_changes(Changes(create=[ep("host.example.org", "CNAME", "other.example.org")]))
    assert ("host.example.org", "CNAME") not in by_key(provider.records())
    # a type change planned as delete + create is fine
    provider.apply_changes(Changes(delete=[ep("host.example.org", "A", "1.1.1.1")],
                                   create=[ep("host.example.org", "CNAME", "other.example.org")]))
    assert list(by_key(provider.records())[("host.example.org", "CNAME")].targets) == ["other.example.org"]


def test_hand_added_records_survive_writes(provider: ZoneFileProvider, tmp_path: Path) -> None:
    path = tmp_path / "example.org.zone"
    path.write_text(path.read_text() + "manual 600 IN A 10.0.0.1\n")
    provider.apply_changes(Changes(create=[ep("auto.example.org", "A", "10.0.0.2")]))
    got = by_key(provider.records())
    assert list(got[("manual.example.org", "A")].targets) == ["10.0.0.1"]
    assert got[("manual.example.org", "A")].record_ttl == 600


def test_builder_flags(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--zonefile-dir"):
        build_zonefile(parse_config([], {}))
    with pytest.raises(ConfigError, match="--zonefile-dir"):
        build_zonefile(parse_config([f"--zonefile-dir={tmp_path / 'missing'}"], {}))
    p = build_zonefile(parse_config([f"--zonefile-dir={tmp_path / 'new'}", "--zonefile-create-zone=a.test"], {}))
    assert list(p.zones()) == ["a.test"]


def test_dry_run_writes_nothing_and_shows_zones_to_create(tmp_path: Path) -> None:
    missing = tmp_path / "not-yet"
    p = ZoneFileProvider(str(missing), create_zones=[ZONE], dry_run=True)
    assert not missing.exists()
    assert list(p.zones()) == [ZONE]
    assert p.get_domain_filter().match("www.example.org")
    p.apply_changes(Changes(create=[ep("www.example.org", "A", "1.1.1.1")]))
    assert not missing.exists()
    existing = tmp_path / "zones"
    ZoneFileProvider(str(existing), create_zones=[ZONE]).zones()
    before = (existing / "example.org.zone").read_bytes()
    q = ZoneFileProvider(str(existing), create_zones=[ZONE, "other.test"], dry_run=True)
    assert list(q.zones()) == [ZONE, "other.test"]
    q.apply_changes(Changes(create=[ep("www.example.org", "A", "1.1.1.1")]))
    assert (existing / "example.org.zone").read_bytes() == before
    assert sorted(os.listdir(existing)) == [".example.org.zone.lock", "example.org.zone"]


def _by_name(eps: list[Endpoint]) -> dict[tuple[str, str], list[str]]:
    return {(e.dns_name.lower(), e.record_type): sorted(e.targets) for e in eps}


def test_zone_snapshot_follows_own_and_foreign_writes(tmp_path: Path) -> None:
    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    assert p.cheap_snapshots
    snap = p.zone_snapshot(ZONE)
    v0 = snap.version
    assert p.zone_snapshot(ZONE) is snap and snap.version == v0, "an unchanged file changes nothing"
    p.apply_changes(Changes(create=[ep("a.example.org", "A", "192.0.2.1"), ep("b.example.org", "A", "192.0.2.2")]))
    p.apply_changes(Changes(delete=[ep("b.example.org", "A", "192.0.2.2")]))
    assert _by_name(p.zone_snapshot(ZONE).endpoints()) == _by_name(p.zone_records(ZONE))
    assert snap.changed_since(v0) == {"a.example.org"}, "own writes redo only their names (b came and went)"
    v1 = snap.version
    other = ZoneFileProvider(str(tmp_path))  # another process writing the same file
    other.apply_changes(Changes(create=[ep("c.example.org", "TXT", '"x"')]))
    assert _by_name(p.zone_snapshot(ZONE).endpoints()) == _by_name(ZoneFileProvider(str(tmp_path)).records())
    assert snap.changed_since(v1) == {"c.example.org"}
    assert p.zone_snapshot("missing.test").endpoints() == []


def test_an_oversized_zone_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import external_dns.providers.zonefile.files as files

    p = ZoneFileProvider(str(tmp_path), create_zones=[ZONE])
    assert list(p.zones()) == [ZONE]
    monkeypatch.setattr(files, "MAX_ZONE_FILE_BYTES", 64)
    fresh = ZoneFileProvider(str(tmp_path))
    assert list(fresh.zones()) == [ZONE]  # listed, its reads fail
    assert "over the limit of 64 bytes" in fresh.problems[0]
    with pytest.raises(ProviderError, match="over the limit of 64 bytes"):
        fresh.records()


_NAMES = ["a.example.org", "b.example.org", "c.example.org", "example.org"]
_VALUES = {"A": ["192.0.2.1", "192.0.2.2"], "TXT": ['"x"', '"y"'], "MX": ["10 mx.example.net.", "20 mx.example.net."]}


def _step() -> st.SearchStrategy[tuple[str, str, str, int]]:
    """(writer, name, type, value index): our provider or another process writes one record set."""
    return st.tuples(st.sampled_from(["own", "own", "other"]), st.sampled_from(_NAMES),
                     st.sampled_from(sorted(_VALUES)), st.integers(0, 2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.lists(_step(), min_size=1, max_size=3), max_size=8), kept=st.integers(0, 3))
def test_kept_zone_view_equals_a_fresh_read(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                                            steps: list[list[tuple[str, str, str, int]]], kept: int) -> None:
    """The view kept across writes (own writes: only their names looked up again, or the whole zone diffed past
    OWN_WRITE_NAMES_KEPT names; another writer's: diffed) reads as the file read afresh, and its journal names
    every name whose records moved."""
    import external_dns.providers.zonefile.provider as zonefile_provider

    monkeypatch.setattr(zonefile_provider, "OWN_WRITE_NAMES_KEPT", kept)
    directory = tmp_path_factory.mktemp("zones")
    own, other = ZoneFileProvider(str(directory), create_zones=[ZONE]), ZoneFileProvider(str(directory))
    view = own.zone_snapshot(ZONE)
    for batch in steps:
        before, version = _by_name(view.endpoints()), view.version
        for writer, name, rtype, value in batch:
            provider = own if writer == "own" else other
            held = [e for e in provider.zone_records(ZONE) if e.dns_name.lower() == name and e.record_type == rtype]
            if value == 2:
                change = Changes(delete=held)
            elif held:
                change = Changes(update_old=held, update_new=[ep(name, rtype, _VALUES[rtype][value])])
            else:
                change = Changes(create=[ep(name, rtype, _VALUES[rtype][value])])
            if change.all_endpoints():
                provider.apply_changes(change)
        assert own.zone_snapshot(ZONE) is view
        fresh = _by_name(ZoneFileProvider(str(directory)).zone_records(ZONE))
        assert _by_name(view.endpoints()) == fresh
        assert sorted(view.names()) == sorted({name for name, _type in fresh})
        moved = {name for name, rtype in before.keys() | fresh.keys() if before.get((name, rtype)) != fresh.get((name, rtype))}
        journal = view.changed_since(version)
        assert journal is not None and moved <= journal
