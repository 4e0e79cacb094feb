"""Benchmark: TXTRegistry.records() (reading ownership) and apply_changes() (writing it) over N records.

Prints a table (N = 1k, 10k, 100k; best of 3) for plain and AES-encrypted ownership TXT values. The provider
is a static list (its own cost excluded): N A records plus their N ownership TXT records for `records()`;
N creates for `apply_changes()` (the provider call is a no-op). Encrypted 100k is skipped (it is linear).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable

import structlog

from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.labels import serialize_labels
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes
from external_dns.providers.provider import Provider
from external_dns.registry.txt import TXTRegistry

SIZES = (1_000, 10_000, 100_000)
REPEATS = 3
KEY = "passphrasewhichneedstobe32bytes!"


class StaticProvider(Provider):
    def __init__(self, records: list[Endpoint]) -> None:
        self._records = records

    def records(self) -> list[Endpoint]:
        return self._records

    def apply_changes(self, changes: Changes) -> None:
        return None


def build(n: int, key: bytes | None) -> list[Endpoint]:
    out: list[Endpoint] = []
    for i in range(n):
        name = f"app-{i}.team-{i % 97}.example.com"
        out.append(Endpoint(name, "A", Targets([f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"])))
        value = serialize_labels({"owner": "bench", "resource": f"service/ns/app-{i}"}, aes_key=key)
        out.append(Endpoint(f"a-{name}", "TXT", Targets([value])))
    return out


def best(fn: Callable[[], object], setup: Callable[[], None] = lambda: None) -> float:
    times = []
    for _ in range(REPEATS):
        setup()
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(n: int, enc: bool) -> tuple[float, float]:
    """(records() seconds, apply_changes(N creates) seconds), best of REPEATS."""
    records = build(n, KEY.encode() if enc else None)

    def fresh() -> TXTRegistry:
        return TXTRegistry(StaticProvider(records), owner_id="bench", txt_encrypt_enabled=enc,
                           txt_encrypt_aes_key=KEY if enc else "")

    t_read = best(fresh().records)
    creates = [Endpoint(f"new-{i}.example.com", "A", Targets(["10.0.0.1"])) for i in range(n)]
    state: dict[str, tuple[TXTRegistry, Changes]] = {}

    def setup() -> None:
        reg = fresh()
        reg.records()
        state["w"] = (reg, Changes(create=[e.copy() for e in creates]))

    def write() -> None:
        reg, changes = state["w"]
        reg.apply_changes(changes)

    return t_read, best(write, setup)


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    print("| N | mode | records() s | records/s | apply_changes(N creates) s | creates/s |")
    print("|---|---|---|---|---|---|")
    for n in SIZES:
        for mode in ("plain", "encrypted"):
            if mode == "encrypted" and n > 10_000:
                continue
            t_read, t_write = measure(n, mode == "encrypted")
            print(f"| {n:,} | {mode} | {t_read:.3f} | {n / t_read:,.0f} | {t_write:.3f} | {n / t_write:,.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
