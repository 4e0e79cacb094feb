"""Shared by the safety tests (plan/safety.py verdicts, the controller's gate and --once): records,
churn, the unsafe-plans metric and a parsed command line."""

from __future__ import annotations

from collections.abc import Mapping

from prometheus_client import REGISTRY

from external_dns.cmd.config import Config, parse_config, validate
from external_dns.endpoint.endpoint import Endpoint
from external_dns.endpoint.targets import Targets
from external_dns.plan.changes import Changes

OWNER = "safety-test"


def a(name: str, ip: str = "10.0.0.1", owner: str | None = OWNER, ttl: int = 300) -> Endpoint:
    e = Endpoint(dns_name=name, record_type="A", targets=Targets([ip]), record_ttl=ttl)
    if owner is not None:
        e.labels["owner"] = owner
    return e


def existing(zone: str, n: int, owner: str | None = OWNER) -> list[Endpoint]:
    return [a(f"h{i:03d}.{zone}", f"10.0.0.{i % 250 + 1}", owner) for i in range(n)]


def churn(zone: str, updates: int = 0, deletes: int = 0, creates: int = 0) -> Changes:
    c = Changes()
    for i in range(updates):
        old = a(f"h{i:03d}.{zone}")
        c.update_old.append(old)
        c.update_new.append(a(f"h{i:03d}.{zone}", "192.0.2.1"))
    for i in range(deletes):
        c.delete.append(a(f"d{i:03d}.{zone}"))
    for i in range(creates):
        c.create.append(a(f"new{i:03d}.{zone}"))
    return c


def unsafe_count(zone: str, reason: str) -> float:
    return REGISTRY.get_sample_value("external_dns_controller_unsafe_plans_total",
                                     {"zone": zone, "reason": reason}) or 0.0


def ns(name: str, *servers: str) -> Endpoint:
    return Endpoint(dns_name=name, record_type="NS", targets=Targets(servers or ["ns1.example.net"]))


def parse(*args: str, environ: Mapping[str, str] | None = None) -> Config:
    cfg = parse_config(["--source=manifest", "--manifest-dir=/nonexistent", "--provider=inmemory", "--policy=sync", *args],
                       environ or {})
    validate(cfg)
    return cfg
