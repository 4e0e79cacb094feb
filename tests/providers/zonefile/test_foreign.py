"""The zone-file provider and what it did not write (issue 27, items 1, 6, 11, 13, 14, 15, 16): `$ORIGIN`
sub-blocks, hand edits racing a write, a zone file that is a symlink, TXT values over 255 octets, records of
others at our names, `$GENERATE` without bound. named-checkzone says what BIND would load."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from external_dns.plan.changes import Changes
from external_dns.providers.errors import ProviderError
from external_dns.providers.zonefile import (
    MAX_GENERATE,
    ZoneFileChanged,
    ZoneFileProvider,
    atomic_write,
    parse_zone_file,
)
from tests.helpers.endpoints import ep
from tests.helpers.sync import sync
from tests.hostile.helpers import checkzone

HEAD = "$TTL 300\n@ IN SOA ns.example.net. hostmaster.example.org. 1 3600 600 86400 300\n@ IN NS ns.example.net.\n"


def records(provider: ZoneFileProvider) -> dict[tuple[str, str], tuple[list[str], int]]:
    return {(e.dns_name, e.record_type): (list(e.targets), e.record_ttl) for e in provider.records()}


# -- item 1: $ORIGIN sub-blocks ------------------------------------------------------------------------------------
def test_a_later_origin_is_a_sub_block_not_the_zone(tmp_path: Path) -> None:
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD + "www IN A 192.0.2.1\n$ORIGIN sub.example.org.\nhost IN A 192.0.2.2\n"
                    "$ORIGIN example.org.\nafter IN A 192.0.2.3\n")
    provider = ZoneFileProvider(str(tmp_path))
    assert list(provider.zones()) == ["example.org"]
    sync(provider, [ep("new.example.org", "A", "192.0.2.9")])
    got = records(provider)
    assert {k for k in got if k[1] == "A"} == {("www.example.org", "A"), ("host.sub.example.org", "A"),
                                                 ("after.example.org", "A"), ("new.example.org", "A")}
    check = checkzone("example.org", zone)
    assert check.returncode == 0, check.stdout + zone.read_text()


def test_a_leading_origin_still_names_the_zone(tmp_path: Path) -> None:
    (tmp_path / "db.internal").write_text("$ORIGIN example.com.\n" + HEAD)
    assert list(ZoneFileProvider(str(tmp_path)).zones()) == ["example.com"]


# -- item 6: hand edits between the re-read under the lock and the rename ------------------------------------------
def test_a_racy_hand_edit_is_detected_before_the_rename(tmp_path: Path) -> None:
    """Same size, same modification time (an edit within one timestamp tick of our read): only the content
    tells. atomic_write refuses the rename; the edit stays."""
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD + "hand IN A 192.0.2.1\n")
    zf = parse_zone_file(str(zone))
    st = zone.stat()
    zone.write_text(HEAD + "hand IN A 192.0.2.2\n")
    os.utime(zone, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(ZoneFileChanged, match="changed while it was being written"):
        atomic_write(str(zone), HEAD, expect=zf)
    assert "192.0.2.2" in zone.read_text()
    # an edit long after the version read changes the key: detected without reading the file
    old = time.time_ns() - 3600 * 10**9
    os.utime(zone, ns=(old, old))
    zf = parse_zone_file(str(zone))
    zone.write_text(HEAD + "hand IN A 192.0.2.3\n")
    with pytest.raises(ZoneFileChanged):
        atomic_write(str(zone), HEAD, expect=zf)
    assert "192.0.2.3" in zone.read_text()


def test_the_provider_redoes_a_write_raced_by_a_hand_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD + "hand IN A 192.0.2.1\n")
    provider = ZoneFileProvider(str(tmp_path))
    provider.records()
    real_fsync, edits = os.fsync, list[int]()

    def edit_then_fsync(fd: int) -> None:  # the first fsync is our new version's: the read under the lock is done
        if not edits:
            edits.append(1)
            with open(zone, "a") as f:
                f.write("edited IN A 192.0.2.7\n")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", edit_then_fsync)
    with capture_logs() as logs:
        provider.apply_changes(Changes(create=[ep("mine.example.org", "A", "192.0.2.9")]))
    monkeypatch.undo()
    got = records(provider)
    assert ("edited.example.org", "A") in got and ("mine.example.org", "A") in got and ("hand.example.org", "A") in got
    assert any("changed while being written" in str(line["event"]) for line in logs)


# -- item 11: a zone file that is a symlink ------------------------------------------------------------------------
def test_a_symlinked_zone_file_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "bind"
    real.mkdir()
    target = real / "example.org.db"
    target.write_text(HEAD + "hand IN A 192.0.2.1\n")
    zones = tmp_path / "zones"
    zones.mkdir()
    (zones / "example.org.zone").symlink_to(target)
    provider = ZoneFileProvider(str(zones))
    sync(provider, [ep("new.example.org", "A", "192.0.2.9")])
    assert (zones / "example.org.zone").is_symlink()
    assert "new" in target.read_text() and "hand" in target.read_text()  # the file the server reads
    assert (real / ".example.org.db.lock").exists() and not (zones / ".example.org.zone.lock").exists()
    assert checkzone("example.org", target).returncode == 0
    os.unlink(target)  # a link that leads nowhere: the zone fails, nothing is read as empty
    with pytest.raises(ProviderError, match="symlink"):
        provider.records()


# -- item 13: TXT over 255 octets ------------------------------------------------------------------------------------
def test_a_long_ownership_txt_reads_back_and_hand_made_multi_strings_stay(tmp_path: Path) -> None:
    zone = tmp_path / "example.org.zone"
    hand = '"' + "h" * 255 + '" "tail"'
    zone.write_text(HEAD + f'hand IN TXT {hand}\nempty IN TXT "{"e" * 255}" ""\n')
    provider = ZoneFileProvider(str(zone.parent))
    resource = "crd/default/" + "n" * 250  # the ownership value passes 255 octets
    desired = [ep("app.example.org", "A", "192.0.2.1", resource=resource)]
    sync(provider, desired)
    txt = records(provider)[("a-app.example.org", "TXT")][0][0]
    assert len(txt) > 257 and txt.startswith('"heritage=external-dns,')
    assert not [line for line in sync(provider, desired) if "Zone file written" in str(line["event"])]  # no-op
    sync(provider, [])  # ownership recognised: our record and its TXT go
    got = records(provider)
    assert ("app.example.org", "A") not in got and ("a-app.example.org", "TXT") not in got
    text = zone.read_text()
    assert f"hand 300 IN TXT {hand}\n" in text and f'"{"e" * 255}" ""' in text
    assert checkzone("example.org", zone).returncode == 0


# -- items 14 and 15: records of others at our names -----------------------------------------------------------------
def test_records_of_others_at_our_names_refuse_only_those_records(tmp_path: Path) -> None:
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD + 'a-www IN TXT "v=hand-made"\nmx IN MX 10 mail.example.net.\n')
    provider = ZoneFileProvider(str(tmp_path))
    logs = sync(provider, [ep("www.example.org", "A", "192.0.2.1"), ep("mx.example.org", "CNAME", "x.example.net"),
                           ep("ok.example.org", "A", "192.0.2.2")])
    got = records(provider)
    assert got[("a-www.example.org", "TXT")] == (['"v=hand-made"'], 300)  # left as it is
    assert ("www.example.org", "A") not in got and ("mx.example.org", "CNAME") not in got
    assert ("cname-mx.example.org", "TXT") not in got
    assert ("ok.example.org", "A") in got and ("a-ok.example.org", "TXT") in got  # the zone is not blocked
    refused = sorted(str(line["record"]) for line in logs if "not writing" in str(line["event"]))
    assert refused == ["mx.example.org CNAME"]  # the TXT case is the registry's view of the same refusal
    assert got[("mx.example.org", "MX")] == (["10 mail.example.net"], 300)
    assert checkzone("example.org", zone).returncode == 0


# -- item 16: $GENERATE ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("directive", "why"), [
    ("$GENERATE 0-4294967295 h$ A 192.0.2.1", "invalid range"),
    (f"$GENERATE 1-{MAX_GENERATE} a$ A 192.0.2.1\n$GENERATE 1-2 b$ A 192.0.2.1", "more than"),
])
def test_generate_is_capped_and_named_by_file_and_line(tmp_path: Path, directive: str, why: str) -> None:
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD + directive + "\n")
    started = time.monotonic()
    with pytest.raises(ProviderError, match=rf"example\.org\.zone:{4 + directive.count(chr(10))}: \$GENERATE.*{why}"):
        ZoneFileProvider(str(tmp_path)).records()
    assert time.monotonic() - started < 5


def test_a_small_generate_is_read(tmp_path: Path) -> None:
    (tmp_path / "example.org.zone").write_text(HEAD + "$GENERATE 1-20 host$ A 192.0.2.$\n")
    assert len([k for k in records(ZoneFileProvider(str(tmp_path))) if k[1] == "A"]) == 20


def test_two_records_of_one_sync_that_clash_never_leave_an_orphan(tmp_path: Path) -> None:
    """`www` A owns its TXT at `a-www`, and a CNAME is desired at `a-www`: both were written beside each other
    (a zone BIND refuses); the later one is refused, nothing is left after a sync of nothing."""
    zone = tmp_path / "example.org.zone"
    zone.write_text(HEAD)
    provider = ZoneFileProvider(str(tmp_path))
    sync(provider, [ep("www.example.org", "A", "192.0.2.7"), ep("a-www.example.org", "CNAME", "t.example.net")])
    assert checkzone("example.org", zone).returncode == 0, zone.read_text()
    sync(provider, [])
    assert {k for k in records(provider) if k[1] not in ("NS",)} == set()
