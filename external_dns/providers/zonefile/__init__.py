"""The zone-file provider: one RFC 1035 master file per zone in a directory.

Zone discovery (`--zonefile-dir`, re-scanned on every call so files added by hand are picked up):
- a file named `<zone>.zone` or `db.<zone>` (hidden files and anything else are ignored); a symlink is
  followed (and written through), one that leads nowhere fails its zone;
- the zone is the one the file is for: an absolute `$ORIGIN` before its first record, else the name from the
  file name; a later `$ORIGIN` (a BIND-style sub-block), `$TTL` and relative names are resolved as named does;
  the zone must have an SOA record at its origin. `$GENERATE` ranges named refuses, or over MAX_GENERATE
  records in all, fail the zone (file and line) before anything expands them.
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
holds an exclusive `fcntl.flock` on a lock file beside it (`.<file>.lock` beside the file a symlink leads to,
hidden, never removed: removing it would let two writers lock different files) and re-reads the zone under the
lock when it moved, so concurrent `--once` runs with different owner IDs never lose each other's records. The
whole batch is validated first with the in-memory provider's rules and messages (`record not found`, `invalid
batch request`; a create outside every zone is an error too). A record that would join, replace or sit beside
records this owner did not write (a create where its name and type hold other values, a CNAME beside other
data, data beside a CNAME) is refused with a warning, with the changes at its name and its ownership TXT; a
create already in place is left as it is; the rest is written. Each changed zone is written with its SOA
serial bumped, atomically: a temporary file beside the file (a symlink's target) is written, fsynced and
`os.replace`d over the old one (then the directory is fsynced), so a crash leaves either the old or the new
file, never half of one; just before the rename the file must still be the version read under the lock (its
key, and its bytes within RACY_NS of its modification), else an editor that does not take the lock was faster:
the zone is read and written again (up to WRITE_ATTEMPTS times, then the run fails). Comments and
`$TTL`/`$INCLUDE` directives of a file are not preserved once we rewrite it (every record keeps its TTL
explicitly); records we do not own are kept, byte for byte in DNS terms (a TXT value over 255 octets is written
as 255-octet strings and read back as one value).

Dry run (`--dry-run`): nothing is created or written; a zone `--zonefile-create-zone` would create is shown
as an empty zone so the plan is complete.

Modules (one concept each): `targets` (endpoint targets and names in zone-file form), `files` (one zone file
on disk: found, read, locked, written atomically, its serial), `view` (the kept by-name view of a zone),
`apply` (a batch checked and applied to a zone's record sets), `domain_filter` (names whose zone file
parsed), `provider` (`ZoneFileProvider`: the directory, the snapshots, the writes under lock).
"""

from __future__ import annotations

from external_dns.providers.zonefile.domain_filter import ZoneDomainFilter
from external_dns.providers.zonefile.files import (
    DEFAULT_TTL,
    LOCK_TIMEOUT,
    MAX_GENERATE,
    MAX_ZONE_FILE_BYTES,
    PLACEHOLDER_NS,
    ZoneFile,
    ZoneFileChanged,
    atomic_write,
    bump_serial,
    lock_path,
    new_zone_text,
    parse_zone_file,
    read_with_dnspython,
    zone_data_of,
    zone_file_lock,
    zone_from_filename,
    zone_to_text,
)
from external_dns.providers.zonefile.provider import ZoneFileProvider
from external_dns.providers.zonefile.targets import (
    ZONEFILE_RECORD_TYPES,
    canonical_target,
    rdata_to_target,
    target_to_rdata,
)
from external_dns.providers.zonefile.view import ZoneView

__all__ = [
    "DEFAULT_TTL",
    "LOCK_TIMEOUT",
    "MAX_GENERATE",
    "MAX_ZONE_FILE_BYTES",
    "PLACEHOLDER_NS",
    "ZONEFILE_RECORD_TYPES",
    "ZoneDomainFilter",
    "ZoneFile",
    "ZoneFileChanged",
    "ZoneFileProvider",
    "ZoneView",
    "atomic_write",
    "bump_serial",
    "canonical_target",
    "lock_path",
    "new_zone_text",
    "parse_zone_file",
    "rdata_to_target",
    "read_with_dnspython",
    "target_to_rdata",
    "zone_data_of",
    "zone_file_lock",
    "zone_from_filename",
    "zone_to_text",
]
