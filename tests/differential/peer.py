"""The Go ExternalDNS the differential tests and bench/vs_go.py run beside this project: v0.22.0, built from its
Go module by tests/realkube/gobuild.py (static, version stamped, cached per machine) through our wrapper main
(wrappers/external-dns: what the module's own main does).

The module proxy here refuses two versions v0.22.0 requires (403 "This module version is not available"); the
wrapper's go.mod pins them to versions it serves (`REPLACES`, below). Only the OpenShift Route source and the
Exoscale provider use those modules; neither is used here.

`python3 -m tests.differential.peer` builds it (what `make go-peers` and `.ci/run` do) and prints its path.
Tests never build it themselves (a cold build takes minutes): `go_external_dns()` returns the cached binary or
why there is none.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.realkube.gobuild import GoBuildError, GoMain, GoModule, ProxyError, binary_path, build, is_built

VERSION = "v0.22.0"
REPLACES = {
    # v0.22.0 requires af5c920502e2 (refused); the openshift/client-go that v0.22.0 requires was itself built
    # against 8f52beb625b5, which is served.
    "github.com/openshift/api": "v0.0.0-20260810132456-8f52beb625b5",
    # v0.22.0 requires v3.1.44 (refused); v3.1.50 is the next served release of the same major version.
    "github.com/exoscale/egoscale/v3": "v3.1.50",
}


def _ldflags(upstream: GoModule) -> list[str]:
    return [f"-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version={upstream.version}"]


EXTERNAL_DNS = GoMain(name="external-dns", module="sigs.k8s.io/external-dns", version=VERSION,
                      wrapper=Path(__file__).resolve().parent / "wrappers" / "external-dns", ldflags=_ldflags,
                      replaces=lambda _upstream: dict(REPLACES))


def go_external_dns() -> tuple[Path | None, str]:
    """(the binary, "") once built on this machine, else (None, the reason)."""
    if is_built(EXTERNAL_DNS):
        return binary_path(EXTERNAL_DNS), ""
    return None, (f"the Go ExternalDNS {VERSION} is not built: run `make go-peers` "
                  f"(builds into {binary_path(EXTERNAL_DNS).parent})")


def main() -> int:
    try:
        print(build(EXTERNAL_DNS))
    except ProxyError as exc:
        print(f"gobuild: {exc}", file=sys.stderr)
        return 2
    except GoBuildError as exc:
        print(f"gobuild: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
