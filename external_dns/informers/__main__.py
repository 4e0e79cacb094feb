"""`python -m external_dns.informers` was the informer probe; it is now `external-dns informer-probe` (a command
lives in cmd/, above the informers). The old invocation says so instead of failing with an import error."""

import sys

if __name__ == "__main__":
    print("external_dns.informers: the probe moved: run `external-dns informer-probe` (same arguments)",
          file=sys.stderr)
    raise SystemExit(2)
