"""--events-emit in the long-running process: only the listed record events reach the API server."""

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
from tests.events.process_helpers import create_lb_service, event_process_options, running
from tests.helpers.service_source import ServiceInformerSource
from tests.helpers.threads import thread_leak_check
from tests.informers.helpers import wait_until
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    yield from thread_leak_check(ignore_prefix="kubeapi-")


def test_only_listed_record_events_are_sent(kubeapi: KubeAPIServer, kube_config: Any) -> None:
    options = event_process_options(["RecordDeleted"])
    assert options.events_emit == ("RecordDeleted",)
    api = kubernetes.client.ApiClient(kube_config)
    factory = LazyInformerFactory(lambda: api)
    provider = InMemoryProvider(["example.org"])
    ctl = Controller(ServiceInformerSource(factory()), TXTRegistry(provider, owner_id="emit-test"), "sync")
    process = ControllerProcess(options, ctl, stop=threading.Event(), kube_client=lambda: api,
                                informer_factory=factory, emit_events=True)
    create_lb_service(kubeapi, {"external-dns.kubernetes.io/hostname": "web.example.org"})

    def reasons() -> list[str]:
        return [e["reason"] for e in kubeapi.list("events.k8s.io/v1", "Event", "default")]

    with running(process, api) as codes:
        assert process.zone_controller.wait_until(lambda: bool(provider.records()), 15)
        kubeapi.delete("v1", "Service", "default", "web")
        assert wait_until(lambda: "RecordDeleted" in reasons(), 10)
    assert codes == [0]
    assert "RecordReady" not in reasons()  # the record was created, but only deletions were asked for
