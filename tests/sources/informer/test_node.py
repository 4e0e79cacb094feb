"""`--source=node` through the real informers against the test API server (sources/informer/node.py): events,
cordoning, and heartbeats that change nothing trigger no sync."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.informers import SharedInformerFactory
from external_dns.sources.informer.node import NodeInformerSource
from external_dns.sources.options import SourceOptions
from tests.kubeapi.server import KubeAPIServer
from tests.sources.informer.conftest import PREFIX, Waiter, create_with_status, names

pytestmark = pytest.mark.integration


def test_node_source_events_and_cordon(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                       waiter: Waiter) -> None:
    def node(name: str, ip: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "annotations": {PREFIX + "ttl": "60"}},
                "status": {"addresses": [{"type": "ExternalIP", "address": ip},
                                         {"type": "InternalIP", "address": "fd00::" + name[-1]}]}}

    src = NodeInformerSource(factory, SourceOptions(fqdn_template="{{.Name}}.nodes.example.org"), sync_timeout=10.0)
    src.add_event_handler(waiter)
    create_with_status(kubeapi, node("n1", "203.0.113.1"))
    create_with_status(kubeapi, node("n2", "203.0.113.2"))
    assert waiter.until(lambda: names(src.endpoints()) == {("n1.nodes.example.org", "A"): ["203.0.113.1"],
                                                          ("n2.nodes.example.org", "A"): ["203.0.113.2"]})
    assert {e.record_ttl for e in src.endpoints()} == {60}
    kubeapi.patch("v1", "Node", "", "n2", {"spec": {"unschedulable": True}})
    assert waiter.until(lambda: names(src.endpoints()) == {("n1.nodes.example.org", "A"): ["203.0.113.1"]})


def test_node_heartbeat_does_not_trigger_a_sync(kubeapi: KubeAPIServer, factory: SharedInformerFactory,
                                                waiter: Waiter) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"addresses": [{"type": "ExternalIP", "address": "203.0.113.1"}],
                       "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "t0"}]}}
    created = create_with_status(kubeapi, node)
    src = NodeInformerSource(factory, SourceOptions(), sync_timeout=10.0)
    src.add_event_handler(waiter)
    src.endpoints()
    assert waiter.until(lambda: waiter.count == 1)  # the initial add
    for beat in ("t1", "t2", "t3"):  # status heartbeats: nothing the source reads changes
        created["status"]["conditions"][0]["lastHeartbeatTime"] = beat
        created = kubeapi.update_status(created)
    created["status"]["addresses"][0]["address"] = "203.0.113.9"
    kubeapi.update_status(created)
    assert waiter.until(lambda: names(src.endpoints()) == {("n1", "A"): ["203.0.113.9"]})
    assert waiter.count == 2
