"""One zone file on disk (providers/zonefile/files.py): which zone a file holds, a parse that never raises and names
the file and line, the version check before a write, atomic writes through symlinks, the lock shared by every
writer, and RFC 1982 serials."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from external_dns.providers.errors import SoftError
from external_dns.providers.zonefile.files import (
    ZoneFileChanged,
    atomic_write,
    bump_serial,
    lock_path,
    new_zone_text,
    parse_zone_file,
    unchanged,
    zone_file_lock,
    zone_from_filename,
)
from external_dns.providers.zonetext import Soa


@pytest.mark.parametrize(("filename", "zone"), [
    ("example.org.zone", "example.org"), ("Example.ORG.zone", "example.org"), ("db.example.org", "example.org"),
    (".zone", None), ("db.", None), (".example.org.zone.123.tmp", None), ("README", None), ("example.org", None),
])
def test_zone_from_filename(filename: str, zone: str | None) -> None:
    assert zone_from_filename(filename) == zone


def test_a_new_zone_parses_with_its_soa_and_ns(tmp_path: Path) -> None:
    path = tmp_path / "example.org.zone"
    path.write_text(new_zone_text("example.org", serial=7))
    zf = parse_zone_file(str(path))
    assert zf.error == "" and zf.origin == "example.org"
    assert zf.data is not None and zf.data.soa is not None and zf.data.soa.serial == 7
    assert [(e.dns_name, e.record_type, list(e.targets)) for e in zf.endpoints()] == [
        ("example.org", "NS", ["localhost"])]


def test_an_absolute_origin_before_the_first_record_names_the_zone(tmp_path: Path) -> None:
    path = tmp_path / "db.whatever"
    path.write_text("; comment\n$TTL 300\n" + new_zone_text("real.test"))
    assert parse_zone_file(str(path)).origin == "real.test"


@pytest.mark.parametrize(("text", "error"), [
    ("$ORIGIN example.org.\nwww 300 IN A 10.0.0.1\n", "no SOA record at the zone apex example.org."),
    (new_zone_text("example.org") + "bad 300 IN A not-an-address\n", "example.org.zone:5: "),
    (new_zone_text("example.org") + "$GENERATE 1-300000 host$ A 10.0.0.1\n", "example.org.zone:5: $GENERATE ranges"),
    (new_zone_text("example.org") + "$GENERATE 9-1 host$ A 10.0.0.1\n", "invalid range '9-1' (named refuses it too)"),
])
def test_a_bad_file_is_reported_by_file_and_line_never_raised(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "example.org.zone"
    path.write_text(text)
    zf = parse_zone_file(str(path))
    assert zf.data is None and error in zf.error and zf.error.startswith(str(path))


def test_an_unreadable_file_is_an_error_too(tmp_path: Path) -> None:
    path = tmp_path / "example.org.zone"
    path.write_bytes(b"\xff\xfe not utf-8")
    assert "codec can't decode" in parse_zone_file(str(path)).error
    assert "No such file" in parse_zone_file(str(tmp_path / "missing.zone")).error


def test_a_write_checks_the_version_it_read(tmp_path: Path) -> None:
    path = tmp_path / "example.org.zone"
    path.write_text(new_zone_text("example.org"))
    read = parse_zone_file(str(path))
    assert unchanged(str(path), read)
    written = atomic_write(str(path), new_zone_text("example.org", serial=2), expect=read)
    assert unchanged(str(path), written) and not unchanged(str(path), read)
    path.write_text(new_zone_text("example.org", serial=99))  # a writer that does not take the lock
    with pytest.raises(ZoneFileChanged, match="changed while it was being written"):
        atomic_write(str(path), new_zone_text("example.org", serial=3), expect=written)
    assert "99 3600" in path.read_text()  # nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example.org.zone"]  # no temporary file left


def test_a_symlinked_zone_file_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real" / "example.org.zone"
    real.parent.mkdir()
    real.write_text(new_zone_text("example.org"))
    link = tmp_path / "example.org.zone"
    link.symlink_to(real)
    atomic_write(str(link), new_zone_text("example.org", serial=5))
    assert link.is_symlink() and "5 3600" in real.read_text()
    assert lock_path(str(link)) == str(real.parent / ".example.org.zone.lock")  # one lock, whichever path


def test_the_lock_is_exclusive_and_waits_a_bounded_time(tmp_path: Path) -> None:
    path = str(tmp_path / "example.org.zone")
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process's writer, as far as flock is concerned
        with pytest.raises(SoftError, match="another writer held the zone file lock"), zone_file_lock(path, 0.05):
            pass
        fcntl.flock(fd, fcntl.LOCK_UN)
        with zone_file_lock(path, 0.05), pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held while inside
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released after
    finally:
        os.close(fd)


@pytest.mark.parametrize(("serial", "bumped"), [(1, 2), (2**32 - 2, 2**32 - 1), (2**32 - 1, 1)])
def test_serials_wrap_skipping_zero(serial: int, bumped: int) -> None:
    soa = Soa(3600, "ns.", "hostmaster.", serial, 3600, 600, 86400, 300)
    assert bump_serial(soa) == bumped and soa.serial == bumped
