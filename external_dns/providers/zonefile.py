"""The zone-file provider: one RFC 1035 master file per zone in a directory.

Zone discovery (`--zonefile-dir`, re-scanned on every call so files added by hand are picked up):
- a file named `<zone>.zone` or `db.<zone>` (hidden files and anything else are ignored);
- the zone's origin is the file's first `$ORIGIN` directive when it has one, else the name from the file
  name; the zone must have an SOA record at its origin.
- a file that does not parse (or has no SOA, or claims a zone another file already holds) is reported with
  an error log naming the file (and line, from dnspython) and left untouched; its names are outside the
  provider's domain filter, and reading records fails (ProviderError naming the file) until it is fixed:
  input that cannot be read fails the sync (`--once` exits 1) instead of being skipped in silence.
- `--zonefile-create-zone=example.org` (repeatable) writes `example.org.zone` with an SOA and an NS record
  when no file holds that zone yet, so a fresh directory needs nothing else. The name server is a
  placeholder outside the zone (`localhost.`, to edit): an in-zone name server would need a glue address
  record, without which named-checkzone and BIND refuse the zone.

Reading: files are read into compact record sets by `zonetext` (dnspython parses only files using something
unusual, and stays the reference for errors). Each zone is kept as a snapshot keyed by the file's
(device, inode, mtime_ns, size): a file is re-read only when that key moves, and our own successful writes
update the snapshot and its key, so a sync re-reads nothing it wrote itself.

Records: every RRset except the SOA is one endpoint (name and name-valued targets without the trailing
dot, as external-dns). Types: A, AAAA, CNAME, TXT (quoted, multi-string), MX, SRV, NS, PTR, CAA, NAPTR,
DNAME. Set identifiers and provider-specific properties do not exist in zone files: `adjust_endpoints`
drops endpoints with a set identifier (warning), clears provider-specific properties and rewrites targets
into the exact form `records()` reads back (so a plan never sees a spurious update); a target that does not
parse for its type drops that endpoint with a warning naming it, the other endpoints still sync.

Writing (`apply_changes`): every writer of a zone file (this process or another one on the same directory)
holds an exclusive `fcntl.flock` on a lock file beside it (`.<file>.lock`, hidden, never removed: removing
it would let two writers lock different files) and re-reads the zone under the lock when its key moved, so
concurrent `--once` runs with different owner IDs never lose each other's records. The whole batch is
validated first with the in-memory provider's rules and messages (`record already exists`, `record not
found`, `invalid batch request`; a create outside every zone is an error too; a CNAME never shares its name
with other data), then each changed zone is written with its SOA serial bumped, atomically: a temporary file
in the same directory is written, fsynced and `os.replace`d over the old one (then the directory is
fsynced), so a crash leaves either the old or the new file, never half of one. Comments and `$TTL`/`$INCLUDE`
directives of a file are not preserved once we rewrite it (every record keeps its TTL explicitly); records we
do not own are kept.

Dry run (`--dry-run`): nothing is created or written; a zone `--zonefile-create-zone` would create is shown
as an empty zone so the plan is complete.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import structlog

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.endpoint.zones import normalize_zone
from external_dns.errors import ConfigError
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import (
    InvalidBatchRequestError,
    RecordAlreadyExistsError,
    RecordNotFoundError,
)
from external_dns.providers.provider import Provider, ProviderError, SoftError, zone_for_name
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot
from external_dns.providers.snapshot import name_key
from external_dns.providers.zonetext import (
    NAME_TERMINATED,
    Rrset,
    Soa,
    Unusual,
    ZoneData,
    read_zone_text,
    render_zone_text,
)

if TYPE_CHECKING:
    import dns.rdata
    import dns.zone

log = structlog.get_logger(__name__)

ZONEFILE_RECORD_TYPES = ("A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA", "NAPTR", "DNAME")
_NAME_TERMINATED = NAME_TERMINATED
_HOST_TYPES = frozenset({"CNAME", "NS", "PTR", "DNAME"})
DEFAULT_TTL = 300
MAX_ZONE_FILE_BYTES = 1 << 30  # a zone file larger than this (~10 million records) is refused, not read
LOCK_TIMEOUT = 60.0  # seconds a writer waits for another process's lock on a zone file
_ORIGIN_RE = re.compile(r"^\$ORIGIN[ \t]+(\S+)", re.MULTILINE)
_IPV4 = re.compile(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)")
_SIMPLE_NAME = re.compile(r"(?:[A-Za-z0-9_*-]{1,63}\.)*[A-Za-z0-9_*-]{1,63}\.?")
_PLAIN_TXT = re.compile(r"[ !#-\[\]-~]{0,255}")
_PLAIN_QUOTED_TXT = re.compile(r'"[ !#-\[\]-~]{0,255}"')
HEADER = "; written by external-dns-py (zonefile provider); comments and $TTL lines are not preserved\n"

_IDENTS = itertools.count(1)
OWN_WRITES_KEPT = 1024  # own writes remembered for by-name snapshots (further behind: a full diff)
OWN_WRITE_NAMES_KEPT = 10_000  # the names of a bigger own write are not kept (its followers diff the zone)
Key = tuple[str, str]
Stamp = tuple[int, int, int, int]  # (st_dev, st_ino, st_mtime_ns, st_size)


def _bare(name: str) -> str:
    name = name.strip().lower()
    return name[:-1] if name.endswith(".") else name


def zone_from_filename(filename: str) -> str | None:
    """`example.org.zone` -> `example.org`, `db.example.org` -> `example.org`, anything else -> None."""
    if filename.startswith("."):
        return None
    if filename.endswith(".zone") and len(filename) > len(".zone"):
        return filename[: -len(".zone")].lower()
    if filename.startswith("db.") and len(filename) > len("db."):
        return filename[len("db.") :].lower()
    return None


def _stamp(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


# -- targets --------------------------------------------------------------------------------------------------
def target_to_rdata(record_type: str, target: str) -> dns.rdata.Rdata:
    """Parse one endpoint target with dnspython; ValueError naming the problem when it is not valid."""
    import dns.exception
    import dns.name
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.rdtypes.ANY.TXT

    if record_type == "TXT":
        # Quoted text (one or more strings) is parsed as such, anything else is one raw string (split in
        # 255-byte pieces).
        if target.startswith('"'):
            with contextlib.suppress(dns.exception.DNSException, ValueError):
                return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.TXT, target)
        raw = target.encode("utf-8")
        chunks = [raw[i : i + 255] for i in range(0, len(raw), 255)] or [b""]
        return dns.rdtypes.ANY.TXT.TXT(dns.rdataclass.IN, dns.rdatatype.TXT, chunks)
    try:
        rdtype = dns.rdatatype.from_text(record_type)
        return dns.rdata.from_text(dns.rdataclass.IN, rdtype, target, origin=dns.name.root, relativize=False)
    except (dns.exception.DNSException, ValueError) as exc:
        raise ValueError(f"invalid {record_type} target {target!r}: {exc}") from None


def rdata_to_target(record_type: str, rdata: dns.rdata.Rdata) -> str:
    """The target string `records()` reports for one rdata."""
    text = str(rdata.to_text())
    if record_type in _NAME_TERMINATED and text.endswith(".") and text != ".":
        text = text[:-1]
    return text


def canonical_target(record_type: str, target: str) -> str:
    """A target in the exact form `records()` would read it back; ValueError when it does not parse.
    The common forms are recognised directly, the rest goes through dnspython (memoised)."""
    if record_type == "A" and _IPV4.fullmatch(target):
        return target
    if record_type == "TXT":
        if _PLAIN_QUOTED_TXT.fullmatch(target):
            return target
        if _PLAIN_TXT.fullmatch(target):
            return f'"{target}"'
    elif record_type in _HOST_TYPES and _SIMPLE_NAME.fullmatch(target):
        bare = target[:-1] if target.endswith(".") else target
        if len(bare) <= 253:
            return bare
    return _canonical_parsed(record_type, target)


@lru_cache(maxsize=200_000)
def _canonical_parsed(record_type: str, target: str) -> str:
    return rdata_to_target(record_type, target_to_rdata(record_type, target))


def _presentation(name: str) -> str:
    """An endpoint name as written in a zone file (lower case; escapes where dnspython needs them)."""
    bare = _bare(name)
    if _SIMPLE_NAME.fullmatch(bare) and len(bare) <= 253:
        return bare
    import dns.exception
    import dns.name

    try:
        return str(dns.name.from_text(bare or ".", origin=dns.name.root).to_text(omit_final_dot=True))
    except dns.exception.DNSException as exc:
        raise ProviderError(f"invalid DNS name {name!r}: {exc}") from None


# -- zone files -----------------------------------------------------------------------------------------------
@dataclass
class ZoneFile:
    """One zone file: where it is, which zone it holds, its contents when it parsed and the key of the
    version read (device, inode, mtime_ns, size)."""

    path: str
    origin: str
    data: ZoneData | None = None
    error: str = ""
    stamp: Stamp = (0, 0, 0, 0)
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


class ZoneView(ByNameSnapshot):
    """A zone file's records by name (providers/snapshot.py) as a view over the parsed file: endpoints are built
    when read (`fresh_records`), so the zone is held once, as the file's record sets. `follow(zf, names)` moves
    the view to another version of the file and journals the names that changed: `names` when the caller knows
    them (our own writes), else the names whose record sets differ."""

    fresh_records = True

    def __init__(self, zone: str, zf: ZoneFile | None = None) -> None:
        super().__init__(zone)
        data = zf.data if zf is not None else None
        # (the file's record sets, name key -> record types there, sorted): one attribute, so a reader on
        # another thread always sees both of one version
        self._state = (data, _types_by_name(data))

    def follow(self, zf: ZoneFile | None, names: Iterable[str] | None = None) -> None:
        old, old_types = self._state
        new = zf.data if zf is not None else None
        # the names whose record sets differ: among `names` (our own writes) or, from another writer, all
        if names is None or new is None:
            new_types = _types_by_name(new)
            candidates = old_types.keys() | new_types.keys() if names is None else set(names)
        else:  # only `names` moved: their types looked up, the rest as they were (not a pass over the zone)
            candidates = set(names)
            new_types = dict(old_types)
            for name in candidates:
                held = _types_at(new, name)
                if held:
                    new_types[name] = held
                else:
                    new_types.pop(name, None)
        names = [n for n in candidates if _sets_at(old, old_types, n) != _sets_at(new, new_types, n)]
        with self._lock:
            self._state = (new, new_types)
            for name in names:
                self.version += 1
                self._journal.append((self.version, name))

    def get(self, name: str) -> tuple[Endpoint, ...]:
        key = name_key(name)
        data, types = self._state
        return _endpoints_at(data, key, types.get(key, ()))

    def names(self) -> list[str]:
        return list(self._state[1])

    def items(self) -> list[tuple[str, tuple[Endpoint, ...]]]:
        data, types_of = self._state
        if data is None:
            return []
        rrsets, record = data.rrsets, Endpoint.record
        out: list[tuple[str, tuple[Endpoint, ...]]] = []
        for key, types in types_of.items():
            if len(types) == 1:  # most names: `_endpoints_at`, inline
                rtype = types[0]
                rrset = rrsets.get((key, rtype)) or _rrset_at(data, key, rtype)
                out.append((key, (record(rrset[0], rtype, Targets(rrset[2]), rrset[1]),)))
            else:
                out.append((key, _endpoints_at(data, key, types)))
        return out

    def items_taking(self, take: Callable[[str, str, tuple[str, ...]], bool]) -> list[tuple[str, tuple[Endpoint, ...]]]:
        """`items()`, except that a TXT record set with values which `take(name key, name, values)` claims
        (returns True for) is not built: the TXT registry's first read takes its ownership TXTs so, without
        an endpoint each. Every name stays (with `()` when all of its record sets were taken)."""
        data, types_of = self._state
        if data is None:
            return []
        rrsets, record = data.rrsets, Endpoint.record
        out: list[tuple[str, tuple[Endpoint, ...]]] = []
        for key, types in types_of.items():
            if len(types) == 1:
                rtype = types[0]
                rrset = rrsets.get((key, rtype)) or _rrset_at(data, key, rtype)
                if rtype == "TXT" and rrset[2] and take(key, rrset[0], rrset[2]):
                    out.append((key, ()))
                else:
                    out.append((key, (record(rrset[0], rtype, Targets(rrset[2]), rrset[1]),)))
                continue
            eps: list[Endpoint] = []
            for rtype in types:
                rrset = _rrset_at(data, key, rtype)
                if rtype == "TXT" and rrset[2] and take(key, rrset[0], rrset[2]):
                    continue
                eps.append(record(rrset[0], rtype, Targets(rrset[2]), rrset[1]))
            out.append((key, tuple(eps)))
        return out

    def endpoints(self) -> list[Endpoint]:
        return [ep for _key, eps in self.items() for ep in eps]

    def __len__(self) -> int:
        return sum(len(types) for types in self._state[1].values())


def _types_by_name(data: ZoneData | None) -> dict[str, tuple[str, ...]]:
    """name key -> the record types held there (sorted, as a by-name snapshot orders a name's records), in
    the order the names first appear."""
    if data is None:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for (name, rtype), rrset in data.rrsets.items():
        key = name if not name.endswith(".") else name_key(rrset[0])  # the root name: "." -> ""
        held = out.get(key)
        if held is None:
            out[key] = _one_type(rtype)
        else:
            out[key] = tuple(sorted((*held, rtype)))
    return out


def _types_at(data: ZoneData, key: str) -> tuple[str, ...]:
    """The record types held at the name key `key`, sorted (`_types_by_name` of one name)."""
    rrsets = data.rrsets
    held = [t for t in data.types() if (key, t) in rrsets or (not key and (".", t) in rrsets)]
    return _one_type(held[0]) if len(held) == 1 else tuple(sorted(held))


@lru_cache(maxsize=64)
def _one_type(rtype: str) -> tuple[str, ...]:
    return (rtype,)  # one shared 1-tuple per type: most names hold one record set


def _rrset_at(data: ZoneData, key: str, rtype: str) -> Rrset:
    """The record set of `rtype` at the name key `key` (rrsets are keyed by the name without its final dot,
    which differs from the name key only for the root name)."""
    rrset = data.rrsets.get((key, rtype))
    if rrset is not None:
        return rrset
    return next(r for (_n, t), r in data.rrsets.items() if t == rtype and name_key(r[0]) == key)


def _endpoints_at(data: ZoneData | None, key: str, types: tuple[str, ...]) -> tuple[Endpoint, ...]:
    if data is None:
        return ()
    record = Endpoint.record
    return tuple([record(rrset[0], rtype, Targets(rrset[2]), rrset[1])
                  for rtype in types for rrset in (_rrset_at(data, key, rtype),)])


def _sets_at(data: ZoneData | None, types: dict[str, tuple[str, ...]], key: str) -> list[tuple[str, Rrset]]:
    """(type, record set) of each record set at the name key `key`."""
    if data is None:
        return []
    return [(rtype, _rrset_at(data, key, rtype)) for rtype in types.get(key, ())]


def _detect_origin(path: str, text: str) -> str:
    m = _ORIGIN_RE.search(text)
    if m:
        return _bare(m.group(1))
    return zone_from_filename(os.path.basename(path)) or ""


def parse_zone_file(path: str) -> ZoneFile:
    """Read and parse one zone file; a failure is reported in `.error` (file and line), never raised."""
    try:
        with open(path, encoding="utf-8") as f:
            st = os.fstat(f.fileno())
            stamp = _stamp(st)
            if st.st_size > MAX_ZONE_FILE_BYTES:
                raise OSError(f"{st.st_size} bytes is over the limit of {MAX_ZONE_FILE_BYTES} bytes")
            text = f.read(MAX_ZONE_FILE_BYTES + 1)
            if len(text) > MAX_ZONE_FILE_BYTES:  # grew while being read
                raise OSError(f"over the limit of {MAX_ZONE_FILE_BYTES} bytes")
    except (OSError, UnicodeDecodeError) as exc:
        return ZoneFile(path, zone_from_filename(os.path.basename(path)) or "", error=f"{path}: {exc}")
    origin = _detect_origin(path, text)
    try:
        data = read_zone_text(text, origin)
    except Unusual:
        try:
            data = _read_with_dnspython(path, text, origin)
        except _ParseError as exc:
            return ZoneFile(path, origin, error=str(exc), stamp=stamp)
    if data.soa is None:
        return ZoneFile(path, origin, error=f"{path}: no SOA record at the zone apex {origin}.", stamp=stamp)
    return ZoneFile(path, origin, data=data, stamp=stamp)


class _ParseError(Exception):
    pass


def _refuse_broken(files: Sequence[ZoneFile], zone: str | None = None) -> None:
    """ProviderError naming the files (of `zone`, or all) that cannot be used: a zone read in part must
    never look empty or complete to the plan."""
    broken = [zf.error for zf in files if zf.error and (zone is None or zf.origin in (zone, ""))]
    if broken:
        raise ProviderError(f"{len(broken)} zone file(s) cannot be used (left untouched; nothing is synced "
                            f"from partial input): " + "; ".join(broken[:5]))


def _read_with_dnspython(path: str, text: str, origin: str) -> ZoneData:
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

    data = ZoneData(_bare(str(zone.origin)) if zone.origin is not None else "")
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


def atomic_write(path: str, text: str) -> Stamp:
    """Write `text` to `path` so that readers (and a crash) see the old or the new content, never a mix.
    Returns the key (device, inode, mtime_ns, size) of the file written."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
            with contextlib.suppress(OSError):
                os.fchmod(f.fileno(), os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644)
            stamp = _stamp(os.fstat(f.fileno()))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return stamp


def lock_path(path: str) -> str:
    directory, name = os.path.split(path)
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


_FEW_ZONES = 8  # up to this many zones a name is matched against each zone, beyond by its suffixes


class ZoneDomainFilter(DomainFilter):
    """Names whose closest zone file parsed (names under a broken zone file are out of scope)."""

    def __init__(self, good: Iterable[str], broken: Iterable[str] = ()) -> None:
        super().__init__(include=list(good))
        self.good = frozenset(_bare(z) for z in good)
        self._all = sorted(self.good | {_bare(z) for z in broken})
        # zone in the form `zone_for_name` compares -> its file parsed (the first of a form wins, as there)
        self._usable: dict[str, bool] = {}
        for zone in self._all:
            self._usable.setdefault(normalize_zone(zone), zone in self.good)
        # few zones (the common case): each zone's form tried longest first, (form, "." + form, usable)
        few = tuple(sorted(((z, "." + z, ok) for z, ok in self._usable.items() if z), key=lambda t: -len(t[0])))
        self._few: tuple[tuple[str, str, bool], ...] | None = few if len(few) <= _FEW_ZONES else None
        self._rest = self._usable.get("", False)  # what a name in none of them gets (the catch-all zone's)

    def match(self, domain: str) -> bool:
        """`zone_for_name(domain, zones)` names a good zone: with few zones, the zones' forms tried longest
        first; else the name's suffixes looked up, longest first (one dict lookup per label, whatever the
        number of zones; a plan asks for every record)."""
        name = domain.strip().lower()
        if name.endswith("."):
            name = name[:-1]
        few = self._few
        if few is not None:
            for form, dotted, ok in few:
                if name.endswith(dotted) or name == form:
                    return ok
            return self._rest
        usable = self._usable
        while True:
            found = usable.get(name)
            if found is not None:
                return found
            dot = name.find(".")
            if dot < 0:
                return usable.get("", False) if name else False
            name = name[dot + 1 :]

    def is_configured(self) -> bool:
        return True


def _describe(ep: Endpoint) -> str:
    return f"{ep.dns_name} {ep.record_type}"


def _check_zone_name(zone: str) -> str:
    import dns.exception
    import dns.name

    name = _bare(zone)
    try:
        dns.name.from_text(name, origin=dns.name.root)
    except dns.exception.DNSException as exc:
        raise ConfigError(f"--zonefile-create-zone: invalid zone name {zone!r}: {exc}") from None
    if "/" in name or "\\" in name or name in (".", ".."):
        raise ConfigError(f"--zonefile-create-zone: invalid zone name {zone!r}: not usable as a file name")
    return name


class ZoneFileProvider(Provider):
    """Zones kept as RFC 1035 files in one directory. Thread-safe (writes are serialised, and locked
    against other processes)."""

    def __init__(self, directory: str, create_zones: Iterable[str] = (), default_ttl: int = DEFAULT_TTL,
                 dry_run: bool = False) -> None:
        self.directory = directory
        self.dry_run = dry_run
        # dry run: zones that --zonefile-create-zone would create are shown as empty zones, never written
        self._virtual: dict[str, ZoneFile] = {}
        self.default_ttl = default_ttl
        self._lock = threading.RLock()
        # path -> the zone as last read or written (re-read only when the file's key moved)
        self._snapshots: dict[str, ZoneFile] = {}
        # zone -> (by-name snapshot, ident of the zone file version it shows)
        self._by_name: dict[str, tuple[ZoneView, int]] = {}
        # ident of a version we wrote -> (ident of the version it was made from, the names it changed, or
        # None for a write of more names than are kept)
        self._own_writes: dict[int, tuple[int, frozenset[str] | None]] = {}
        self.problems: list[str] = []
        # zones to create on first use: building the provider has no side effects (a configuration error
        # found later, e.g. in the registry flags, must leave the directory untouched)
        self._pending = [_check_zone_name(z) for z in create_zones if _bare(z)]
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise ConfigError(f"--zonefile-dir: {directory!r} is not a directory")
        if not self._pending and not os.path.isdir(directory):
            raise ConfigError(f"--zonefile-dir: {directory!r} is not a directory")

    def _ensure_zones(self) -> None:
        """Create the `--zonefile-create-zone` zones (once, on first use), under the provider's lock: a caller
        arriving meanwhile finds `_pending` empty and waits on the lock for its scan, so it sees the zones
        (it listed the directory before they were written: no zone, e.g. a DNSRecord planned in zone '')."""
        if not self._pending:
            return
        with self._lock:
            pending, self._pending = self._pending, []
            if not self.dry_run:
                os.makedirs(self.directory, exist_ok=True)
            for zone in pending:
                self.create_zone(zone)

    # -- discovery ------------------------------------------------------------------------------------------
    def _virtual_zone(self, name: str) -> ZoneFile:
        path = os.path.join(self.directory, f"{name}.zone")
        return ZoneFile(path, name, data=read_zone_text(new_zone_text(name), name))

    def create_zone(self, zone: str) -> bool:
        """Write `<zone>.zone` (SOA and NS) unless some file already holds the zone; True when
        written. In dry-run mode nothing is written: the zone is shown as an empty zone instead."""
        name = _check_zone_name(zone)
        with self._lock:
            if self.dry_run:
                if not any(zf.origin == name for zf in self._scan()):
                    self._virtual[name] = self._virtual_zone(name)
                    log.info("Dry run: zone file not created", zone=name)
                return False
            path = os.path.join(self.directory, f"{name}.zone")
            with zone_file_lock(path):  # another process may be creating it right now
                if any(zf.origin == name for zf in self._scan()):
                    return False
                if os.path.exists(path):  # exists but holds another $ORIGIN: leave it alone
                    raise ConfigError(f"--zonefile-create-zone: {path} exists but does not hold zone {name}")
                atomic_write(path, new_zone_text(name))
            log.info("Created zone file", zone=name, path=path)
            return True

    def _load(self, path: str) -> ZoneFile:
        """The zone of `path`: the snapshot while the file's key is unchanged, else a fresh read."""
        try:
            stamp = _stamp(os.stat(path))
        except OSError as exc:
            return ZoneFile(path, "", error=f"{path}: {exc}")
        hit = self._snapshots.get(path)
        if hit is not None and hit.stamp == stamp:
            return hit
        zf = parse_zone_file(path)
        self._snapshots[path] = zf
        return zf

    def _scan(self) -> list[ZoneFile]:
        """Every zone file of the directory (sorted by path); duplicates of a zone become errors."""
        names: list[str] = []
        if not (self.dry_run and not os.path.isdir(self.directory)):
            try:
                names = sorted(os.listdir(self.directory))
            except OSError as exc:
                raise ProviderError(f"--zonefile-dir: cannot list {self.directory!r}: {exc}") from exc
        out: list[ZoneFile] = []
        seen: dict[str, str] = {}
        for filename in names:
            if zone_from_filename(filename) is None:
                continue
            path = os.path.join(self.directory, filename)
            if not os.path.isfile(path):
                continue
            zf = self._load(path)
            if zf.data is not None and zf.origin in seen:
                zf = ZoneFile(path, zf.origin, error=f"{path}: zone {zf.origin} is already held by {seen[zf.origin]}")
            if zf.data is not None:
                seen[zf.origin] = path
            out.append(zf)
        out.extend(zf for origin, zf in sorted(self._virtual.items()) if origin not in seen)
        live = {zf.path for zf in out}
        for gone in [p for p in self._snapshots if p not in live]:
            del self._snapshots[gone]
        return out

    def _report(self, files: Sequence[ZoneFile]) -> None:
        """Log each problem once, when it first appears (a sync reads the directory several times)."""
        problems = [zf.error for zf in files if zf.error]
        for problem in problems:
            if problem not in self.problems:
                log.error("Zone file cannot be used; it is left untouched and syncs fail until it is fixed",
                          problem=problem)
        self.problems = problems

    def zone_files(self) -> list[ZoneFile]:
        """The zone files as they are now (broken ones have `.error` set and are logged)."""
        self._ensure_zones()
        with self._lock:
            files = self._scan()
        self._report(files)
        return files

    def zones(self) -> Sequence[str]:
        # A broken file's zone is listed too: reading it fails (`_refuse_broken`), so its syncs fail and retry
        # instead of the zone silently dropping out of the run.
        return sorted({zf.origin for zf in self.zone_files() if zf.origin})

    def get_domain_filter(self) -> DomainFilter:
        files = self.zone_files()
        return ZoneDomainFilter([zf.origin for zf in files if zf.data is not None],
                                [zf.origin for zf in files if zf.data is None and zf.origin])

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        files = self.zone_files()
        _refuse_broken(files)
        out: list[Endpoint] = []
        for zf in files:
            out.extend(zf.endpoints())
        return out

    def zone_records(self, zone: str) -> list[Endpoint]:
        """The records of one zone (the file holding exactly that origin); [] for an unknown zone."""
        name = _bare(zone)
        files = self.zone_files()
        _refuse_broken(files, name)
        for zf in files:
            if zf.origin == name:
                return zf.endpoints()
        return []

    cheap_snapshots = True  # zone_snapshot costs a directory listing and a stat while the file is unchanged

    def zone_snapshot(self, zone: str) -> ByNameSnapshot:
        """The zone by name (providers/snapshot.py): a view over the parsed file (`ZoneView`), kept in step
        with it: unchanged while the file's key (device, inode, mtime_ns, size) is; after our own write only
        the names it changed are compared; any other change of the file is diffed by name."""
        name = _bare(zone)
        files = self.zone_files()
        _refuse_broken(files, name)
        current = next((zf for zf in files if zf.origin == name and zf.data is not None), None)
        with self._lock:
            kept = self._by_name.get(name)
            if kept is None:  # first use: the view of the file as it is, nothing to diff
                view = ZoneView(name, current)
            else:
                view, shown = kept
                if current is None:
                    view.follow(None)
                elif current.ident != shown:
                    view.follow(current, self._written_since(shown, current.ident))
            self._by_name[name] = (view, current.ident if current is not None else 0)
            return view

    def _written_since(self, shown: int, ident: int) -> set[str] | None:
        """The names our own writes changed from version `shown` to version `ident`; None when another
        writer (or a version we no longer remember) lies between."""
        names: set[str] = set()
        while ident != shown:
            step = self._own_writes.get(ident)
            if step is None or step[1] is None or shown == 0:
                return None
            ident, names = step[0], names | step[1]
        return names

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """Endpoints a zone file can hold, in read-back form (see the module docstring). Endpoints that need
        no change are passed through as they are; the others are adjusted copies."""
        out: list[Endpoint] = []
        for ep in endpoints:
            if ep.set_identifier:
                log.warning("Skipping endpoint: zone files have no set identifiers", endpoint=_describe(ep),
                            set_identifier=ep.set_identifier)
                continue
            if ep.record_type not in ZONEFILE_RECORD_TYPES:
                log.warning("Skipping endpoint: record type not supported by the zonefile provider",
                            endpoint=_describe(ep), supported=",".join(ZONEFILE_RECORD_TYPES))
                continue
            try:
                targets = [canonical_target(ep.record_type, t) for t in ep.targets]
            except ValueError as exc:
                log.warning("Skipping endpoint with an invalid target", endpoint=_describe(ep), error=str(exc))
                continue
            if not ep.provider_specific and targets == ep.targets:
                out.append(ep)  # nothing to change: passed through as it is (as the RFC2136 provider does)
                continue
            adjusted = ep.copy()
            adjusted.targets[:] = targets
            adjusted.provider_specific = []
            out.append(adjusted)
        return out

    # -- writing --------------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        if self.dry_run:
            log.info("Dry run: zone files not written", changes=len(changes.all_endpoints()))
            return
        self._ensure_zones()
        with self._lock:
            files = self._scan()
            good = {zf.origin: zf for zf in files if zf.data is not None}
            plan = _route(changes, list(good))
            with contextlib.ExitStack() as locks:
                for origin in sorted(plan):  # one order for every process: no lock-order deadlock
                    locks.enter_context(zone_file_lock(good[origin].path))
                updated: dict[str, tuple[ZoneFile, ZoneData]] = {}
                for origin in sorted(plan):
                    zf = self._reload_locked(good[origin])
                    assert zf.data is not None
                    data = _copy(zf.data)
                    _validate_and_apply(data, plan[origin], self.default_ttl, zf.path)
                    updated[origin] = (zf, data)
                for origin, (zf, data) in sorted(updated.items()):
                    assert data.soa is not None
                    serial = bump_serial(data.soa)
                    stamp = atomic_write(zf.path, zone_to_text(data))
                    written = ZoneFile(zf.path, origin, data=data, stamp=stamp)
                    self._snapshots[zf.path] = written
                    changed = plan[origin].all()
                    # a write of many names is diffed whole when a view follows it (as cheap as the write, and
                    # the names are not held: 20 MiB for a start-up write of 200k record sets)
                    self._own_writes[written.ident] = (zf.ident, frozenset(_bare(ep.dns_name) for ep in changed)
                                                       if len(changed) <= OWN_WRITE_NAMES_KEPT else None)
                    while len(self._own_writes) > OWN_WRITES_KEPT:
                        del self._own_writes[next(iter(self._own_writes))]
                    zc = plan[origin]
                    log.info("Zone file written", zone=origin, path=zf.path, serial=serial, create=len(zc.create),
                             update=len(zc.update_new), delete=len(zc.delete))

    def _reload_locked(self, zf: ZoneFile) -> ZoneFile:
        """Under the zone's lock: the zone as it is on disk now (another process may have written it)."""
        fresh = self._load(zf.path)
        if fresh.data is None or fresh.origin != zf.origin:
            raise SoftError(f"{zf.path}: the zone file changed while we were writing it and no longer holds "
                            f"zone {zf.origin}: {fresh.error or 'origin ' + fresh.origin}")
        return fresh


def _copy(data: ZoneData) -> ZoneData:
    return data.copy()


@dataclass
class _ZoneChanges:
    create: list[Endpoint]
    update_new: list[Endpoint]
    update_old: list[Endpoint]
    delete: list[Endpoint]

    def all(self) -> list[Endpoint]:
        return [*self.create, *self.update_new, *self.update_old, *self.delete]


def _route(changes: Changes, zones: list[str]) -> dict[str, _ZoneChanges]:
    out: dict[str, _ZoneChanges] = {}
    for attr in ("create", "update_new", "update_old", "delete"):
        for ep in getattr(changes, attr):
            if ep.set_identifier:
                raise InvalidBatchRequestError(f"{_describe(ep)}: zone files have no set identifiers")
            zone = zone_for_name(ep.dns_name, zones)
            if zone is None:
                if attr == "create":
                    raise ProviderError(f"no zone file holds {ep.dns_name} (zones: {', '.join(zones) or 'none'})")
                raise RecordNotFoundError(f"{_describe(ep)} (no zone file holds it)")
            zc = out.setdefault(zone, _ZoneChanges([], [], [], []))
            getattr(zc, attr).append(ep)
    return out


def _new_rrset(ep: Endpoint, ttl: int, display: str) -> tuple[str, int, tuple[str, ...]]:
    try:
        targets = [canonical_target(ep.record_type, t) for t in ep.targets]
    except ValueError as exc:
        raise ProviderError(f"{_describe(ep)}: {exc}") from None
    if not targets:
        raise ProviderError(f"{_describe(ep)}: no targets")
    unique: dict[str, str] = {}
    for t in targets:
        # rdata equality: names compare case-insensitively, everything else exactly
        unique.setdefault(t.lower() if ep.record_type in _NAME_TERMINATED else t, t)
    return (display, ep.record_ttl or ttl, tuple(unique.values()))


def _validate_and_apply(data: ZoneData, zc: _ZoneChanges, default_ttl: int, path: str) -> None:
    """Check the zone's part of the batch (inmemory rules), then apply it to `data` (a copy)."""
    rrsets = data.rrsets

    def key_of(ep: Endpoint) -> Key:
        return (_bare(ep.dns_name), ep.record_type)

    def first_target_differs(targets: tuple[str, ...], ep: Endpoint) -> bool:
        if not ep.targets:
            return False
        have = {t.lower() for t in targets}
        try:
            return canonical_target(ep.record_type, ep.targets[0]).lower() not in have
        except ValueError:
            return True

    mesh: set[Key] = set()

    def once(ep: Endpoint) -> None:
        key = key_of(ep)
        if key in mesh:
            raise InvalidBatchRequestError(f"{_describe(ep)} appears more than once")
        mesh.add(key)

    for ep in zc.create:
        if ep.record_type not in ZONEFILE_RECORD_TYPES:
            raise ProviderError(f"{_describe(ep)}: record type not supported by the zonefile provider")
        if key_of(ep) in rrsets:
            raise RecordAlreadyExistsError(_describe(ep))
        once(ep)
    for ep in zc.update_new:
        if key_of(ep) not in rrsets:
            raise RecordNotFoundError(_describe(ep))
        once(ep)
    for ep in [*zc.update_old, *zc.delete]:
        stored = rrsets.get(key_of(ep))
        if stored is None or first_target_differs(stored[2], ep):
            raise RecordNotFoundError(_describe(ep))
    for ep in zc.delete:
        once(ep)

    for ep in zc.delete:
        data.delete(key_of(ep))
    every_type = data.types() | set(ZONEFILE_RECORD_TYPES)
    for ep in [*zc.update_new, *zc.create]:
        name, rtype = key_of(ep)
        others = [t for t in every_type if t != rtype and (name, t) in rrsets]
        if rtype == "CNAME" and others:
            raise ProviderError(f"{path}: cannot add {_describe(ep)}: the name also holds "
                                f"{', '.join(sorted(others))} (a CNAME must be alone)")
        if "CNAME" in others:
            raise ProviderError(f"{path}: cannot add {_describe(ep)}: the name holds a CNAME")
        # a name keeps the spelling it has in the file
        display = rrsets[(name, others[0])][0] if others else _presentation(ep.dns_name)
        display = name if display == name else display  # one string for key and spelling (20 MiB at 200k)
        old = rrsets.get((name, rtype))
        data.put((name, rtype), _new_rrset(ep, default_ttl, old[0] if old is not None else display))
