"""The zonefile provider (`ZoneFileProvider`): the package docstring says what it does. This module holds the
directory scan, the snapshots of the files read, the kept by-name views and the write of a batch under the
zone files' locks.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Sequence

import structlog

from external_dns.endpoint.domain_filter import DomainFilter
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.zones import normalize_zone
from external_dns.errors import ConfigError
from external_dns.plan.changes import Changes
from external_dns.providers.errors import ProviderError, SoftError
from external_dns.providers.provider import Provider
from external_dns.providers.snapshot import ZoneSnapshot as ByNameSnapshot
from external_dns.providers.zonefile.apply import ZoneChanges, describe, route_changes, validate_and_apply
from external_dns.providers.zonefile.domain_filter import ZoneDomainFilter
from external_dns.providers.zonefile.files import (
    DEFAULT_TTL,
    ZoneFile,
    ZoneFileChanged,
    atomic_write,
    bump_serial,
    new_zone_text,
    parse_zone_file,
    stamp_of,
    unchanged,
    zone_file_lock,
    zone_from_filename,
    zone_to_text,
)
from external_dns.providers.zonefile.targets import ZONEFILE_RECORD_TYPES, canonical_target
from external_dns.providers.zonefile.view import ZoneView
from external_dns.providers.zonetext import ZoneData, read_zone_text

log = structlog.get_logger(__name__)

OWN_WRITES_KEPT = 1024  # own writes remembered for by-name snapshots (further behind: a full diff)
OWN_WRITE_NAMES_KEPT = 10_000  # the names of a bigger own write are not kept (its followers diff the zone)
WRITE_ATTEMPTS = 3  # a zone file that keeps changing under a write is left as it is after this many tries


def _not_txt(endpoints: Sequence[Endpoint]) -> int:
    return sum(1 for ep in endpoints if ep.record_type != "TXT")


def _refuse_broken(files: Sequence[ZoneFile], zone: str | None = None) -> None:
    """ProviderError naming the files (of `zone`, or all) that cannot be used: a zone read in part must
    never look empty or complete to the plan."""
    broken = [zf.error for zf in files if zf.error and (zone is None or zf.origin in (zone, ""))]
    if broken:
        raise ProviderError(f"{len(broken)} zone file(s) cannot be used (left untouched; nothing is synced "
                            f"from partial input): " + "; ".join(broken[:5]))


def _check_zone_name(zone: str) -> str:
    import dns.exception
    import dns.name

    name = normalize_zone(zone)
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

    # Every apply_changes rewrites each zone file it touches and bumps its serial: a run hands it a zone's
    # whole plan (one write, one serial per zone), whatever --apply-batch-size says.
    writes_whole_zones = True

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
        self._pending = [_check_zone_name(z) for z in create_zones if normalize_zone(z)]
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
        """The zone of `path`: the snapshot while the file is unchanged (its key, and its bytes while the key
        cannot tell: files.unchanged), else a fresh read."""
        hit = self._snapshots.get(path)
        try:
            if hit is not None and (unchanged(path, hit) if hit.data is not None else
                                    stamp_of(os.stat(path)) == hit.stamp):  # a broken file: by its key
                return hit
        except OSError as exc:
            return ZoneFile(path, "", error=f"{path}: {exc}")
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
                if os.path.islink(path):  # a zone file's link that leads nowhere: its zone cannot be read
                    out.append(ZoneFile(path, zone_from_filename(filename) or "",
                                        error=f"{path}: a symlink to {os.readlink(path)!r}, which is not a file"))
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
        name = normalize_zone(zone)
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
        name = normalize_zone(zone)
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
                log.warning("Skipping endpoint: zone files have no set identifiers", endpoint=describe(ep),
                            set_identifier=ep.set_identifier)
                continue
            if ep.record_type not in ZONEFILE_RECORD_TYPES:
                log.warning("Skipping endpoint: record type not supported by the zonefile provider",
                            endpoint=describe(ep), supported=",".join(ZONEFILE_RECORD_TYPES))
                continue
            try:
                targets = [canonical_target(ep.record_type, t) for t in ep.targets]
            except ValueError as exc:
                log.warning("Skipping endpoint with an invalid target", endpoint=describe(ep), error=str(exc))
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
            plan = route_changes(changes, list(good))
            with contextlib.ExitStack() as locks:
                for origin in sorted(plan):  # one order for every process: no lock-order deadlock
                    locks.enter_context(zone_file_lock(good[origin].path))
                updated = {origin: self._applied(good[origin], plan[origin]) for origin in sorted(plan)}
                for origin in sorted(updated):
                    zf, data = updated[origin]
                    for _attempt in range(WRITE_ATTEMPTS):
                        assert data.soa is not None
                        serial = bump_serial(data.soa)
                        try:  # a writer that does not take the lock (a person, another tool) may have been faster
                            written = atomic_write(zf.path, zone_to_text(data), expect=zf)
                            break
                        except ZoneFileChanged:
                            log.warning("Zone file changed while being written; reading it again", path=zf.path)
                            zf, data = self._applied(zf, plan[origin])
                    else:
                        raise SoftError(f"{zf.path} changed while being written, {WRITE_ATTEMPTS} times: not "
                                        "written (nothing of its hand edits is lost); retried at the next sync")
                    written = ZoneFile(zf.path, origin, data=data, stamp=written.stamp, digest=written.digest,
                                       checked_ns=written.checked_ns)
                    self._snapshots[zf.path] = written
                    changed = plan[origin].all()
                    # a write of many names is diffed whole when a view follows it (as cheap as the write, and
                    # the names are not held: 20 MiB for a start-up write of 200k record sets)
                    self._own_writes[written.ident] = (zf.ident, frozenset(normalize_zone(ep.dns_name) for ep in changed)
                                                       if len(changed) <= OWN_WRITE_NAMES_KEPT else None)
                    while len(self._own_writes) > OWN_WRITES_KEPT:
                        del self._own_writes[next(iter(self._own_writes))]
                    zc = plan[origin]
                    # the planned records; the TXT record sets written with them (ownership records) apart
                    counts = {k: _not_txt(eps) for k, eps in (("create", zc.create), ("update", zc.update_new),
                                                             ("delete", zc.delete))}
                    log.info("Zone file written", zone=origin, path=zf.path, serial=serial, **counts,
                             txt=len(zc.create) + len(zc.update_new) + len(zc.delete) - sum(counts.values()))

    def _applied(self, zf: ZoneFile, zc: ZoneChanges) -> tuple[ZoneFile, ZoneData]:
        """Under the zone's lock: the zone as it is on disk now, and a copy of it with `zc` applied."""
        fresh = self._reload_locked(zf)
        assert fresh.data is not None
        data = fresh.data.copy()
        validate_and_apply(data, zc, self.default_ttl, fresh.path)
        return fresh, data

    def _reload_locked(self, zf: ZoneFile) -> ZoneFile:
        """Under the zone's lock: the zone as it is on disk now (another process may have written it)."""
        fresh = self._load(zf.path)
        if fresh.data is None or fresh.origin != zf.origin:
            raise SoftError(f"{zf.path}: the zone file changed while we were writing it and no longer holds "
                            f"zone {zf.origin}: {fresh.error or 'origin ' + fresh.origin}")
        return fresh
