"""The zone-file provider: one RFC 1035 master file per zone in a directory, read and written with dnspython.

Zone discovery (`--zonefile-dir`, re-scanned on every call so files added by hand are picked up):
- a file named `<zone>.zone` or `db.<zone>` (hidden files and anything else are ignored);
- the zone's origin is the file's first `$ORIGIN` directive when it has one, else the name from the file
  name; the zone must have an SOA record at its origin.
- a file that does not parse (or has no SOA, or claims a zone another file already holds) is reported with
  an error log naming the file (and line, from dnspython) and left untouched; its names are outside the
  provider's domain filter, so the plan never touches them, and the other zones keep working.
- `--zonefile-create-zone=example.org` (repeatable) writes `example.org.zone` with an SOA and an NS record
  when no file holds that zone yet, so a fresh directory needs nothing else.

Records: every RRset except the SOA is one endpoint (name and name-valued targets without the trailing
dot, as external-dns). Types: A, AAAA, CNAME, TXT (quoted, multi-string), MX, SRV, NS, PTR, CAA, NAPTR,
DNAME. Set identifiers and provider-specific properties do not exist in zone files: `adjust_endpoints`
drops endpoints with a set identifier (warning), clears provider-specific properties and rewrites targets
into the exact form `records()` reads back (so a plan never sees a spurious update); a target that does not
parse for its type drops that endpoint with a warning naming it, the other endpoints still sync.

Writing (`apply_changes`): the affected zone files are re-read, the whole batch is validated first with the
in-memory provider's rules and messages (`record already exists`, `record not found`, `invalid batch
request`; a create outside every zone is an error too; a CNAME never shares its name with other data), then
each changed zone is written with its SOA serial bumped, atomically: a temporary file in the same directory
is written, fsynced and `os.replace`d over the old one (then the directory is fsynced), so a crash leaves
either the old or the new file, never half of one. Comments and `$TTL`/`$INCLUDE` directives of a file are
not preserved once we rewrite it (every record keeps its TTL explicitly); records we do not own are kept.

Dry run (`--dry-run`): nothing is created or written; a zone `--zonefile-create-zone` would create is shown
as an empty zone so the plan is complete.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cachetools
import dns.exception
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdataset
import dns.rdatatype
import dns.rdtypes.ANY.TXT
import dns.zone
import structlog

from external_dns.cmd.flags import ConfigError
from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import (
    InvalidBatchRequestError,
    RecordAlreadyExistsError,
    RecordNotFoundError,
)
from external_dns.providers.provider import Provider, ProviderError, zone_for_name

log = structlog.get_logger(__name__)

ZONEFILE_RECORD_TYPES = ("A", "AAAA", "CNAME", "TXT", "MX", "SRV", "NS", "PTR", "CAA", "NAPTR", "DNAME")
# Types whose text form ends with a domain name: its trailing dot is dropped on read, as external-dns does.
_NAME_TERMINATED = frozenset({"CNAME", "NS", "PTR", "DNAME", "MX", "SRV"})
DEFAULT_TTL = 300
_ORIGIN_RE = re.compile(r"^\$ORIGIN[ \t]+(\S+)", re.MULTILINE)
_IN = dns.rdataclass.IN

Key = tuple[str, str]


def _bare(name: str) -> str:
    name = name.strip().lower()
    return name[:-1] if name.endswith(".") else name


def _abs_name(name: str) -> dns.name.Name:
    return dns.name.from_text(_bare(name) or ".", origin=dns.name.root)


def _name_text(name: dns.name.Name) -> str:
    return str(name.to_text(omit_final_dot=True))


def zone_from_filename(filename: str) -> str | None:
    """`example.org.zone` -> `example.org`, `db.example.org` -> `example.org`, anything else -> None."""
    if filename.startswith("."):
        return None
    if filename.endswith(".zone") and len(filename) > len(".zone"):
        return filename[: -len(".zone")].lower()
    if filename.startswith("db.") and len(filename) > len("db."):
        return filename[len("db.") :].lower()
    return None


# -- targets <-> rdata ----------------------------------------------------------------------------------------
def _txt_rdata(text: str) -> dns.rdata.Rdata:
    """A TXT target: quoted text (one or more strings) is parsed as such, anything else is one raw string
    (split in 255-byte pieces)."""
    if text.startswith('"'):
        with contextlib.suppress(dns.exception.DNSException, ValueError):
            return dns.rdata.from_text(_IN, dns.rdatatype.TXT, text)
    raw = text.encode("utf-8")
    chunks = [raw[i : i + 255] for i in range(0, len(raw), 255)] or [b""]
    return dns.rdtypes.ANY.TXT.TXT(_IN, dns.rdatatype.TXT, chunks)


def target_to_rdata(record_type: str, target: str) -> dns.rdata.Rdata:
    """Parse one endpoint target; ValueError naming the problem when it is not valid for the type."""
    if record_type == "TXT":
        return _txt_rdata(target)
    try:
        rdtype = dns.rdatatype.from_text(record_type)
        return dns.rdata.from_text(_IN, rdtype, target, origin=dns.name.root, relativize=False)
    except (dns.exception.DNSException, ValueError) as exc:
        raise ValueError(f"invalid {record_type} target {target!r}: {exc}") from None


def rdata_to_target(record_type: str, rdata: dns.rdata.Rdata) -> str:
    """The target string `records()` reports for one rdata."""
    text = str(rdata.to_text())
    if record_type in _NAME_TERMINATED and text.endswith(".") and text != ".":
        text = text[:-1]
    return text


def canonical_target(record_type: str, target: str) -> str:
    """A target in the exact form `records()` would read it back."""
    return rdata_to_target(record_type, target_to_rdata(record_type, target))


# -- zone files -----------------------------------------------------------------------------------------------
@dataclass
class ZoneFile:
    """One zone file: where it is, which zone it holds, and (when it parsed) its contents."""

    path: str
    origin: str
    zone: dns.zone.Zone | None = None
    error: str = ""


def _detect_origin(path: str, text: str) -> str:
    m = _ORIGIN_RE.search(text)
    if m:
        return _bare(m.group(1))
    return zone_from_filename(os.path.basename(path)) or ""


def parse_zone_file(path: str) -> ZoneFile:
    """Read and parse one zone file; a failure is reported in `.error` (file and line), never raised."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        return ZoneFile(path, zone_from_filename(os.path.basename(path)) or "", error=f"{path}: {exc}")
    origin = _detect_origin(path, text)
    try:
        zone = dns.zone.from_text(text, origin=_abs_name(origin), relativize=False, filename=path,
                                  check_origin=False)
    except (dns.exception.DNSException, ValueError, KeyError) as exc:
        return ZoneFile(path, origin, error=_describe_parse_error(path, text, origin, exc))
    if zone.origin is None or zone.get_rdataset(zone.origin, dns.rdatatype.SOA) is None:
        return ZoneFile(path, origin, error=f"{path}: no SOA record at the zone apex {origin}.")
    return ZoneFile(path, origin, zone=zone)


