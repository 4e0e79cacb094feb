"""Bearer tokens bound to RBAC rules: 401 for unknown tokens, 403 Forbidden naming verb/resource/group."""

from __future__ import annotations

import kubernetes.client as kc
import pytest
from kubernetes.client.rest import ApiException

from tests.kubeapi.rawclient import RawClient
from tests.kubeapi.server import KubeAPIServer

pytestmark = pytest.mark.integration

SVC = "/api/v1/namespaces/default/services"
RULES = [
    {"apiGroups": [""], "resources": ["services", "namespaces"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["externaldns.k8s.io"], "resources": ["dnsendpoints/status"], "verbs": ["update", "patch"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"],
     "resourceNames": ["external-dns-leader"]},
]


def test_no_tokens_means_allow_all(kubeapi: KubeAPIServer) -> None:
    with RawClient(kubeapi.url, token="anything") as raw:
        assert raw.get(SVC).status == 200
    with RawClient(kubeapi.url) as raw:
        assert raw.get(SVC).status == 200


def test_unknown_or_missing_token_is_401(kubeapi: KubeAPIServer) -> None:
    kubeapi.add_token("good", RULES)
    for token in (None, "bad"):
        with RawClient(kubeapi.url, token=token) as raw:
            r = raw.get(SVC)
            assert r.status == 401
            assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": "Unauthorized", "reason": "Unauthorized", "code": 401}


def test_rules_allow_and_forbid(kubeapi: KubeAPIServer) -> None:
    kubeapi.add_token("good", RULES, user="system:serviceaccount:default:external-dns")
    with RawClient(kubeapi.url, token="good") as raw:
        assert raw.get(SVC).status == 200
        assert raw.get("/api/v1/services?watch=true&timeoutSeconds=1").status == 200
        assert raw.get("/version").status == 200 and raw.get("/apis").status == 200
        r = raw.request("POST", SVC, {"metadata": {"name": "x"}, "spec": {"ports": [{"port": 1}]}})
        assert r.status == 403
        assert r.json == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": 'services is forbidden: User "system:serviceaccount:default:external-dns" '
                                     'cannot create resource "services" in API group "" in the namespace "default"',
                          "reason": "Forbidden", "details": {"group": "", "kind": "services"}, "code": 403}
        r = raw.get("/apis/externaldns.k8s.io/v1alpha1/dnsendpoints")
        assert r.status == 403
        assert r.json["message"] == ('dnsendpoints.externaldns.k8s.io is forbidden: User '
                                     '"system:serviceaccount:default:external-dns" cannot list resource '
                                     '"dnsendpoints" in API group "externaldns.k8s.io" at the cluster scope')
        # the status subresource is its own resource for RBAC
        path = "/apis/externaldns.k8s.io/v1alpha1/namespaces/default/dnsendpoints/a"
        r = raw.request("PATCH", path, {"spec": {}}, "application/merge-patch+json")
        assert r.status == 403 and 'cannot patch resource "dnsendpoints"' in r.json["message"]
        r = raw.request("PATCH", path + "/status", {"status": {}}, "application/merge-patch+json")
        assert r.status == 404  # allowed by RBAC, the object just does not exist
        # resourceNames restrict by object name
        leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
        assert raw.get(f"{leases}/external-dns-leader").status == 404
        r = raw.get(f"{leases}/other")
        assert r.status == 403
        assert r.json["details"] == {"name": "other", "group": "coordination.k8s.io", "kind": "leases"}
        assert r.json["message"] == ('leases.coordination.k8s.io "other" is forbidden: User '
                                     '"system:serviceaccount:default:external-dns" cannot get resource "leases" '
                                     'in API group "coordination.k8s.io" in the namespace "default"')


def test_kubernetes_client_with_token(kubeapi: KubeAPIServer, tmp_path: object) -> None:
    kubeapi.add_token("good", RULES)
    client = kc.ApiClient(kubeapi.configuration(token="good"))
    try:
        api = kc.CoreV1Api(client)
        assert api.list_namespaced_service("default").items == []
        with pytest.raises(ApiException) as exc:
            api.list_namespaced_pod("default")
        assert exc.value.status == 403
    finally:
        client.close()
    anonymous = kc.ApiClient(kubeapi.configuration())
    try:
        with pytest.raises(ApiException) as exc:
            kc.CoreV1Api(anonymous).list_namespaced_service("default")
        assert exc.value.status == 401
    finally:
        anonymous.close()


def test_kubeconfig_with_token(kubeapi: KubeAPIServer, tmp_path: object) -> None:
    import pathlib

    import kubernetes.config

    kubeapi.add_token("good", RULES)
    path = kubeapi.write_kubeconfig(pathlib.Path(str(tmp_path)) / "kc", token="good")
    client = kubernetes.config.new_client_from_config(config_file=path)
    try:
        assert kc.CoreV1Api(client).list_namespace().items[0].metadata.name == "default"
    finally:
        client.close()


def test_add_token_rejects_bad_rules(kubeapi: KubeAPIServer) -> None:
    with pytest.raises(ValueError, match=r"rules\[0\] must be a dict with 'verbs'"):
        kubeapi.add_token("t", [{"resources": ["services"]}])


def test_namespace_limited_rule_models_a_role(kubeapi: KubeAPIServer) -> None:
    kubeapi.ensure_namespace("team")
    kubeapi.add_token("role", [{"apiGroups": [""], "resources": ["services"], "verbs": ["list", "watch"],
                                "namespaces": ["team"]}], user="alice")
    with RawClient(kubeapi.url, token="role") as raw:
        assert raw.get("/api/v1/namespaces/team/services").status == 200
        r = raw.get(SVC)
        assert r.status == 403
        assert r.json["message"] == ('services is forbidden: User "alice" cannot list resource "services" in API '
                                     'group "" in the namespace "default"')
        r = raw.get("/api/v1/services")
        assert r.status == 403 and r.json["message"].endswith("at the cluster scope")


def test_resource_names_apply_to_watch_by_name_field_selector(kubeapi: KubeAPIServer) -> None:
    kubeapi.add_token("le", [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                              "verbs": ["get", "list", "watch"], "resourceNames": ["leader"]}], user="le")
    leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
    with RawClient(kubeapi.url, token="le") as raw:
        assert raw.get(f"{leases}?fieldSelector=metadata.name%3Dleader").status == 200
        assert raw.get(f"{leases}?watch=true&fieldSelector=metadata.name%3D%3Dleader&timeoutSeconds=1").status == 200
        assert raw.get(leases).status == 403
        r = raw.get(f"{leases}?fieldSelector=metadata.name%3Dother")
        assert r.status == 403 and r.json["message"].startswith('leases.coordination.k8s.io "other" is forbidden')
        assert raw.get(f"{leases}?fieldSelector=metadata.name!%3Dleader").status == 403
