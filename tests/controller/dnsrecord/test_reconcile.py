"""The DNSRecord lifecycle, one reconcile at a time, against the test API server and a zone-file provider with a
fake wall clock: create -> AwaitingValidation -> Ready, outside overwrites, the write limit, generation
changes, premature passes, user-edited queuedAt/validFor, deletion with the finalizer, bad input, owners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from external_dns.controller.dnsrecord.clock import format_time
from external_dns.controller.dnsrecord.reconcile import Options, Reconciler
from external_dns.controller.dnsrecord.registry import txt_prefix
from external_dns.controller.dnsrecord.status import GoneError
from external_dns.controller.dnsrecord.types import (
    API_VERSION,
    FINALIZER,
    KIND,
    WRITE_LIMIT_ERROR,
    base36_hash,
    uid_hash,
)
from external_dns.plan.changes import Changes
from external_dns.providers.snapshot import ZoneSnapshot
from external_dns.providers.zonefile import ZoneFileProvider
from external_dns.workqueue import FakeClock
from tests.controller.dnsrecord.helpers import (
    START,
    CountingProvider,
    a_record,
    find,
    get,
    overwrite,
    ready,
    reconciler,
    record,
    zonefile,
)
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

KEY = "default/app"


def write_counter_metric(name: str, namespace: str = "default") -> float | None:
    return REGISTRY.get_sample_value("dns_provider_write_counter",
                                     {"dns_record_name": name, "dns_record_namespace": namespace})


def ready_metric(name: str, root: str, namespace: str = "default") -> float | None:
    return REGISTRY.get_sample_value("dns_provider_record_ready",
                                     {"dns_record_name": name, "dns_record_namespace": namespace,
                                      "dns_record_root_host": root, "dns_record_is_delegating": "false"})


@pytest.fixture
def provider(tmp_path: Path) -> ZoneFileProvider:
    return zonefile(tmp_path, "example.com", "example.org")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=START)


@pytest.fixture
def rec(kubeapi: KubeAPIServer, kube_api_client: Any, provider: ZoneFileProvider, clock: FakeClock) -> Reconciler:
    return reconciler(kubeapi, kube_api_client, provider, clock)


def create_app(kubeapi: KubeAPIServer, *targets: str, **kw: Any) -> dict[str, Any]:
    return kubeapi.create(record("app", "app.example.com", [a_record("app.example.com", *(targets or ("1.2.3.4",)))],
                                 **kw))


def to_ready(rec: Reconciler, clock: FakeClock, key: str = KEY) -> None:
    first = rec.reconcile(key)
    assert first.action == "applied"
    assert first.requeue_after is not None
    clock.step(first.requeue_after)
    assert rec.reconcile(key).action == "ready"


def test_create_awaiting_validation_then_ready(kubeapi: KubeAPIServer, rec: Reconciler, provider: ZoneFileProvider,
                                               clock: FakeClock) -> None:
    created = create_app(kubeapi)
    first = rec.reconcile(KEY)
    assert first.action == "applied" and not first.error
    assert first.requeue_after is not None and 2.5 <= first.requeue_after < 7.5
    obj = get(kubeapi, "app")
    assert obj is not None
    assert FINALIZER in obj["metadata"]["finalizers"]
    status = obj["status"]
    cond = ready(obj)
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "AwaitingValidation", "Awaiting validation")
    owner = uid_hash(created["metadata"]["uid"])
    assert status["ownerID"] == owner and len(owner) == 8
    assert status["observedGeneration"] == obj["metadata"]["generation"]
    assert status["writeCounter"] == 0
    assert status["queuedAt"] == format_time(START)
    assert status["zoneID"] == status["zoneDomainName"] == "example.com"
    assert status["endpoints"] == [{"dnsName": "app.example.com", "targets": ["1.2.3.4"], "recordType": "A",
                                    "recordTTL": 300}]
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["1.2.3.4"]
    txt = find(provider, f"{txt_prefix(owner)}a-app.example.com", "TXT")
    assert txt is not None and f"external-dns/owner={owner}" in txt.targets[0]
    assert txt_prefix(owner) == f"kuadrant-{base36_hash(owner, 8)}-"

    clock.step(first.requeue_after)
    second = rec.reconcile(KEY)
    assert second.action == "ready" and second.requeue_after == 900.0
    obj = get(kubeapi, "app")
    cond = ready(obj)
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", "ProviderSuccess",
                                                                  "Provider ensured the dns record")
    assert obj is not None and obj["status"]["validFor"] == "14m0s" and obj["status"]["writeCounter"] == 0
    assert write_counter_metric("app") == 0
    assert ready_metric("app", "app.example.com") == 1


def test_premature_pass_skips_the_provider(kubeapi: KubeAPIServer, kube_api_client: Any, provider: ZoneFileProvider,
                                           clock: FakeClock) -> None:
    counting = CountingProvider(provider)
    rec = reconciler(kubeapi, kube_api_client, counting, clock)
    create_app(kubeapi)
    to_ready(rec, clock)
    reads, writes = counting.reads, counting.writes
    clock.step(100)
    overwrite(provider, "app.example.com", "9.9.9.9")  # not noticed while the record is valid
    result = rec.reconcile(KEY)
    assert result.action == "premature"
    assert result.requeue_after == pytest.approx(840 - 100, abs=1)
    assert (counting.reads, counting.writes) == (reads, writes)
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["9.9.9.9"]
    clock.step(740)  # validity over
    assert rec.reconcile(KEY).action == "applied"
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["1.2.3.4"]


def test_outside_overwrite_is_rewritten_and_counted(kubeapi: KubeAPIServer, rec: Reconciler,
                                                    provider: ZoneFileProvider, clock: FakeClock) -> None:
    create_app(kubeapi)
    to_ready(rec, clock)
    clock.step(900)
    overwrite(provider, "app.example.com", "9.9.9.9")
    result = rec.reconcile(KEY)
    assert result.action == "applied"
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"]["writeCounter"] == 1
    assert ready(obj)["reason"] == "AwaitingValidation"
    assert write_counter_metric("app") == 1
    assert ready_metric("app", "app.example.com") == 0
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["1.2.3.4"]
    assert result.requeue_after is not None
    clock.step(result.requeue_after)
    assert rec.reconcile(KEY).action == "ready"
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"]["writeCounter"] == 0
    assert write_counter_metric("app") == 0


def test_overwritten_on_every_pass_gives_up_at_the_limit_until_the_generation_changes(
        kubeapi: KubeAPIServer, kube_api_client: Any, provider: ZoneFileProvider, clock: FakeClock,
        capsys: pytest.CaptureFixture[str]) -> None:
    counting = CountingProvider(provider)
    rec = reconciler(kubeapi, kube_api_client, counting, clock, Options(write_counter_limit=3))
    create_app(kubeapi)
    assert rec.reconcile(KEY).action == "applied"  # first write of generation 1: counter 0
    for expected in (1, 2, 3):
        overwrite(provider, "app.example.com", "9.9.9.9")
        clock.step(10)
        assert rec.reconcile(KEY).action == "applied"
        obj = get(kubeapi, "app")
        assert obj is not None and obj["status"]["writeCounter"] == expected
    overwrite(provider, "app.example.com", "9.9.9.9")
    clock.step(10)
    writes = counting.writes
    result = rec.reconcile(KEY)
    assert result.action == "gave-up" and result.requeue_after is None and not result.error
    assert counting.writes == writes  # nothing written
    obj = get(kubeapi, "app")
    cond = ready(obj)
    assert cond["status"] == "False" and cond["reason"] == "ProviderError"
    assert cond["message"] == f"The DNS provider failed to ensure the record: {WRITE_LIMIT_ERROR}"
    assert obj is not None and obj["status"]["writeCounter"] == 3
    assert write_counter_metric("app") == 3
    assert "Giving up on trying to maintain desired state of the DNS record" in capsys.readouterr().out
    reads = counting.reads
    clock.step(3600)
    again = rec.reconcile(KEY)  # e.g. the event of our own status write, or a resync
    assert again.action == "gave-up" and again.requeue_after is None
    assert counting.reads == reads  # not even a read

    obj["spec"]["endpoints"] = [a_record("app.example.com", "1.2.3.5")]
    kubeapi.update(obj)  # generation 2
    result = rec.reconcile(KEY)
    assert result.action == "applied"
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"]["writeCounter"] == 0 and obj["status"]["observedGeneration"] == 2
    assert ready(obj)["reason"] == "AwaitingValidation"
    a = find(provider, "app.example.com")
    assert a is not None and list(a.targets) == ["1.2.3.5"]


def test_generation_change_resets_the_counter_and_skips_the_premature_check(
        kubeapi: KubeAPIServer, rec: Reconciler, provider: ZoneFileProvider, clock: FakeClock) -> None:
    create_app(kubeapi)
    to_ready(rec, clock)
    clock.step(900)
    overwrite(provider, "app.example.com", "9.9.9.9")
    assert rec.reconcile(KEY).action == "applied"  # writeCounter 1
    obj = get(kubeapi, "app")
    assert obj is not None
    obj["spec"]["endpoints"] = [a_record("app.example.com", "5.6.7.8"), a_record("www.app.example.com", "5.6.7.9")]
    kubeapi.update(obj)
    result = rec.reconcile(KEY)  # validity not over, but the generation changed
    assert result.action == "applied"
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"]["writeCounter"] == 0
    www = find(provider, "www.app.example.com")
    assert www is not None and list(www.targets) == ["5.6.7.9"]
    obj["spec"]["endpoints"] = [a_record("app.example.com", "5.6.7.8")]
    kubeapi.update(obj)
    assert rec.reconcile(KEY).action == "applied"
    assert find(provider, "www.app.example.com") is None  # removed from the spec -> deleted


def test_deletion_keeps_the_finalizer_until_the_provider_is_clean(
        kubeapi: KubeAPIServer, rec: Reconciler, provider: ZoneFileProvider, clock: FakeClock) -> None:
    created = create_app(kubeapi)
    to_ready(rec, clock)
    owner = uid_hash(created["metadata"]["uid"])
    owned = [ep for ep in provider.records() if ep.dns_name in ("app.example.com", f"{txt_prefix(owner)}a-app.example.com")]
    assert len(owned) == 2
    kubeapi.delete(API_VERSION, KIND, "default", "app")
    first = rec.reconcile(KEY)
    assert first.action == "deleting" and first.requeue_after is not None
    obj = get(kubeapi, "app")
    assert obj is not None and FINALIZER in obj["metadata"]["finalizers"]
    cond = ready(obj)
    assert (cond["reason"], cond["message"]) == ("ProviderEndpointsDeletion", "DNS records are being deleted from provider")
    assert find(provider, "app.example.com") is None
    assert rec.reconcile(KEY).action == "premature"  # not validated before it is due
    provider.apply_changes(Changes(create=owned))  # a backup restore brings the records back
    clock.step(first.requeue_after)
    second = rec.reconcile(KEY)
    assert second.action == "deleting"  # deleted again, finalizer kept
    obj = get(kubeapi, "app")
    assert obj is not None and FINALIZER in obj["metadata"]["finalizers"]
    assert second.requeue_after is not None
    clock.step(second.requeue_after)
    assert rec.reconcile(KEY).action == "finalizer-removed"
    assert get(kubeapi, "app") is None
    assert [ep for ep in provider.records() if ep.dns_name.endswith("app.example.com")] == []
    assert write_counter_metric("app") is None
    assert ready_metric("app", "app.example.com") is None
    assert rec.reconcile(KEY).action == "gone"


def test_bad_valid_for_counts_as_zero_and_a_valid_one_is_obeyed(
        kubeapi: KubeAPIServer, kube_api_client: Any, provider: ZoneFileProvider, clock: FakeClock) -> None:
    counting = CountingProvider(provider)
    rec = reconciler(kubeapi, kube_api_client, counting, clock)
    create_app(kubeapi)
    to_ready(rec, clock)
    obj = get(kubeapi, "app")
    assert obj is not None
    obj["status"]["validFor"] = "fortnight"
    obj = kubeapi.update_status(obj)
    reads = counting.reads
    result = rec.reconcile(KEY)
    assert result.action == "ready" and counting.reads == reads + 1
    obj = get(kubeapi, "app")
    assert obj is not None and obj["status"]["validFor"] == "14m0s"

    obj["status"]["validFor"] = "1h"
    kubeapi.update_status(obj)
    clock.step(1000)
    result = rec.reconcile(KEY)
    assert result.action == "premature" and result.requeue_after == pytest.approx(3600 - 1000, abs=1)

    obj = get(kubeapi, "app")
    assert obj is not None
    obj["status"]["queuedAt"] = format_time(START + 10 * 86400)  # a queuedAt in the future is not believed
    kubeapi.update_status(obj)
    assert rec.reconcile(KEY).action == "ready"


@pytest.mark.parametrize(("endpoints", "message"), [
    ([a_record("other.example.org", "1.2.3.4")],
     "validation of DNSRecord failed: invalid endpoint discovered other.example.org all endpoints should be equal to "
     "or end with the rootHost app.example.com (spec.endpoints[0].dnsName)"),
    ([a_record("badapp.example.com", "1.2.3.4")], "end with the rootHost app.example.com"),
    ([a_record("app.example.com", "not-an-ip")], "spec.endpoints[0].targets"),
    ([a_record("app.example.com", "1.2.3.4"), a_record("APP.example.com", "1.2.3.5")],
     "spec.endpoints[1]: duplicate record APP.example.com A, already in spec.endpoints[0]"),
    ([{"dnsName": "app.example.com", "recordType": "BOGUS", "targets": ["x"]}], "spec.endpoints[0].recordType"),
])
def test_bad_input_is_a_validation_error_and_other_records_still_sync(
        kubeapi: KubeAPIServer, rec: Reconciler, provider: ZoneFileProvider, endpoints: list[dict[str, Any]],
        message: str) -> None:
    kubeapi.create(record("bad", "app.example.com", endpoints))
    kubeapi.create(record("good", "good.example.com", [a_record("good.example.com", "5.5.5.5")]))
    result = rec.reconcile("default/bad")
    assert result.action == "invalid" and result.requeue_after is None and not result.error
    cond = ready(get(kubeapi, "bad"))
    assert cond["status"] == "False" and cond["reason"] == "ValidationError"
    assert message in cond["message"]
    assert cond["message"].startswith("validation of DNSRecord failed: ")
    assert [ep for ep in provider.records() if "app.example" in ep.dns_name] == []
    assert rec.reconcile("default/good").action == "applied"
    assert find(provider, "good.example.com") is not None


def test_fixing_a_bad_spec_publishes_it(kubeapi: KubeAPIServer, rec: Reconciler, provider: ZoneFileProvider) -> None:
    kubeapi.create(record("app", "app.example.com", [a_record("other.example.org", "1.2.3.4")]))
    assert rec.reconcile(KEY).action == "invalid"
    assert rec.reconcile(KEY).action == "invalid"  # same generation: same status, no new write
    obj = get(kubeapi, "app")
    assert obj is not None
    obj["spec"]["endpoints"] = [a_record("app.example.com", "1.2.3.4")]
    kubeapi.update(obj)
    assert rec.reconcile(KEY).action == "applied"
    assert find(provider, "app.example.com") is not None


def test_unserved_fields_are_reported_and_delegate_is_refused(kubeapi: KubeAPIServer, rec: Reconciler,
                                                              provider: ZoneFileProvider) -> None:
    create_app(kubeapi, providerRef={"name": "aws-credentials"}, healthCheck={"path": "/healthz"})
    assert rec.reconcile(KEY).action == "applied"
    obj = get(kubeapi, "app")
    assert obj is not None
    unsupported = [c for c in obj["status"]["conditions"] if c["type"] == "Unsupported"]
    assert len(unsupported) == 1 and unsupported[0]["reason"] == "UnsupportedFields"
    assert unsupported[0]["message"] == (
        "not served by external-dns-py: spec.providerRef (the records go to this process's --provider); "
        "spec.healthCheck (no health checks: every endpoint is published)")
    obj["spec"].pop("healthCheck")
    obj["spec"].pop("providerRef")
    kubeapi.update(obj)
    assert rec.reconcile(KEY).action == "ready"
    obj = get(kubeapi, "app")
    assert obj is not None and [c["type"] for c in obj["status"]["conditions"]] == ["Ready"]

    kubeapi.create(record("deleg", "deleg.example.com", [a_record("deleg.example.com", "1.2.3.4")], delegate=True))
    assert rec.reconcile("default/deleg").action == "invalid"
    cond = ready(get(kubeapi, "deleg"))
    assert cond["reason"] == "ValidationError" and "spec.delegate" in cond["message"]
    assert find(provider, "deleg.example.com") is None


def test_no_zone_for_the_root_host_is_a_provider_error(kubeapi: KubeAPIServer, rec: Reconciler) -> None:
    kubeapi.create(record("app", "app.example.net", [a_record("app.example.net", "1.2.3.4")]))
    result = rec.reconcile(KEY)
    assert result.action == "error" and "Unable to find suitable zone in provider" in result.error
    cond = ready(get(kubeapi, "app"))
    assert cond["reason"] == "ProviderError"
    assert cond["message"].startswith("The DNS provider failed to ensure the record: Unable to find suitable zone")


def test_same_name_different_owners_never_touch_each_other(kubeapi: KubeAPIServer, rec: Reconciler,
                                                           provider: ZoneFileProvider, clock: FakeClock) -> None:
    kubeapi.ensure_namespace("other")
    kubeapi.create(record("app", "a.example.com", [a_record("a.example.com", "1.1.1.1")], owner="owner-one"))
    kubeapi.create(record("app", "b.example.com", [a_record("b.example.com", "2.2.2.2")], namespace="other",
                          owner="owner-two"))
    to_ready(rec, clock, "default/app")
    to_ready(rec, clock, "other/app")
    assert find(provider, "a.example.com") is not None and find(provider, "b.example.com") is not None
    # a third record claims a name owned by owner-one: refused, nothing written, owner-one's record intact
    kubeapi.create(record("thief", "a.example.com", [a_record("a.example.com", "6.6.6.6")], namespace="other",
                          owner="owner-three"))
    result = rec.reconcile("other/thief")
    assert result.action == "error" and "a.example.com A is not owned by us" in result.error
    a = find(provider, "a.example.com")
    assert a is not None and list(a.targets) == ["1.1.1.1"]

    kubeapi.delete(API_VERSION, KIND, "other", "thief")
    assert rec.reconcile("other/thief").action == "finalizer-removed"
    kubeapi.delete(API_VERSION, KIND, "other", "app")
    deleting = rec.reconcile("other/app")
    assert deleting.action == "deleting" and deleting.requeue_after is not None
    clock.step(deleting.requeue_after)
    assert rec.reconcile("other/app").action == "finalizer-removed"
    assert find(provider, "b.example.com") is None
    a = find(provider, "a.example.com")
    assert a is not None and list(a.targets) == ["1.1.1.1"]
    clock.step(900)
    assert rec.reconcile("default/app").action == "ready"  # nothing of owner-one was lost


def test_zone_wide_owner_records_are_not_touched(kubeapi: KubeAPIServer, rec: Reconciler,
                                                 provider: ZoneFileProvider, clock: FakeClock) -> None:
    from external_dns.endpoint.endpoint import Endpoint
    from external_dns.endpoint.targets import Targets
    from external_dns.registry.txt import TXTRegistry

    zone_wide = TXTRegistry(provider, owner_id="default")
    zone_wide.records()
    zone_wide.apply_changes(Changes(create=[Endpoint("svc.app.example.com", "A", Targets(["7.7.7.7"]))]))
    create_app(kubeapi)
    to_ready(rec, clock)
    kubeapi.delete(API_VERSION, KIND, "default", "app")
    deleting = rec.reconcile(KEY)
    assert deleting.requeue_after is not None
    clock.step(deleting.requeue_after)
    assert rec.reconcile(KEY).action == "finalizer-removed"
    svc = find(provider, "svc.app.example.com")
    assert svc is not None and list(svc.targets) == ["7.7.7.7"]
    assert find(provider, "a-svc.app.example.com", "TXT") is not None


class _FailingProvider(CountingProvider):
    def __init__(self, inner: ZoneFileProvider) -> None:
        super().__init__(inner)
        self.fail = True

    def records(self) -> list[Any]:
        if self.fail:
            raise ConnectionError("provider unreachable: connection refused")
        return super().records()

    def zone_snapshot(self, zone: str) -> ZoneSnapshot:
        if self.fail:
            raise ConnectionError("provider unreachable: connection refused")
        return super().zone_snapshot(zone)


def test_provider_error_keeps_the_counters_and_is_retried(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                          provider: ZoneFileProvider, clock: FakeClock) -> None:
    failing = _FailingProvider(provider)
    failing.fail = False
    rec = reconciler(kubeapi, kube_api_client, failing, clock)
    create_app(kubeapi)
    to_ready(rec, clock)
    clock.step(900)
    overwrite(provider, "app.example.com", "9.9.9.9")
    assert rec.reconcile(KEY).action == "applied"  # writeCounter 1
    before = get(kubeapi, "app")
    assert before is not None
    failing.fail = True
    clock.step(10)
    result = rec.reconcile(KEY)
    assert result.action == "error" and result.requeue_after is None
    assert result.error == "provider unreachable: connection refused"
    after = get(kubeapi, "app")
    assert after is not None
    cond = ready(after)
    assert (cond["status"], cond["reason"]) == ("False", "ProviderError")
    assert cond["message"] == "The DNS provider failed to ensure the record: provider unreachable: connection refused"
    for kept in ("writeCounter", "queuedAt", "validFor", "endpoints", "zoneID"):
        assert after["status"][kept] == before["status"][kept], kept
    assert rec.reconcile(KEY).action == "error"  # not premature: the last pass failed
    failing.fail = False
    assert rec.reconcile(KEY).action == "ready"


def test_stale_cache_never_overwrites_the_newer_status(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                       provider: ZoneFileProvider, clock: FakeClock) -> None:
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    create_app(kubeapi)
    assert rec.reconcile(KEY).action == "applied"
    current = get(kubeapi, "app")
    assert current is not None
    stale = {**current, "status": {},  # the informer has not seen our status write yet
             "metadata": {**current["metadata"], "resourceVersion": str(int(current["metadata"]["resourceVersion"]) - 1)}}
    stale_rec = Reconciler(provider, rec.api, lambda key: stale, rec.options, clock=clock)
    result = stale_rec.reconcile(KEY)
    assert result.action == "stale" and result.requeue_after == 0.0
    after = get(kubeapi, "app")
    assert after is not None and ready(after)["reason"] == "AwaitingValidation"
    assert after["status"] == current["status"]


def test_stale_pass_on_a_record_already_gone(kubeapi: KubeAPIServer, kube_api_client: Any,
                                             provider: ZoneFileProvider, clock: FakeClock) -> None:
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    create_app(kubeapi)
    to_ready(rec, clock)
    kubeapi.delete(API_VERSION, KIND, "default", "app")
    deleting = rec.reconcile(KEY)
    assert deleting.requeue_after is not None
    clock.step(deleting.requeue_after)
    snapshot = get(kubeapi, "app")  # what a lagging informer still holds
    assert rec.reconcile(KEY).action == "finalizer-removed"
    stale_rec = Reconciler(provider, rec.api, lambda key: snapshot, rec.options, clock=clock)
    assert stale_rec.reconcile(KEY).action == "gone"
    with pytest.raises(GoneError):
        rec.api.set_finalizers(snapshot or {}, [])


def test_finalizer_patch_on_a_record_already_gone(kubeapi: KubeAPIServer, kube_api_client: Any,
                                                  provider: ZoneFileProvider, clock: FakeClock) -> None:
    rec = reconciler(kubeapi, kube_api_client, provider, clock)
    snapshot = create_app(kubeapi)
    kubeapi.delete(API_VERSION, KIND, "default", "app")  # no finalizer yet: gone at once
    stale_rec = Reconciler(provider, rec.api, lambda key: snapshot, rec.options, clock=clock)
    assert stale_rec.reconcile(KEY).action == "gone"
    assert find(provider, "app.example.com") is None
