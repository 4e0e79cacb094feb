"""The real control plane the integration tests run against: kube-apiserver and etcd, built from their
published Go modules into the user's cache (`make kube`, `python3 -m tests.realkube.build`).

kube-apiserver: our wrapper main (wrappers/kube-apiserver) requires `k8s.io/kubernetes` at the release and
points every staging module upstream requires at v0.0.0 to the published v0.<minor>.<patch> (read from the
release's own go.mod, so a version bump needs no list edits). etcd: our wrapper main (wrappers/etcd) requires
`go.etcd.io/etcd/server/v3`. Gateway API's CRDs come in its Go module. Versions and build date are stamped with -X, as upstream's release builds do.

Exit status 0 with the binaries' paths on stdout; 2 with the reason on stderr when the Go module proxy refuses a
module or cannot be reached (or go is missing), 1 when a build fails.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from tests.realkube.gobuild import GoBuildError, GoMain, GoModule, ProxyError, build, is_built, module_dir

KUBE_VERSION = "v1.36.3"
ETCD_VERSION = "v3.6.16"
# Gateway API's CRD manifests ship inside its Go module (config/crd/); the version the Go ExternalDNS v0.22.0
# builds against.
GATEWAY_API = ("sigs.k8s.io/gateway-api", "v1.6.1")
_WRAPPERS = Path(__file__).resolve().parent / "wrappers"


def _staging_replaces(upstream: GoModule) -> dict[str, str]:
    """k8s.io/kubernetes requires its staging modules at v0.0.0 (replaced by ./staging paths upstream, which a
    dependency's replace lines cannot do): each goes to the published v0.<minor>.<patch> of the release."""
    staging = "v0." + upstream.version.removeprefix("v1.")
    return {m: staging for m, v in upstream.requires().items() if m.startswith("k8s.io/") and v == "v0.0.0"}


def _kube_ldflags(upstream: GoModule) -> list[str]:
    major, minor = upstream.version.removeprefix("v").split(".")[:2]
    pkg = "k8s.io/component-base/version"
    flags = {"gitVersion": upstream.version, "gitMajor": major, "gitMinor": minor, "gitTreeState": "clean"}
    if upstream.time:
        flags["buildDate"] = upstream.time
    return [f"-X {pkg}.{k}={v}" for k, v in flags.items()]


def _etcd_ldflags(upstream: GoModule) -> list[str]:
    # etcd's version number is a constant of its api module; the build stamps only GitSHA (unknown here: the
    # module proxy serves no commit for a tag, so the tag names the source instead of "Not provided").
    return [f"-X go.etcd.io/etcd/api/v3/version.GitSHA={upstream.version}"]


KUBE_APISERVER = GoMain(name="kube-apiserver", module="k8s.io/kubernetes", version=KUBE_VERSION,
                        wrapper=_WRAPPERS / "kube-apiserver", ldflags=_kube_ldflags, replaces=_staging_replaces)
ETCD = GoMain(name="etcd", module="go.etcd.io/etcd/server/v3", version=ETCD_VERSION,
              wrapper=_WRAPPERS / "etcd", ldflags=_etcd_ldflags)
CONTROL_PLANE = (ETCD, KUBE_APISERVER)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tests.realkube.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="build nothing: exit 1 unless both are built")
    args = parser.parse_args(argv)
    if args.check:
        missing = [m.name for m in CONTROL_PLANE if not is_built(m)]
        if missing:
            print(f"not built: {', '.join(missing)} (run `make kube`)", file=sys.stderr)
        return 1 if missing else 0
    if shutil.which("go") is None:
        print("gobuild: `go` is not on PATH: the real API server is built with Go (1.26+)", file=sys.stderr)
        return 2
    try:
        for m in CONTROL_PLANE:
            print(build(m))
        print(module_dir(*GATEWAY_API))
    except ProxyError as exc:
        print(f"gobuild: {exc}", file=sys.stderr)
        return 2
    except GoBuildError as exc:
        print(f"gobuild: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
