"""Benchmark: Plan.calculate over N desired + N current endpoints with 10 % of them changed.

Prints a table (N = 1k, 10k, 100k; best of 3). Changed rows alternate between a target change and a TTL
change; the current records carry the owner label and the plan runs with an owner ID and the sync policy,
as the controller does with the TXT registry. The last column adds the domain filter the controller builds
(an unset CLI filter AND a provider filter listing three zones), so every record is matched.
"""

from __future__ import annotations

import gc
import time

from external_dns.endpoint import DomainFilter, Endpoint, MatchAllDomainFilters, Targets
from external_dns.plan import POLICIES, Plan

SIZES = (1_000, 10_000, 100_000)
REPEATS = 3


def build(n: int) -> tuple[list[Endpoint], list[Endpoint]]:
    current: list[Endpoint] = []
    desired: list[Endpoint] = []
    for i in range(n):
        name = f"app-{i}.team-{i % 97}.example.com"
        ip = f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"
        current.append(
            Endpoint(name, "A", Targets([ip]), 300, labels={"owner": "bench", "resource": f"service/ns/app-{i}"})
        )
        target, ttl = ip, 300
        if i % 10 == 0:
            if i % 20 == 0:
                target = f"172.16.{(i >> 8) & 255}.{i & 255}"
            else:
                ttl = 600
        desired.append(Endpoint(name, "A", Targets([target]), ttl, labels={"resource": f"service/ns/app-{i}"}))
    return current, desired


def run(n: int, domain_filter: MatchAllDomainFilters | None = None) -> tuple[float, int]:
    current, desired = build(n)
    best = float("inf")
    updates = 0
    for _ in range(REPEATS):
        gc.collect()
        start = time.perf_counter()
        plan = Plan(current, desired, [POLICIES["sync"]], domain_filter=domain_filter, owner_id="bench")
        result = plan.calculate()
        best = min(best, time.perf_counter() - start)
        updates = len(result.changes.update_new)
    return best, updates


def main() -> None:
    zones = MatchAllDomainFilters([DomainFilter(), DomainFilter(["example.com", "example.org", "example.net"])])
    print(
        f"| {'N (desired = current)':>22} | {'changed':>8} | {'calculate (best of 3)':>22} | {'per row':>9} "
        f"| {'with domain filter':>19} |"
    )
    print(f"|{'-' * 24}|{'-' * 10}|{'-' * 24}|{'-' * 11}|{'-' * 21}|")
    for n in SIZES:
        seconds, updates = run(n)
        filtered, _ = run(n, zones)
        print(
            f"| {n:>22,} | {updates:>8,} | {seconds * 1000:>19.1f} ms | {seconds / n * 1e6:>6.2f} µs "
            f"| {filtered * 1000:>16.1f} ms |"
        )


if __name__ == "__main__":
    main()
