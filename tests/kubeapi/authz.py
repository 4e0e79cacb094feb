"""Bearer tokens bound to a ClusterRole manifest, for tests that run the controller with exact RBAC.

`bind_cluster_role(server, token, cluster_role, user=None) -> list[dict]`: `cluster_role` is a ClusterRole
manifest (dict), its YAML text, or a path to a YAML file (the first ClusterRole document in it); its
`rules` are bound to `token` through `KubeAPIServer.add_token` (tests/kubeapi/auth.py does the checking:
anything the rules do not allow is 403 Forbidden naming verb, resource and group). Returns the rules.
`bind_rendered_roles(server, token, objects)` binds every ClusterRole and Role among rendered manifests
(e.g. the Helm chart's output) to one token, a Role's rules limited to its namespace (the way a RoleBinding
grants them). `forbidden_requests(server)` lists the (method, path) of every 403 answer seen so far.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from tests.kubeapi.server import KubeAPIServer


def load_cluster_role(cluster_role: dict[str, Any] | str | os.PathLike[str]) -> dict[str, Any]:
    """A ClusterRole manifest from a dict, YAML text or a YAML file; ValueError when there is none."""
    if isinstance(cluster_role, dict):
        docs: list[Any] = [cluster_role]
    else:
        text = str(cluster_role)
        path = Path(text)
        if isinstance(cluster_role, os.PathLike) or ("\n" not in text and path.is_file()):
            text = path.read_text(encoding="utf-8")
        docs = list(yaml.safe_load_all(text))
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "ClusterRole":
            rules = doc.get("rules")
            if not isinstance(rules, list):
                raise ValueError("ClusterRole.rules must be a list")
            return doc
    raise ValueError("no ClusterRole document found")


def bind_cluster_role(server: KubeAPIServer, token: str, cluster_role: dict[str, Any] | str | os.PathLike[str],
                      user: str | None = None) -> list[dict[str, Any]]:
    role = load_cluster_role(cluster_role)
    rules = [dict(r) for r in role["rules"]]
    server.add_token(token, rules, user)
    return rules


def bind_rendered_roles(server: KubeAPIServer, token: str, objects: list[dict[str, Any]],
                        user: str | None = None) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for obj in objects:
        if obj.get("kind") == "ClusterRole":
            rules += [dict(r) for r in obj.get("rules") or []]
        elif obj.get("kind") == "Role":
            namespace = (obj.get("metadata") or {}).get("namespace") or "default"
            rules += [{**r, "namespaces": [namespace]} for r in obj.get("rules") or []]
    if not rules:
        raise ValueError("no ClusterRole or Role rules among the objects")
    server.add_token(token, rules, user)
    return rules


def forbidden_requests(server: KubeAPIServer) -> list[tuple[str, str]]:
    return [(method, path) for method, path, _query, status in server.requests if status == 403]
