"""Property: a batch (`reconcile_many(keys)`) ends where single passes of the same keys in the same order end:
the same zone contents, the same Ready condition (reason and message) and write counter on every record, the
same action per record. Random records with overlapping rootHosts (a parent and a child, equal ones), names
claimed by several owners, records already published, changed (a new generation), deleted, or new; the
provider: zone files (all-or-nothing writes) refusing every write that touches `bad.example.com` (a batch
holding such a record is split until it stands alone)."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from external_dns.controller.dnsrecord.reconcile import Reconciler
from external_dns.controller.dnsrecord.types import API_VERSION, KIND
from external_dns.plan.changes import Changes
from external_dns.providers.provider import ProviderError
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import START, a_record, reconciler, record
from tests.kubeapi.server import KubeAPIServer

ROOTS = ("app.example.com", "x.app.example.com", "www.app.example.com", "example.com", "other.example.com",
         "bad.example.com")
OWNERS = ("owner-one", "owner-two", "owner-three")
TARGETS = ("192.0.2.1", "192.0.2.2")
_namespaces = itertools.count()

spec = st.fixed_dictionaries({
    "root": st.sampled_from(ROOTS),
    "owner": st.sampled_from(OWNERS),
    "www": st.booleans(),  # also `www.<root>`
    "target": st.sampled_from(TARGETS),
    "before": st.sampled_from(["new", "published", "changed", "deleted"]),
    "target2": st.sampled_from(TARGETS),
})


class RefusingZoneFiles(ZoneFileProvider):
    def apply_changes(self, changes: Changes) -> None:
        bad = [ep.dns_name for ep in changes.all_endpoints() if ep.dns_name.endswith("bad.example.com")]
        if bad:
            raise ProviderError(f"refused: {sorted(bad)[0]}")
        super().apply_changes(changes)


def _body(name: str, namespace: str, s: dict[str, Any], target: str) -> dict[str, Any]:
    eps = [a_record(s["root"], target)] + ([a_record("www." + s["root"], target)] if s["www"] else [])
    return record(name, s["root"], eps, namespace=namespace, owner=s["owner"])


def _zone(provider: ZoneFileProvider) -> list[tuple[str, str, tuple[str, ...]]]:
    return sorted((ep.dns_name, ep.record_type, tuple(sorted(ep.targets))) for ep in provider.records()
                  if ep.record_type != "SOA")


def _statuses(kubeapi: KubeAPIServer, namespace: str) -> dict[str, tuple[Any, ...]]:
    out: dict[str, tuple[Any, ...]] = {}
    for obj in kubeapi.list(API_VERSION, KIND, namespace):
        status = obj.get("status") or {}
        ready: dict[str, Any] = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), {})
        out[obj["metadata"]["name"]] = (ready.get("reason"), ready.get("message"), status.get("writeCounter"),
                                        status.get("endpoints"))
    return out


def _side(kubeapi: KubeAPIServer, api: Any, records: list[dict[str, Any]], order: list[int],
          batch: bool) -> tuple[Any, ...]:
    namespace = f"batchprop{next(_namespaces)}"
    kubeapi.ensure_namespace(namespace)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "zones"
        directory.mkdir()
        provider = RefusingZoneFiles(str(directory), create_zones=["example.com"])
        clock = FakeClock(start=START)
        rec: Reconciler = reconciler(kubeapi, api, provider, clock)
        names = [f"r{i}" for i in range(len(records))]
        for name, s in zip(names, records, strict=True):  # the state before the batch: single passes
            if s["before"] != "new":
                kubeapi.create(_body(name, namespace, s, s["target"]))
                rec.reconcile(f"{namespace}/{name}")
        clock.step(10)
        for name in names:  # validation passes: Ready
            if kubeapi.get(API_VERSION, KIND, namespace, name) is not None:
                rec.reconcile(f"{namespace}/{name}")
        for name, s in zip(names, records, strict=True):
            if s["before"] == "new":
                kubeapi.create(_body(name, namespace, s, s["target"]))
            elif s["before"] == "changed":
                obj = kubeapi.get(API_VERSION, KIND, namespace, name)
                assert obj is not None
                obj["spec"] = _body(name, namespace, s, s["target2"])["spec"]
                kubeapi.update(obj)
            elif s["before"] == "deleted":
                kubeapi.delete(API_VERSION, KIND, namespace, name)
        clock.step(1000)  # every validation due
        keys = [f"{namespace}/{names[i]}" for i in order]
        results = rec.reconcile_many(keys) if batch else {key: rec.reconcile(key) for key in keys}
        actions = {key.split("/")[1]: (r.action, r.error) for key, r in results.items()}
        return _zone(provider), _statuses(kubeapi, namespace), actions


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), records=st.lists(spec, min_size=2, max_size=6))
def test_a_batch_ends_where_single_passes_end(kubeapi: KubeAPIServer, kube_api_client: Any, data: st.DataObject,
                                              records: list[dict[str, Any]]) -> None:
    order = data.draw(st.permutations(range(len(records))))
    single = _side(kubeapi, kube_api_client, records, order, batch=False)
    batched = _side(kubeapi, kube_api_client, records, order, batch=True)
    assert batched[0] == single[0]  # the zone
    assert batched[1] == single[1]  # Ready reason/message, writeCounter, endpoints of every record
    assert batched[2] == single[2]  # what each pass did
