"""`python -m bench`: runs every benchmark module listed in BENCHES, each printing its table."""

from __future__ import annotations

import importlib
import sys

BENCHES: tuple[str, ...] = (
    "cli_vs_octodns",
    "provider_sync_bind",
    "plan_calculate",
    "informer_list",
    "workqueue_throughput",
    "txt_registry",
    "kubeapi_server",
    "sources_objects",
    "provider_sync_route53",
    "provider_sync_pdns",
    "event_latency",
    "plan_safety_outputs",
    "informer_memory",
    "dnsrecord_lifecycle",
    "gateway_node_pod",
    "template_render",
    "cloud_api_calls",
    "vs_go",
)


def main(argv: list[str]) -> int:
    selected = [b for b in BENCHES if not argv or any(a in b for a in argv)]
    for name in selected:
        print(f"\n## {name}\n", flush=True)
        importlib.import_module(f"bench.{name}").main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
