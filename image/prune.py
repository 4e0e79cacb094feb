"""Data the dependencies ship that external-dns never loads, left out of the image.

- botocore carries the API models of every AWS service (449 of them, 18.5 MB): external-dns talks to
  Route53 and DynamoDB (the registry), and botocore itself to STS, SSO, SSO-OIDC and Sign-In for credentials.
- google-api-python-client carries the discovery documents of every Google API (611 of them, 110 MB): the
  google provider builds Cloud DNS v1 from its document (`discovery.build("dns", "v1",
  static_discovery=True)`).

The other entries go, and their lines leave the distribution's RECORD, so the installed metadata stays true.
tests/image/test_prune.py fails when the code names an AWS service or a Google API that is not kept here. The
Dockerfile runs this too (`python3 image/prune.py SITE_PACKAGES`).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Prune:
    distribution: str
    directory: str  # under site-packages
    keep: frozenset[str]  # entries of `directory` kept
    dirs: bool  # True: the sub-directories not kept go (files stay); False: the files not kept go


BOTOCORE_SERVICES = frozenset({
    "route53", "dynamodb",  # the aws provider and the DynamoDB registry
    "sts", "sso", "sso-oidc", "signin",  # botocore's credential providers (assume role, web identity, SSO, login)
    "servicediscovery",  # upstream's aws-sd provider: kept so the image serves it when it lands
})
GOOGLE_DISCOVERY_DOCUMENTS = frozenset({"dns.v1.json"})
PRUNES = (
    Prune("botocore", "botocore/data", BOTOCORE_SERVICES, dirs=True),
    Prune("google-api-python-client", "googleapiclient/discovery_cache/documents", GOOGLE_DISCOVERY_DOCUMENTS,
          dirs=False),
)


def _record(site: Path, distribution: str) -> Path:
    found = sorted(site.glob(f"{distribution.replace('-', '_')}-*.dist-info/RECORD"))
    if len(found) != 1:
        raise RuntimeError(f"{distribution}: expected one installed RECORD in {site}, found {found}")
    return found[0]


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def prune(site: Path) -> dict[str, int]:
    """Applies PRUNES under site-packages (those whose directory is installed); bytes removed by distribution."""
    removed: dict[str, int] = {}
    for rule in PRUNES:
        directory = site / rule.directory
        if not directory.is_dir():
            continue
        entries = sorted(directory.iterdir())
        missing = rule.keep - {p.name for p in entries}
        if missing:
            raise RuntimeError(f"{rule.distribution} has no {sorted(missing)} in {rule.directory}: update image/prune.py")
        gone = [p for p in entries if p.is_dir() == rule.dirs and p.name not in rule.keep]
        removed[rule.distribution] = sum(_size(p) for p in gone)
        for path in gone:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        names = {f"{rule.directory}/{p.name}" for p in gone}
        record = _record(site, rule.distribution)
        lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines
                if line.split(",", 1)[0] not in names and not line.startswith(tuple(f"{n}/" for n in names))]
        record.write_text("".join(kept), encoding="utf-8")
    return removed


if __name__ == "__main__":
    print(prune(Path(sys.argv[1])))
