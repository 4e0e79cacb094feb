"""One zone file on disk: found by its file name, read (by `zonetext`, or dnspython for anything unusual,
which stays the reference for errors), locked against every other writer and written atomically.

- `ZoneFile`: where a zone file is, which zone it holds, its record sets when it parsed (else `.error`, naming
  the file and line) and the key of the version read (device, inode, mtime_ns, size).
- `parse_zone_file(path)`: never raises; a file over `MAX_ZONE_FILE_BYTES` is refused unread.
- `zone_file_lock(path)`: an exclusive `flock` on `.<file>.lock` beside the zone, shared by every process
  (never removed: removing it would let two writers lock different files); waits `LOCK_TIMEOUT` at most.
- `atomic_write(path, text)`: a temporary file in the same directory, fsynced and `os.replace`d over the old
  one, then the directory fsynced: a crash leaves the old or the new file, never half of one.
- `bump_serial(soa)`: RFC 1982 serial arithmetic; `new_zone_text(zone)`: a fresh zone (SOA and NS).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import os
import re
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.zones import normalize_zone
from external_dns.providers.errors import SoftError
from external_dns.providers.zonefile.targets import rdata_to_target
from external_dns.providers.zonetext import (
    Key,
    Rrset,
    Soa,
    Unusual,
    ZoneData,
    read_zone_text,
    render_zone_text,
)

if TYPE_CHECKING:
    import dns.zone

DEFAULT_TTL = 300
MAX_ZONE_FILE_BYTES = 1 << 30  # a zone file larger than this (~10 million records) is refused, not read
LOCK_TIMEOUT = 60.0  # seconds a writer waits for another process's lock on a zone file
# A file whose modification time lies this close to the moment its content was last known cannot be told
# unchanged by its key alone (timestamps are coarse; an edit in the same tick keeps mtime and size): its
# content is compared by digest (git's "racily clean" rule).
RACY_NS = 2_000_000_000
# $GENERATE: named refuses a range past 2^31-1; expanding even that (2 billion records) takes hours and all
# memory, so a file's $GENERATE directives may make at most this many records in all (a /16 reverse zone is
# 65,536), else the zone fails naming the file and line.
MAX_GENERATE = 262_144
_GENERATE_RE = re.compile(r"^\$GENERATE[ \t]+(\S+)", re.MULTILINE | re.IGNORECASE)
_RANGE_RE = re.compile(r"(\d+)-(\d+)(?:/(\d+))?")
HEADER = "; written by external-dns-py (zonefile provider); comments and $TTL lines are not preserved\n"

_IDENTS = itertools.count(1)
Stamp = tuple[int, int, int, int]  # (st_dev, st_ino, st_mtime_ns, st_size)


def zone_from_filename(filename: str) -> str | None:
    """`example.org.zone` -> `example.org`, `db.example.org` -> `example.org`, anything else -> None."""
    if filename.startswith("."):
        return None
    if filename.endswith(".zone") and len(filename) > len(".zone"):
        return filename[: -len(".zone")].lower()
    if filename.startswith("db.") and len(filename) > len("db."):
        return filename[len("db.") :].lower()
    return None


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)



@dataclass
class ZoneFile:
    """One zone file: where it is, which zone it holds, its contents when it parsed and the key of the
    version read (device, inode, mtime_ns, size)."""

    path: str
    origin: str
    data: ZoneData | None = None
    error: str = ""
    stamp: Stamp = (0, 0, 0, 0)
    digest: bytes = b""  # of the file's bytes
    checked_ns: int = 0  # wall clock (ns) when the file was last known to hold exactly those bytes
    ident: int = field(default_factory=lambda: next(_IDENTS))  # this version, process-wide
    _sorted: list[Key] | None = field(default=None, repr=False)

    def endpoints(self, ordered: bool = True) -> list[Endpoint]:
        """Every record set except the SOA (fresh endpoints), in DNSSEC canonical name order unless
        `ordered` is False."""
        if self.data is None:
            return []
        rrsets = self.data.rrsets
        pairs: Iterable[tuple[Key, Rrset]]
        if not ordered:
            pairs = rrsets.items()
        else:
            if self._sorted is None:
                self._sorted = self.data.sorted_keys()
            pairs = ((key, rrsets[key]) for key in self._sorted)
        record = Endpoint.record  # built directly: a zone read builds one per record set
        return [record(rrset[0], key[1], Targets(rrset[2]), rrset[1]) for key, rrset in pairs]


def _detect_origin(path: str, text: str) -> str:
    """The zone the file is for: an absolute `$ORIGIN` before its first record declares it, else its name
    says it. A later `$ORIGIN` (a BIND-style sub-block) only sets the base of the relative names after it."""
    for line in text.split("\n"):
        words = line.split(None, 2)
        if not words or words[0].startswith(";") or words[0].upper() == "$TTL":
            continue
        if words[0].upper() == "$ORIGIN" and len(words) > 1 and words[1].endswith("."):
            return normalize_zone(words[1])
        break  # a record, or another directive: the zone comes from the file name
    return zone_from_filename(os.path.basename(path)) or ""


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def read_bounded(path: str) -> tuple[bytes, os.stat_result]:
    """The bytes of a zone file (at most MAX_ZONE_FILE_BYTES) and its status; OSError otherwise."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_size > MAX_ZONE_FILE_BYTES:
            raise OSError(f"{st.st_size} bytes is over the limit of {MAX_ZONE_FILE_BYTES} bytes")
        data = f.read(MAX_ZONE_FILE_BYTES + 1)
    if len(data) > MAX_ZONE_FILE_BYTES:  # grew while being read
        raise OSError(f"over the limit of {MAX_ZONE_FILE_BYTES} bytes")
    return data, st


