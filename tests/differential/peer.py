"""The Go ExternalDNS the differential tests and bench/vs_go.py run beside this project: v0.22.0, built from its
Go module by tests/servers/gobuild.py (static, version stamped, cached per machine).

`python3 -m tests.differential.peer` builds it (what `make go-peers` and `.ci/run` do) and prints its path.
Tests never build it themselves (a cold build takes minutes): `go_external_dns()` returns the cached binary or
why there is none.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.servers.gobuild import EXTERNAL_DNS, GoBuildError, binary_path, build, is_built


def go_external_dns() -> tuple[Path | None, str]:
    """(the binary, "") once built on this machine, else (None, the reason)."""
    if is_built(EXTERNAL_DNS):
        return binary_path(EXTERNAL_DNS), ""
    return None, (f"the Go ExternalDNS {EXTERNAL_DNS.version} is not built: run `make go-peers` "
                  f"(builds into {binary_path(EXTERNAL_DNS).parent})")


def main() -> int:
    try:
        print(build(EXTERNAL_DNS))
    except GoBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