_LINE_RE = re.compile(r"^(?P<path>.*):(?P<line>\d+): (?P<detail>.*)$", re.DOTALL)


def _line_fails(line: str, origin: str) -> bool:
    if not line.strip() or line[0].isspace() or line.lstrip().startswith(("$", ";")):
        return False
    try:
        dns.zone.from_text(f"$TTL 300\n{line}\n", origin=_abs_name(origin), relativize=False, check_origin=False)
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


def new_zone_text(zone: str, serial: int = 1) -> str:
    """The text of a fresh zone: SOA and one NS record (`ns1.<zone>`)."""
    return (
        "; created by external-dns-py (--zonefile-create-zone)\n"
        f"$ORIGIN {zone}.\n"
        f"@ 3600 IN SOA ns1.{zone}. hostmaster.{zone}. {serial} 3600 600 86400 {DEFAULT_TTL}\n"
        f"@ 3600 IN NS ns1.{zone}.\n"
    )


def zone_to_text(zone: dns.zone.Zone) -> str:
    body = zone.to_text(sorted=True, relativize=True, want_origin=True)
    return "; written by external-dns-py (zonefile provider); comments and $TTL lines are not preserved\n" + str(body)


def atomic_write(path: str, text: str) -> None:
    """Write `text` to `path` so that readers (and a crash) see the old or the new content, never a mix."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644)
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


def bump_serial(zone: dns.zone.Zone) -> int:
    """Increment the SOA serial (RFC 1982 arithmetic, skipping 0); returns the new serial."""
    origin = zone.origin
    rds = None if origin is None else zone.get_rdataset(origin, dns.rdatatype.SOA)
    if origin is None or rds is None:
        raise ProviderError(f"zone {zone.origin}: no SOA record")
    soa = rds[0]
    serial = (int(soa.serial) + 1) % (1 << 32) or 1
    new = dns.rdataset.from_rdata(rds.ttl, soa.replace(serial=serial))
    zone.replace_rdataset(origin, new)
    node = zone.nodes[origin]
    node.rdatasets.sort(key=lambda r: r.rdtype != dns.rdatatype.SOA)  # the SOA line first, as people expect
    return serial


class ZoneDomainFilter(DomainFilter):
    """Names whose closest zone file parsed (names under a broken zone file are out of scope)."""

    def __init__(self, good: Iterable[str], broken: Iterable[str] = ()) -> None:
        super().__init__(include=list(good))
        self.good = frozenset(_bare(z) for z in good)
        self._all = sorted(self.good | {_bare(z) for z in broken})

    def match(self, domain: str) -> bool:
        zone = zone_for_name(domain, self._all)
        return zone is not None and zone in self.good

    def is_configured(self) -> bool:
        return True


def _describe(ep: Endpoint) -> str:
    return f"{ep.dns_name} {ep.record_type}"


def _check_zone_name(zone: str) -> str:
    name = _bare(zone)
    try:
        dns.name.from_text(name, origin=dns.name.root)
    except dns.exception.DNSException as exc:
        raise ConfigError(f"--zonefile-create-zone: invalid zone name {zone!r}: {exc}") from None
    return name


class ZoneFileProvider(Provider):
    """Zones kept as RFC 1035 files in one directory. Thread-safe (writes are serialised)."""

    def __init__(self, directory: str, create_zones: Iterable[str] = (), default_ttl: int = DEFAULT_TTL,
                 dry_run: bool = False) -> None:
        self.directory = directory
        self.dry_run = dry_run
        # dry run: zones that --zonefile-create-zone would create are shown as empty zones, never written
        self._virtual: dict[str, ZoneFile] = {}
        self.default_ttl = default_ttl
        self._lock = threading.Lock()
        # path -> ((mtime_ns, size, inode), parsed file): records() re-parses only files that changed.
        self._cache: cachetools.LRUCache[str, tuple[tuple[int, int, int], ZoneFile]] = cachetools.LRUCache(4096)
        self.problems: list[str] = []
        # zones to create on first use: building the provider has no side effects (a configuration error
        # found later, e.g. in the registry flags, must leave the directory untouched)
        self._pending = [_check_zone_name(z) for z in create_zones if _bare(z)]
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise ConfigError(f"--zonefile-dir: {directory!r} is not a directory")
        if not self._pending and not os.path.isdir(directory):
            raise ConfigError(f"--zonefile-dir: {directory!r} is not a directory")

    def _ensure_zones(self) -> None:
        """Create the `--zonefile-create-zone` zones (once, on first use)."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        if not self.dry_run:
            os.makedirs(self.directory, exist_ok=True)
        for zone in pending:
            self.create_zone(zone)

    # -- discovery ------------------------------------------------------------------------------------------
    def _virtual_zone(self, name: str) -> ZoneFile:
        path = os.path.join(self.directory, f"{name}.zone")
        zone = dns.zone.from_text(new_zone_text(name), origin=_abs_name(name), relativize=False, check_origin=False)
        return ZoneFile(path, name, zone=zone)

    def create_zone(self, zone: str) -> bool:
        """Write `<zone>.zone` (SOA + NS) unless some file already holds the zone; True when written.
        In dry-run mode nothing is written: the zone is shown as an empty zone instead."""
        name = _check_zone_name(zone)
        with self._lock:
            files = self._scan()
            if any(zf.origin == name for zf in files):
                return False
            if self.dry_run:
                self._virtual[name] = self._virtual_zone(name)
                log.info("Dry run: zone file not created", zone=name)
                return False
            path = os.path.join(self.directory, f"{name}.zone")
            if os.path.exists(path):  # exists but holds another $ORIGIN: leave it alone
                raise ConfigError(f"--zonefile-create-zone: {path} exists but does not hold zone {name}")
            atomic_write(path, new_zone_text(name))
            log.info("Created zone file", zone=name, path=path)
            return True

    def _load(self, path: str) -> ZoneFile:
        try:
            st = os.stat(path)
        except OSError as exc:
            return ZoneFile(path, "", error=f"{path}: {exc}")
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = self._cache.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        zf = parse_zone_file(path)
        self._cache[path] = (stamp, zf)
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
            if zf.zone is not None and zf.origin in seen:
                zf = ZoneFile(path, zf.origin, error=f"{path}: zone {zf.origin} is already held by {seen[zf.origin]}")
            if zf.zone is not None:
                seen[zf.origin] = path
            out.append(zf)
        out.extend(zf for origin, zf in sorted(self._virtual.items()) if origin not in seen)
        return out

    def _report(self, files: Sequence[ZoneFile]) -> None:
        """Log each problem once, when it first appears (a sync reads the directory several times)."""
        problems = [zf.error for zf in files if zf.error]
        for problem in problems:
            if problem not in self.problems:
                log.error("Zone file cannot be used; it is left untouched and its zone skipped", problem=problem)
        self.problems = problems

    def zone_files(self) -> list[ZoneFile]:
        """The zone files as they are now (broken ones have `.error` set and are logged)."""
        self._ensure_zones()
        with self._lock:
            files = self._scan()
        self._report(files)
        return files

    def zones(self) -> Sequence[str]:
        return sorted(zf.origin for zf in self.zone_files() if zf.zone is not None)

    def get_domain_filter(self) -> DomainFilter:
        files = self.zone_files()
        return ZoneDomainFilter([zf.origin for zf in files if zf.zone is not None],
                                [zf.origin for zf in files if zf.zone is None and zf.origin])

    # -- reading --------------------------------------------------------------------------------------------
    def records(self) -> list[Endpoint]:
        out: list[Endpoint] = []
        for zf in self.zone_files():
            if zf.zone is not None:
                out.extend(zone_endpoints(zf.zone))
        return out

    def adjust_endpoints(self, endpoints: list[Endpoint]) -> list[Endpoint]:
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
            files = [parse_zone_file(zf.path) for zf in self._scan()]
            good = {zf.origin: zf for zf in files if zf.zone is not None}
            plan = _route(changes, list(good))
            for origin in sorted(plan):
                zone = good[origin].zone
                assert zone is not None
                _validate_and_apply(zone, plan[origin], self.default_ttl, good[origin].path)
            for origin in sorted(plan):
                zf = good[origin]
                assert zf.zone is not None
                serial = bump_serial(zf.zone)
                atomic_write(zf.path, zone_to_text(zf.zone))
                self._cache.pop(zf.path, None)
                zc = plan[origin]
                log.info("Zone file written", zone=origin, path=zf.path, serial=serial, create=len(zc.create),
                         update=len(zc.update_new), delete=len(zc.delete))


