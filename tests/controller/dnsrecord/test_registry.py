"""The DNSRecord controller's reads through `SubtreeView` (controller/dnsrecord/registry.py): the names under
rootHost from the provider's zone snapshot plan exactly what a full provider read plans, for random zones with
several owners, wildcard names, names outside rootHost and outside records."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.controller.dnsrecord.registry import MANAGED_RECORD_TYPES, record_registry, view_registry
from external_dns.endpoint.domain_filter import DomainFilter, MatchAllDomainFilters
from external_dns.endpoint.endpoint import Endpoint
from external_dns.plan import Plan
from external_dns.plan.changes import Changes
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry.txt import TXTRegistry
from tests.helpers import endpoints

ROOT = "app.example.com"
NAMES = (ROOT, f"www.{ROOT}", f"*.{ROOT}", "other.example.com", "app2.example.com", f"deep.x.{ROOT}")


def ep(name: str, rtype: str, target: str) -> Endpoint:
    return endpoints.ep(name, rtype, target, ttl=300)


def plan_of(registry: TXTRegistry, desired: list[Endpoint], owner: str) -> list[str]:
    changes = Plan(registry.records(), [e.copy() for e in desired], policies=["sync"],
                   domain_filter=MatchAllDomainFilters([DomainFilter([ROOT]), registry.get_domain_filter()]),
                   managed_records=MANAGED_RECORD_TYPES, owner_id=owner).calculate().changes
    return sorted(f"{kind} {e.dns_name} {e.record_type} {list(e.targets)} {sorted(e.labels.items())}"
                  for kind, eps in (("c", changes.create), ("o", changes.update_old), ("n", changes.update_new),
                                    ("d", changes.delete)) for e in eps)


written = st.lists(st.tuples(st.sampled_from(("me", "you", None)), st.sampled_from(NAMES),
                             st.sampled_from(("A", "CNAME", "TXT")), st.integers(1, 5)), max_size=12)
wanted = st.lists(st.tuples(st.sampled_from((*NAMES[:3], f"deep.x.{ROOT}")), st.integers(1, 5)), max_size=4)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written, wanted)
def test_view_plans_what_a_full_read_plans(records: list[tuple[str | None, str, str, int]],
                                           desired: list[tuple[str, int]]) -> None:
    provider = InMemoryProvider(["example.com"])
    seen: set[tuple[str, str]] = set()
    for owner, name, rtype, n in records:
        if (name, rtype) in seen or (name, "CNAME") in seen or (rtype == "CNAME" and any(k[0] == name for k in seen)):
            continue
        seen.add((name, rtype))
        target = f"10.0.0.{n}" if rtype == "A" else (f"t{n}.example.net" if rtype == "CNAME" else f'"v{n}"')
        record = ep(name, rtype, target)
        try:
            if owner is None:
                provider.apply_changes(Changes(create=[record]))
            else:
                record_registry(provider, owner).apply_changes(Changes(create=[record]))
        except Exception:
            continue
    want = [ep(name, "A", f"10.1.0.{n}") for name, n in dict(desired).items()]
    full = plan_of(record_registry(provider, "me"), want, "me")
    view = plan_of(view_registry(provider, "me", "example.com", ROOT, [e.dns_name for e in want]), want, "me")
    assert view == full
