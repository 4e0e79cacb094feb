"""What every informer source shares (sources/informer/base.py) against the test API server: RBAC access checks
naming the missing verbs, an unknown token, discovery of the served version of a resource."""

from __future__ import annotations

import socket

import kubernetes.client
import pytest

from external_dns.informers import DNSENDPOINTS, PODS, SERVICES, Resource
from external_dns.sources.informer import base
from external_dns.sources.informer.base import (
    AccessCheck,
    MissingPermissionError,
    ResourceNotServedError,
    check_access,
    first_served,
    served,
)
from external_dns.sources.informer.gateway import (
    ROUTE_VERSIONS,
    TLSROUTES,
    TLSROUTES_V1,
)
from external_dns.sources.rbac import rules_for_sources
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration


def client(server: KubeAPIServer, token: str | None) -> kubernetes.client.ApiClient:
    return kubernetes.client.ApiClient(server.configuration(token=token))


def test_check_access_names_missing_verbs_grouped(kubeapi: KubeAPIServer) -> None:
    kubeapi.add_token("t", [{"apiGroups": [""], "resources": ["services"], "verbs": ["list", "watch"]},
                            {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}])
    api = client(kubeapi, "t")
    try:
        check_access(api, [AccessCheck(SERVICES, "list"), AccessCheck(SERVICES, "watch")], "service")
        with pytest.raises(MissingPermissionError) as err:
            check_access(api, [AccessCheck(PODS, "list"), AccessCheck(PODS, "watch"),
                               AccessCheck(DNSENDPOINTS, "list", "default"), AccessCheck(DNSENDPOINTS, "watch", "default"),
                               AccessCheck(DNSENDPOINTS, "update", "default", "status")], "crd")
    finally:
        api.close()
    text = str(err.value)
    assert 'watch pods (API group "") cluster-wide: the ClusterRole needs the rule {apiGroups: [""], ' \
           'resources: ["pods"], verbs: ["watch"]}' in text
    assert ('list, watch dnsendpoints (API group "externaldns.k8s.io") in namespace "default": the ClusterRole '
            'needs the rule {apiGroups: ["externaldns.k8s.io"], resources: ["dnsendpoints"], '
            'verbs: ["list", "watch"]}') in text
    assert 'update dnsendpoints/status (API group "externaldns.k8s.io") in namespace "default"' in text
    assert "list pods" not in text
    assert "external-dns rbac crd" in text
    # the probes never create anything
    assert kubeapi.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint") == []


def test_check_access_unknown_token_is_401(kubeapi: KubeAPIServer) -> None:
    kubeapi.add_token("good", rules_for_sources(["service"]))
    api = client(kubeapi, "bad")
    try:
        with pytest.raises(MissingPermissionError, match="401 Unauthorized"):
            check_access(api, [AccessCheck(SERVICES, "list")], "service")
    finally:
        api.close()


def test_served_asks_discovery(kubeapi: KubeAPIServer) -> None:
    """The test API server serves TLSRoute at v1alpha2 only (the experimental channel before Gateway API v1.5)."""
    api = client(kubeapi, None)
    try:
        assert served(api, TLSROUTES) is True
        assert served(api, TLSROUTES_V1) is False  # group/version served, resource not in it
        assert served(api, Resource("example.org", "v1", "widgets", "Widget")) is False  # group not served (404)
        assert first_served(api, ROUTE_VERSIONS["gateway-tlsroute"], "gateway-tlsroute") == TLSROUTES
        with pytest.raises(ResourceNotServedError) as err:
            first_served(api, (TLSROUTES_V1,), "gateway-tlsroute")
        assert str(err.value) == ('--source=gateway-tlsroute: the Kubernetes API server does not serve tlsroutes '
                                  '(API group "gateway.networking.k8s.io", version v1); install the CRD that '
                                  "defines it")
    finally:
        api.close()
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = kubernetes.client.ApiClient(kubernetes.client.Configuration(host=f"http://127.0.0.1:{port}"))
    try:  # discovery cannot answer: the last (default) version, the informer reports the connection problem
        assert served(down, TLSROUTES_V1) is None
        assert first_served(down, ROUTE_VERSIONS["gateway-tlsroute"], "gateway-tlsroute") == TLSROUTES
    finally:
        down.close()


def test_first_served_prefers_the_first_version(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {TLSROUTES_V1: True, TLSROUTES: True}
    monkeypatch.setattr(base, "served", lambda _api, resource: answers[resource])
    assert first_served(None, (TLSROUTES_V1, TLSROUTES), "gateway-tlsroute") == TLSROUTES_V1
    answers[TLSROUTES_V1] = False
    assert first_served(None, (TLSROUTES_V1, TLSROUTES), "gateway-tlsroute") == TLSROUTES
    answers[TLSROUTES] = False
    with pytest.raises(ResourceNotServedError, match="version v1 or v1alpha2"):
        first_served(None, (TLSROUTES_V1, TLSROUTES), "gateway-tlsroute")
