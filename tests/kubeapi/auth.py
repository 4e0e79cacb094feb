"""Bearer-token authentication and RBAC-style authorization for the test API server.

`Authorizer.add_token(token, rules, user=None)` binds a token to ClusterRole-style rules
(`{"apiGroups": [...], "resources": [...], "verbs": [...], "resourceNames": [...]}`, "*" wildcards,
"plural/status" for subresources; an extra "namespaces": [...] key limits a rule to those namespaces,
the way a Role bound by RoleBindings would). With no token configured every request is allowed; once any token is
configured, an unknown or missing token is 401 and a disallowed request is 403 naming verb, resource and group.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from tests.kubeapi.errors import ApiError, forbidden, make_error


@dataclass(frozen=True)
class Attributes:
    """What a request does, as RBAC sees it."""

    verb: str
    group: str
    resource: str
    subresource: str
    namespace: str
    name: str


class Authorizer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[str, tuple[str, list[dict[str, Any]]]] = {}

    def reset(self) -> None:
        with self._lock:
            self._tokens.clear()

    def add_token(self, token: str, rules: list[dict[str, Any]], user: str | None = None) -> None:
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict) or "verbs" not in rule:
                raise ValueError(f"add_token: rules[{i}] must be a dict with 'verbs' (got {rule!r})")
        with self._lock:
            self._tokens[token] = (user or f"token-user-{len(self._tokens) + 1}", [dict(r) for r in rules])

    def authenticate(self, authorization: str | None) -> tuple[str, list[dict[str, Any]]] | None:
        """None when auth is off; the (user, rules) of the bearer token; 401 otherwise."""
        with self._lock:
            if not self._tokens:
                return None
            token = ""
            if authorization and authorization.lower().startswith("bearer "):
                token = authorization[7:].strip()
            found = self._tokens.get(token)
        if found is None:
            raise make_error(401, "Unauthorized", "Unauthorized")
        return found

    @staticmethod
    def authorize(identity: tuple[str, list[dict[str, Any]]], attrs: Attributes) -> None:
        """403 Forbidden unless one rule allows `attrs`."""
        user, rules = identity
        resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
        for rule in rules:
            if not _has(rule.get("verbs"), attrs.verb):
                continue
            if not _has(rule.get("apiGroups"), attrs.group):
                continue
            if not _has(rule.get("resources"), resource):
                continue
            names = rule.get("resourceNames")
            if names and attrs.name not in names:
                continue
            namespaces = rule.get("namespaces")
            if namespaces and attrs.namespace not in namespaces:
                continue
            return
        raise _forbidden(user, attrs, resource)


def _has(values: Any, wanted: str) -> bool:
    return isinstance(values, list) and ("*" in values or wanted in values)


def _forbidden(user: str, a: Attributes, resource: str) -> ApiError:
    gr = f"{a.resource}.{a.group}" if a.group else a.resource
    subject = f'{gr} "{a.name}"' if a.name else gr
    where = f'in the namespace "{a.namespace}"' if a.namespace else "at the cluster scope"
    msg = (f'{subject} is forbidden: User "{user}" cannot {a.verb} resource "{resource}" in API group '
           f'"{a.group}" {where}')
    details: dict[str, Any] = {}
    if a.name:
        details["name"] = a.name
    details["group"] = a.group
    details["kind"] = a.resource
    return forbidden(msg, details)