def parse_zone_file(path: str) -> ZoneFile:
    """Read and parse one zone file; a failure is reported in `.error` (file and line), never raised."""
    checked = time.time_ns()  # before the read: an edit during it counts as racy (see RACY_NS)
    try:
        raw, st = read_bounded(path)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return ZoneFile(path, zone_from_filename(os.path.basename(path)) or "", error=f"{path}: {exc}")
    return parse_zone_text(path, text, stamp_of(st), _digest(raw), checked)


def parse_zone_text(path: str, text: str, stamp: Stamp, digest: bytes, checked: int) -> ZoneFile:
    origin = _detect_origin(path, text)
    try:
        data = read_zone_text(text, origin)
    except Unusual:
        problem = generate_problem(path, text)
        if problem is not None:
            return ZoneFile(path, origin, error=problem, stamp=stamp)
        try:
            data = read_with_dnspython(path, text, origin)
        except _ParseError as exc:
            return ZoneFile(path, origin, error=str(exc), stamp=stamp)
    if data.soa is None:
        return ZoneFile(path, origin, error=f"{path}: no SOA record at the zone apex {origin}.", stamp=stamp)
    return ZoneFile(path, origin, data=data, stamp=stamp, digest=digest, checked_ns=checked)


def generate_problem(path: str, text: str) -> str | None:
    """`<path>:<line>: ...` when the file's `$GENERATE` ranges are ones named refuses, or make more than
    MAX_GENERATE records in all (checked before anything expands them)."""
    total = 0
    for m in _GENERATE_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        r = _RANGE_RE.fullmatch(m.group(1))
        start, stop, step = (int(r.group(1)), int(r.group(2)), int(r.group(3) or 1)) if r else (0, -1, 0)
        if r is None or start > stop or stop > 2**31 - 1 or step < 1:
            return f"{path}:{line}: $GENERATE: invalid range {m.group(1)!r} (named refuses it too)"
        total += (stop - start) // step + 1
        if total > MAX_GENERATE:
            return (f"{path}:{line}: $GENERATE ranges make more than {MAX_GENERATE} records ({m.group(1)!r}); "
                    "the zone is not read")
    return None


def unchanged(path: str, zf: ZoneFile) -> bool:
    """Whether the file still holds exactly the version `zf` was read (or written) as: its key (device, inode,
    mtime, size), and its bytes when the key alone cannot tell (RACY_NS)."""
    st = os.stat(path)
    if stamp_of(st) != zf.stamp:
        return False
    if zf.checked_ns - st.st_mtime_ns > RACY_NS:
        return True
    checked = time.time_ns()
    same = bool(zf.digest) and _digest(read_bounded(path)[0]) == zf.digest
    if same:
        zf.checked_ns = checked
    return same


class _ParseError(Exception):
    pass


def read_with_dnspython(path: str, text: str, origin: str) -> ZoneData:
    """The reference parser for files using anything `zonetext` leaves aside."""
    import dns.exception
    import dns.name
    import dns.rdataclass
    import dns.rdatatype
    import dns.zone

    try:
        zone = dns.zone.from_text(text, origin=dns.name.from_text(origin or ".", origin=dns.name.root),
                                  relativize=False, filename=path, check_origin=False)
    except (dns.exception.DNSException, ValueError, KeyError) as exc:
        raise _ParseError(_describe_parse_error(path, text, origin, exc)) from None
    return zone_data_of(zone)


def zone_data_of(zone: dns.zone.Zone) -> ZoneData:
    """A dnspython zone as compact record sets."""
    import dns.rdataclass
    import dns.rdatatype

    data = ZoneData(normalize_zone(str(zone.origin)) if zone.origin is not None else "")
    for name, node in zone.nodes.items():
        dns_name = str(name.to_text(omit_final_dot=True))
        for rds in node.rdatasets:
            if rds.rdclass != dns.rdataclass.IN:
                continue
            if rds.rdtype == dns.rdatatype.SOA:
                if name == zone.origin:
                    soa = rds[0]
                    data.soa = Soa(int(rds.ttl), soa.mname.to_text(), soa.rname.to_text(), int(soa.serial),
                                   int(soa.refresh), int(soa.retry), int(soa.expire), int(soa.minimum))
                continue
            rtype = dns.rdatatype.to_text(rds.rdtype)
            data.rrsets[(dns_name.lower(), rtype)] = (dns_name, int(rds.ttl),
                                                       tuple(rdata_to_target(rtype, r) for r in rds))
    return data


