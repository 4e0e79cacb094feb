"""A `record-type: ptr` annotation that cannot be honoured is a Warning Event on the in-cluster object (as the
sources' other problems), not only a log line: through the long-running process and the real test API server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import kubernetes.client
import pytest

from external_dns.controller.controller import Controller
from external_dns.controller.informer_factory import LazyInformerFactory
from external_dns.controller.process import ControllerProcess
from external_dns.providers.inmemory import InMemoryProvider
from external_dns.registry import TXTRegistry
from external_dns.sources.derived import PtrSource
from tests.events.process_helpers import create_lb_service, event_process_options, running
from tests.helpers.service_source import ServiceInformerSource
from tests.helpers.threads import thread_leak_check
from tests.informers.helpers import wait_until
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check(ignore_prefix="kubeapi-")


def test_record_type_ptr_without_ptr_managed_is_a_warning_event(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    options = event_process_options(["RecordError"])
    api = kubernetes.client.ApiClient(kube_config)
    factory = LazyInformerFactory(lambda: api)
    provider = InMemoryProvider(["example.org", "2.0.192.in-addr.arpa"])
    source = PtrSource(ServiceInformerSource(factory()), False, ["A", "AAAA", "CNAME"])  # PTR not managed
    ctl = Controller(source, TXTRegistry(provider, owner_id="ptr-event"), "sync")
    process = ControllerProcess(options, ctl, stop=threading.Event(), kube_client=lambda: api,
                                informer_factory=factory, emit_events=True)
    create_lb_service(kubeapi, {"external-dns.kubernetes.io/hostname": "web.example.org",
                                "external-dns.kubernetes.io/record-type": "ptr"})

    def warnings() -> list[dict[str, Any]]:
        return [e for e in kubeapi.list("events.k8s.io/v1", "Event", "default")
                if e.get("type") == "Warning" and "cannot be honoured" in e.get("note", "")]

    with running(process, api) as codes:
        assert process.zone_controller.wait_until(lambda: bool(provider.records()), 15)
        assert wait_until(lambda: bool(warnings()), 10)
    assert codes == [0]
    event = warnings()[0]
    assert event["reason"] == "RecordError"
    assert (event["regarding"]["kind"], event["regarding"]["name"]) == ("Service", "web")
    assert "web.example.org" in event["note"] and "--managed-record-types" in event["note"]
    # The forward record is still written; no PTR record anywhere.
    assert {(e.dns_name, e.record_type) for e in provider.records()} >= {("web.example.org", "A")}
    assert not [e for e in provider.records() if e.record_type == "PTR"]
