"""Data a dependency ships that external-dns never loads, left out of the image.

botocore carries the API models of every AWS service (449 of them, 14.8 MB of the image's 61 MB compressed);
external-dns talks to Route53 and DynamoDB (the registry), and botocore itself to STS, SSO, SSO-OIDC and
Sign-In for credentials. The other models go, and their lines leave the distribution's RECORD, so the
installed metadata stays true. tests/image/test_prune.py fails when the project's code names an AWS service
that is not kept here. The Dockerfile runs it too (`python3 image/prune.py SITE_PACKAGES`).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Prune:
    distribution: str
    directory: str  # under site-packages; its sub-directories not in `keep` are removed
    keep: frozenset[str]


BOTOCORE_SERVICES = frozenset({
    "route53", "dynamodb",  # the aws provider and the DynamoDB registry
    "sts", "sso", "sso-oidc", "signin",  # botocore's credential providers (assume role, web identity, SSO, login)
    "servicediscovery",  # upstream's aws-sd provider: kept so the image serves it when it lands
})
PRUNES = (Prune("botocore", "botocore/data", BOTOCORE_SERVICES),)


def _record(site: Path, distribution: str) -> Path:
    found = sorted(site.glob(f"{distribution.replace('-', '_')}-*.dist-info/RECORD"))
    if len(found) != 1:
        raise RuntimeError(f"{distribution}: expected one installed RECORD in {site}, found {found}")
    return found[0]


def prune(site: Path) -> dict[str, int]:
    """Applies PRUNES under site-packages; bytes removed by distribution."""
    removed: dict[str, int] = {}
    for rule in PRUNES:
        directory = site / rule.directory
        if not directory.is_dir():
            continue
        missing = rule.keep - {p.name for p in directory.iterdir()}
        if missing:
            raise RuntimeError(f"{rule.distribution} has no {sorted(missing)} in {rule.directory}: update image/prune.py")
        gone = [p for p in sorted(directory.iterdir()) if p.is_dir() and p.name not in rule.keep]
        removed[rule.distribution] = sum(f.stat().st_size for p in gone for f in p.rglob("*") if f.is_file())
        for path in gone:
            shutil.rmtree(path)
        prefixes = tuple(f"{rule.directory}/{p.name}/" for p in gone)
        record = _record(site, rule.distribution)
        lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
        record.write_text("".join(line for line in lines if not line.startswith(prefixes)), encoding="utf-8")
    return removed


if __name__ == "__main__":  # the Dockerfile: python3 image/prune.py SITE_PACKAGES
    print(prune(Path(sys.argv[1])))