def zone_endpoints(zone: dns.zone.Zone) -> list[Endpoint]:
    """Every RRset of a parsed zone except its SOA, as endpoints."""
    out: list[Endpoint] = []
    for name, node in sorted(zone.nodes.items()):
        dns_name = _name_text(name)
        for rds in node.rdatasets:
            if rds.rdtype == dns.rdatatype.SOA or rds.rdclass != _IN:
                continue
            rtype = dns.rdatatype.to_text(rds.rdtype)
            out.append(Endpoint(dns_name=dns_name, record_type=rtype,
                                targets=Targets(rdata_to_target(rtype, r) for r in rds), record_ttl=int(rds.ttl)))
    return out


@dataclass
class _ZoneChanges:
    create: list[Endpoint]
    update_new: list[Endpoint]
    update_old: list[Endpoint]
    delete: list[Endpoint]


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


def _rdataset(ep: Endpoint, ttl: int) -> dns.rdataset.Rdataset:
    try:
        rdatas = [target_to_rdata(ep.record_type, t) for t in ep.targets]
    except ValueError as exc:
        raise ProviderError(f"{_describe(ep)}: {exc}") from None
    if not rdatas:
        raise ProviderError(f"{_describe(ep)}: no targets")
    return dns.rdataset.from_rdata_list(ep.record_ttl or ttl, rdatas)


