"""The project's Kubernetes client (controller/kube.py) as the real kube-apiserver sees it: every request, the
generated calls and the informers' own lists and watches, names external-dns-py in client-go's User-Agent shape
(`<command>/<version> (<os>/<arch>) kubernetes/<commit>`), read back from the server's audit log."""

from __future__ import annotations

import re

import kubernetes.client
import pytest

from external_dns import __version__
from external_dns.controller.kube import api_client, user_agent
from external_dns.informers import SERVICES, SharedIndexInformer
from tests.informers.helpers import ModelHandler, wait_until
from tests.realkube.control_plane import ControlPlane

pytestmark = [pytest.mark.integration, pytest.mark.realkube]

AGENT = re.compile(r"external-dns-py/v(?P<version>[^ /]+) \((?P<os>[a-z0-9]+)/(?P<arch>[a-z0-9]+)\) "
                   r"kubernetes/(?P<commit>unknown|[0-9a-f]{7})")


def test_every_request_names_external_dns_py(realkube: ControlPlane, realkube_namespace: str,
                                             realkube_kubeconfig: str) -> None:
    path = f"/api/v1/namespaces/{realkube_namespace}/services"
    api = api_client(realkube_kubeconfig)  # the CLI's client, from its kubeconfig
    inf = SharedIndexInformer(api, SERVICES, namespace=realkube_namespace)
    mark = realkube.audit_mark()
    try:
        kubernetes.client.CoreV1Api(api).list_namespaced_service(realkube_namespace)
        reg = inf.add_event_handler(ModelHandler())
        inf.start()
        assert reg.wait_for_sync(20)

        def seen() -> dict[str, set[str]]:
            out: dict[str, set[str]] = {}
            for ev in realkube.audit(mark):
                if ev["requestURI"].split("?")[0] == path:
                    out.setdefault(ev["verb"], set()).add(ev.get("userAgent", ""))
            return out

        assert wait_until(lambda: "watch" in seen(), 20), seen()
    finally:
        assert inf.shutdown(5.0)
        api.close()
    agents = seen()
    # two lists (the generated call, the informer's raw one) and the informer's watch, all with our agent
    assert set(agents) == {"list", "watch"}, agents
    assert {a for verb in agents.values() for a in verb} == {user_agent()}, agents
    parts = AGENT.fullmatch(user_agent())
    assert parts is not None, user_agent()
    assert parts["version"] == __version__ and parts["os"] == "linux" and parts["commit"] == "unknown"
