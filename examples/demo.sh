#!/usr/bin/env bash
# The embedded demo (`make run`, or `bash examples/demo.sh <python>`): the Kubernetes manifests in
# examples/manifests are synced into an RFC 1035 zone file in .demo/zones with the TXT ownership registry.
# 1. first sync: prints the plan and applies it; 2. prints the zone file; 3. second sync: nothing to do.
# Every run starts from an empty .demo/zones, so the output is the same each time.
set -euo pipefail

PY="${1:-python3}"
cd "$(dirname "$0")/.."
ZONES=.demo/zones
ZONE_FILE="$ZONES/example.org.zone"

rm -rf "$ZONES"
mkdir -p "$ZONES"

external_dns() {
  # Logs go to stderr (logfmt); show them without the start-up config line and the timestamps.
  "$PY" -m external_dns --once \
    --source=manifest --manifest-dir=examples/manifests \
    --provider=zonefile --zonefile-dir="$ZONES" --zonefile-create-zone=example.org \
    --policy=sync --txt-owner-id=demo "$@" 2>&1 | grep -Ev ' msg="?config"?( |$)' | sed -E 's/^time="[^"]*" //'
}

echo "=== 1. first sync: manifests in examples/manifests -> $ZONE_FILE"
external_dns

echo
echo "=== 2. the zone file ($ZONE_FILE)"
cat "$ZONE_FILE"

echo
echo "=== 3. second sync: nothing changed, so nothing is written"
before=$(cksum < "$ZONE_FILE")
external_dns
after=$(cksum < "$ZONE_FILE")
if [ "$before" = "$after" ]; then
  echo "zone file unchanged (same content, same SOA serial)"
else
  echo "ERROR: the second sync changed the zone file" >&2
  exit 1
fi