_LINE_RE = re.compile(r"^(?P<path>.*):(?P<line>\d+): (?P<detail>.*)$", re.DOTALL)


def _line_fails(line: str, origin: str) -> bool:
    import dns.exception
    import dns.name
    import dns.zone

    if not line.strip() or line[0].isspace() or line.lstrip().startswith(("$", ";")):
        return False
    try:
        dns.zone.from_text(f"$TTL 300\n{line}\n", origin=dns.name.from_text(origin or ".", origin=dns.name.root),
                           relativize=False, check_origin=False)
    except (dns.exception.DNSException, ValueError, KeyError):
        return True
    return False


def _describe_parse_error(path: str, text: str, origin: str, exc: BaseException) -> str:
    """`<path>:<line>: <detail> (<the line>)`. dnspython reports the line after a bad record when the
    record ends the line, so the reported line and the one before are checked on their own."""
    m = _LINE_RE.match(str(exc))
    if not m:
        return f"{path}: {exc}"
    reported = int(m.group("line"))
    lines = text.splitlines()
    culprit = reported
    for candidate in (reported - 1, reported):
        if 1 <= candidate <= len(lines) and _line_fails(lines[candidate - 1], origin):
            culprit = candidate
            break
    shown = f" ({lines[culprit - 1].strip()!r})" if 1 <= culprit <= len(lines) else ""
    return f"{path}:{culprit}: {m.group('detail')}{shown}"



PLACEHOLDER_NS = "localhost."


def new_zone_text(zone: str, serial: int = 1) -> str:
    """The text of a fresh zone: SOA and one NS record naming a placeholder name server outside the zone
    (so no glue address is needed and named-checkzone and BIND load the zone as it is)."""
    return (
        f"; created by external-dns-py (--zonefile-create-zone); the name server {PLACEHOLDER_NS} is a placeholder\n"
        f"$ORIGIN {zone}.\n"
        f"@ 3600 IN SOA {PLACEHOLDER_NS} hostmaster.{zone}. {serial} 3600 600 86400 {DEFAULT_TTL}\n"
        f"@ 3600 IN NS {PLACEHOLDER_NS}\n"
    )


def zone_to_text(data: ZoneData) -> str:
    return render_zone_text(data, HEADER)


class ZoneFileChanged(SoftError):
    """The zone file changed between our read (under the lock) and the rename of our new version: another
    tool or a person wrote it without taking the lock. Nothing was written; the write is redone."""


def atomic_write(path: str, text: str, expect: ZoneFile | None = None) -> ZoneFile:
    """Write `text` to `path` so that readers (and a crash) see the old or the new content, never a mix; a
    symlink is written through (the file it leads to is replaced, in its own directory), never replaced.
    With `expect`, the file must still be that version just before the rename (`unchanged`), else
    ZoneFileChanged and nothing is written. Returns the version written (key, digest; no records)."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    raw = text.encode("utf-8")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".", suffix=".tmp")
    except OSError as exc:
        raise _naming(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
            with contextlib.suppress(OSError):
                os.fchmod(f.fileno(), os.stat(target).st_mode & 0o7777 if os.path.exists(target) else 0o644)
        if expect is not None and not unchanged(target, expect):
            raise ZoneFileChanged(f"{path} changed while it was being written (by a writer that does not take "
                                  f"the lock {lock_path(target)})")
        checked = time.time_ns()  # the rename below is the last change we know the file's bytes after
        os.replace(tmp, target)
        st = os.stat(target)
    except OSError as exc:  # a full disk (ENOSPC) fails on a descriptor: say which zone file it was
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _naming(exc, path) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return ZoneFile(path, "", stamp=stamp_of(st), digest=_digest(raw), checked_ns=min(checked, st.st_mtime_ns))


def _naming(exc: OSError, path: str) -> OSError:
    """`exc` naming the zone file being written (its class kept: ZoneFileChanged is not an OSError)."""
    return OSError(exc.errno, f"{exc.strerror or exc} (writing zone file)", path)


def lock_path(path: str) -> str:
    """The lock file of a zone file: beside the file it is (through a symlink: beside its target, so every
    writer of that file takes the same lock, whichever link it came by)."""
    directory, name = os.path.split(os.path.realpath(path))
    return os.path.join(directory, f".{name}.lock")


@contextlib.contextmanager
def zone_file_lock(path: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """An exclusive lock on a zone file shared by every process (flock on `.<file>.lock`). Another process's
    lock is waited for up to `timeout` seconds (flock has no timeout of its own: non-blocking attempts,
    backing off to 50 ms), then a SoftError (the sync is retried)."""
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
            if time.monotonic() >= deadline:
                raise SoftError(f"{path}: another writer held the zone file lock {lock_path(path)} "
                                f"for more than {timeout:.0f}s")
            time.sleep(pause)  # waiting for another process: nothing in this one can signal it
            pause = min(pause * 2, 0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def bump_serial(soa: Soa) -> int:
    """Increment the SOA serial (RFC 1982 arithmetic, skipping 0); returns the new serial."""
    soa.serial = (soa.serial + 1) % (1 << 32) or 1
    return soa.serial
