"""The kept view of a zone file by name (providers/zonefile/view.py): endpoints built when read from the file's
record sets, and `follow` moving the view to another version of the file, journaling exactly the names whose
record sets changed (the names the caller gives, or all of them)."""

from __future__ import annotations

from pathlib import Path

from external_dns.providers.zonefile.files import ZoneFile, atomic_write, new_zone_text, parse_zone_file
from external_dns.providers.zonefile.view import ZoneView

BASE = new_zone_text("example.org")


def version(tmp_path: Path, records: str) -> ZoneFile:
    path = tmp_path / "example.org.zone"
    atomic_write(str(path), BASE + records)
    zf = parse_zone_file(str(path))
    assert zf.error == ""
    return zf


def shown(view: ZoneView, name: str) -> list[tuple[str, str, list[str], int]]:
    return [(e.dns_name, e.record_type, list(e.targets), e.record_ttl) for e in view.get(name)]


def test_records_by_name_built_fresh_on_every_read(tmp_path: Path) -> None:
    view = ZoneView("example.org", version(tmp_path, "WWW 300 IN A 10.0.0.1\nwww 300 IN TXT \"t\"\n"))
    assert shown(view, "www.Example.org.") == [("WWW.example.org", "A", ["10.0.0.1"], 300),
                                               ("WWW.example.org", "TXT", ['"t"'], 300)]
    assert sorted(view.names()) == ["example.org", "www.example.org"] and len(view) == 3  # NS at the apex too
    first, again = view.get("www.example.org")[0], view.get("www.example.org")[0]
    assert first is not again  # fresh records: a reader may keep and change them
    assert ZoneView("example.org").items() == [] and ZoneView("example.org").get("x") == ()


def test_follow_journals_the_names_that_changed(tmp_path: Path) -> None:
    view = ZoneView("example.org", version(tmp_path, "a 300 IN A 10.0.0.1\nb 300 IN A 10.0.0.2\nc 300 IN A 10.0.0.3\n"))
    start = view.version
    view.follow(version(tmp_path, "a 300 IN A 10.0.0.1\nb 300 IN A 10.0.0.9\nd 300 IN A 10.0.0.4\n"))
    assert view.changed_since(start) == {"b.example.org", "c.example.org", "d.example.org"}
    assert shown(view, "b.example.org") == [("b.example.org", "A", ["10.0.0.9"], 300)] and view.get("c.example.org") == ()


def test_follow_with_names_looks_only_at_those(tmp_path: Path) -> None:
    view = ZoneView("example.org", version(tmp_path, "a 300 IN A 10.0.0.1\n"))
    start = view.version
    view.follow(version(tmp_path, "a 300 IN A 10.0.0.1\nb 300 IN A 10.0.0.2\n"), names=["b.example.org", "a.example.org"])
    assert view.changed_since(start) == {"b.example.org"}  # a was named but is unchanged
    assert sorted(view.names()) == ["a.example.org", "b.example.org", "example.org"]
    view.follow(version(tmp_path, ""), names=["b.example.org"])
    assert view.get("b.example.org") == () and "a.example.org" in view.names()  # only b looked up


def test_items_taking_leaves_claimed_txt_sets_unbuilt(tmp_path: Path) -> None:
    view = ZoneView("example.org", version(tmp_path, 'a 300 IN A 10.0.0.1\na 300 IN TXT "own"\nt 300 IN TXT "own"\n'
                                                     'u 300 IN TXT "other"\n'))
    taken: list[tuple[str, str, tuple[str, ...]]] = []

    def take(key: str, name: str, values: tuple[str, ...]) -> bool:
        taken.append((key, name, values))
        return values == ('"own"',)

    items = dict(view.items_taking(take))
    assert [e.record_type for e in items["a.example.org"]] == ["A"]
    assert items["t.example.org"] == ()  # every record set taken: the name stays, without endpoints
    assert [e.record_type for e in items["u.example.org"]] == ["TXT"]
    assert sorted(k for k, _n, _v in taken) == ["a.example.org", "t.example.org", "u.example.org"]
    assert sum(len(eps) for eps in dict(view.items()).values()) == len(view)
