"""`external-dns rbac SOURCE... [--leader-election] [--service-type-filter T] [--cluster-role NAME]`: print
the RBAC rules the named sources need (sources/rbac.py), as YAML, for clusters that do not use the chart."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import yaml

from external_dns.sources.rbac import SOURCE_RULES, cluster_role, rules_for_sources


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="external-dns rbac",
                                     description="Print the RBAC rules the named sources need, as YAML.")
    parser.add_argument("sources", nargs="+", help=f"source names ({', '.join(sorted(SOURCE_RULES))})")
    parser.add_argument("--leader-election", action="store_true", help="add the Lease rule of --leader-elect")
    parser.add_argument("--gateway-listener-sets", action="store_true",
                        help="add the ListenerSet rule of --gateway-listener-sets (gateway sources)")
    parser.add_argument("--service-type-filter", action="append", default=[],
                        help="narrow the service source as --service-type-filter does (repeatable)")
    parser.add_argument("--cluster-role", default="", help="print a whole ClusterRole with this name")
    args = parser.parse_args(argv)
    try:
        rules = rules_for_sources(args.sources, service_types=args.service_type_filter,
                                  leader_election=args.leader_election, listener_sets=args.gateway_listener_sets)
    except ValueError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    doc: Any = cluster_role(args.cluster_role, rules) if args.cluster_role else rules
    sys.stdout.write(yaml.safe_dump(doc, sort_keys=False, default_flow_style=None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