def _validate_and_apply(zone: dns.zone.Zone, zc: _ZoneChanges, default_ttl: int, path: str) -> None:
    """Check the zone's part of the batch (inmemory rules), then apply it to the in-memory zone."""

    def stored(ep: Endpoint) -> dns.rdataset.Rdataset | None:
        return zone.get_rdataset(_abs_name(ep.dns_name), dns.rdatatype.from_text(ep.record_type))

    def first_target_differs(rds: dns.rdataset.Rdataset, ep: Endpoint) -> bool:
        if not ep.targets:
            return False
        have = {rdata_to_target(ep.record_type, r).lower() for r in rds}
        try:
            return canonical_target(ep.record_type, ep.targets[0]).lower() not in have
        except ValueError:
            return True

    mesh: set[Key] = set()

    def once(ep: Endpoint) -> None:
        key = (_bare(ep.dns_name), ep.record_type)
        if key in mesh:
            raise InvalidBatchRequestError(f"{_describe(ep)} appears more than once")
        mesh.add(key)

    for ep in zc.create:
        if ep.record_type not in ZONEFILE_RECORD_TYPES:
            raise ProviderError(f"{_describe(ep)}: record type not supported by the zonefile provider")
        if stored(ep) is not None:
            raise RecordAlreadyExistsError(_describe(ep))
        once(ep)
    for ep in zc.update_new:
        if stored(ep) is None:
            raise RecordNotFoundError(_describe(ep))
        once(ep)
    for ep in zc.update_old:
        rds = stored(ep)
        if rds is None or first_target_differs(rds, ep):
            raise RecordNotFoundError(_describe(ep))
    for ep in zc.delete:
        rds = stored(ep)
        if rds is None or first_target_differs(rds, ep):
            raise RecordNotFoundError(_describe(ep))
        once(ep)

    for ep in zc.delete:
        zone.delete_rdataset(_abs_name(ep.dns_name), dns.rdatatype.from_text(ep.record_type))
    for ep in [*zc.update_new, *zc.create]:
        name = _abs_name(ep.dns_name)
        node = zone.get_node(name)
        if node is not None:
            types = {dns.rdatatype.to_text(r.rdtype) for r in node.rdatasets} - {ep.record_type}
            if ep.record_type == "CNAME" and types:
                raise ProviderError(f"{path}: cannot add {_describe(ep)}: the name also holds "
                                    f"{', '.join(sorted(types))} (a CNAME must be alone)")
            if "CNAME" in types:
                raise ProviderError(f"{path}: cannot add {_describe(ep)}: the name holds a CNAME")
        zone.replace_rdataset(name, _rdataset(ep, default_ttl))


def build_zonefile(cfg: argparse.Namespace) -> ZoneFileProvider:
    """PROVIDER_BUILDERS["zonefile"]: `--zonefile-dir`, `--zonefile-create-zone`."""
    directory = getattr(cfg, "zonefile_dir", "") or ""
    if not directory:
        raise ConfigError("--zonefile-dir must be set for --provider=zonefile")
    return ZoneFileProvider(directory, create_zones=list(getattr(cfg, "zonefile_create_zone", None) or []),
                            dry_run=bool(getattr(cfg, "dry_run", False)))
