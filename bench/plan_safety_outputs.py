"""Benchmark: the work between `plan.calculate` and `registry.apply_changes` for one zone of N owned records
with 10 % churn (5 % updates, 3 % deletes, 2 % creates): the safety check (denominator count + thresholds),
each plan output (log lines, Markdown, HTML, JSON) and the plan file (state checksum over the zone's records
and their ownership TXT, plus the plan checksum). Best of 3, in milliseconds; N = 1k, 10k, 100k.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from external_dns.endpoint import Endpoint, Targets
from external_dns.plan import Changes
from external_dns.plan.output import ZonePlan, render
from external_dns.plan.planfile import PlanFile, PlannedZone, state_checksum
from external_dns.plan.safety import SafetyConfig, check_zone

SIZES = (1_000, 10_000, 100_000)
REPEATS = 3


def build(n: int) -> tuple[list[Endpoint], Changes]:
    current: list[Endpoint] = []
    changes = Changes()
    for i in range(n):
        ep = Endpoint(f"app-{i}.example.com", "A", Targets([f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"]), 300,
                      labels={"owner": "bench", "resource": f"service/ns/app-{i}"})
        current.append(ep)
        current.append(Endpoint(f"a-app-{i}.example.com", "TXT",
                                Targets(['"heritage=external-dns,external-dns/owner=bench"']), 300))
        if i % 20 == 0:
            new = ep.copy()
            new.targets = Targets([f"172.16.{(i >> 8) & 255}.{i & 255}"])
            changes.update_old.append(ep)
            changes.update_new.append(new)
        elif i % 33 == 1:
            changes.delete.append(ep)
    for i in range(n // 50):
        changes.create.append(Endpoint(f"new-{i}.example.com", "A", Targets(["192.0.2.1"]), 300))
    return current, changes


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1000.0


def _plan_file(n: int, current: list[Endpoint], changes: Changes) -> str:
    pf = PlanFile(owner_id="bench", provider="bench", registry="txt")
    pf.zones["example.com"] = PlannedZone(changes, n, state_checksum(current))
    return pf.dumps()


def main() -> None:
    cols = ("N records", "changes", "safety", "log", "markdown", "html", "json", "plan file")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---:|" * len(cols))
    config = SafetyConfig()
    for n in SIZES:
        current, changes = build(n)
        check = partial(check_zone, config, "example.com", changes, current, owner_id="bench",
                        managed_record_types=("A", "AAAA", "CNAME"))
        plans = [ZonePlan("example.com", changes, existing=check().existing)]
        figures = [best(check)]
        figures += [best(partial(render, fmt, plans)) for fmt in ("log", "markdown", "html", "json")]
        figures.append(best(partial(_plan_file, n, current, changes)))
        count = len(changes.create) + len(changes.update_new) + len(changes.delete)
        print(f"| {n:,} | {count:,} | " + " | ".join(f"{f:.1f} ms" for f in figures) + " |", flush=True)


if __name__ == "__main__":
    main()
